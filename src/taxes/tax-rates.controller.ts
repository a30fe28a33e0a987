import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Roles } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { IdParam } from '../common/id-param.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import {
  CreateTaxRateDto,
  TaxRateQueryDto,
  TaxRateResponseDto,
  UpdateTaxRateDto,
} from './dto/tax-rate.dto.js';
import { TaxRatesService } from './tax-rates.service.js';

const NOT_FOUND = 'Tax rate 4 not found';
const BAD_ID = { 400: { field: 'id', rule: 'isInt', message: 'id must be an integer number' } };
const PLACE_TAKEN = {
  field: 'tax_class',
  rule: 'unique',
  message: 'tax_class standard in US-CA already has a rate: tax rate 4',
};

@ApiTags('tax-rates')
@ApiBearerAuth()
@Controller('tax-rates')
@Roles('admin')
export class TaxRatesController {
  constructor(private readonly taxRates: TaxRatesService) {}

  @Get()
  @ApiOperation({
    summary: 'List tax rates (admin)',
    description: 'Id order; `country` keeps that country’s rates.',
  })
  @ApiEnvelope(TaxRateResponseDto, { list: true })
  @ApiErrors(400, 401, 403, 429, {
    400: {
      field: 'country',
      rule: 'isCountryCode',
      message: 'country must be an ISO 3166-1 alpha-2 country code in upper case',
    },
  })
  list(@Query() query: TaxRateQueryDto): Promise<Paginated<TaxRateResponseDto>> {
    return this.taxRates.list(query);
  }

  @Post()
  @ApiOperation({
    summary: 'Create a tax rate (admin)',
    description: 'One rate per country, subdivision and tax class (400 naming `tax_class`, rule `unique`).',
  })
  @ApiEnvelope(TaxRateResponseDto, { status: 201 })
  @ApiErrors(400, 401, 403, 429, { 400: PLACE_TAKEN })
  create(@Body() dto: CreateTaxRateDto): Promise<TaxRateResponseDto> {
    return this.taxRates.create(dto);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a tax rate (admin)' })
  @ApiEnvelope(TaxRateResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, { ...BAD_ID, 404: NOT_FOUND })
  get(@IdParam() id: number): Promise<TaxRateResponseDto> {
    return this.taxRates.get(id);
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Update a tax rate (admin)',
    description:
      'Partial: only the fields sent change; `subdivision: null` makes it the whole country’s rate.',
  })
  @ApiEnvelope(TaxRateResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, { 400: PLACE_TAKEN, 404: NOT_FOUND })
  update(@IdParam() id: number, @Body() dto: UpdateTaxRateDto): Promise<TaxRateResponseDto> {
    return this.taxRates.update(id, dto);
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Delete a tax rate (admin)',
    description: 'Orders keep the tax lines they were placed with.',
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 429, { ...BAD_ID, 404: NOT_FOUND })
  remove(@IdParam() id: number): Promise<void> {
    return this.taxRates.remove(id);
  }
}
