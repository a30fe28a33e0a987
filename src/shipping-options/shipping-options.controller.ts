import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthUser, CurrentUser, Roles } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { IdParam } from '../common/id-param.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { CatalogRead } from '../common/public.decorator.js';
import {
  CreateShippingOptionDto,
  ShippingOptionQueryDto,
  ShippingOptionResponseDto,
  UpdateShippingOptionDto,
} from './dto/shipping-option.dto.js';
import { ShippingOptionsService } from './shipping-options.service.js';
import { ReadFromReplica } from '../database/replica-reads.js';

const NOT_FOUND = 'Shipping option 3 not found';
const BAD_ID = { 400: { field: 'id', rule: 'isInt', message: 'id must be an integer number' } };

@ApiTags('shipping-options')
@ApiBearerAuth()
@Controller('shipping-options')
export class ShippingOptionsController {
  constructor(private readonly shippingOptions: ShippingOptionsService) {}

  @Get()
  @CatalogRead()
  @ReadFromReplica()
  @ApiOperation({
    summary: 'List shipping options',
    description:
      'Users see active options only; admins see all and may filter by `is_active`. `country` keeps the ' +
      'options that ship there (an option without countries ships everywhere). Order: id ascending. With ' +
      'CATALOG_PUBLIC=true, callers without a token may read it and see what a user sees.',
  })
  @ApiEnvelope(ShippingOptionResponseDto, { list: true })
  @ApiErrors(400, 401, 403, 429, {
    400: {
      field: 'country',
      rule: 'isCountryCode',
      message: 'country must be an ISO 3166-1 alpha-2 country code in upper case',
    },
    403: 'Only an admin may filter by is_active',
  })
  list(
    @Query() query: ShippingOptionQueryDto,
    @CurrentUser() actor: AuthUser | undefined,
  ): Promise<Paginated<ShippingOptionResponseDto>> {
    return this.shippingOptions.list(query, actor);
  }

  @Post()
  @Roles('admin')
  @ApiOperation({ summary: 'Create a shipping option (admin)' })
  @ApiEnvelope(ShippingOptionResponseDto, { status: 201 })
  @ApiErrors(400, 401, 403, 429, {
    400: { field: 'price', rule: 'min', message: 'price must not be less than 0' },
  })
  create(@Body() dto: CreateShippingOptionDto): Promise<ShippingOptionResponseDto> {
    return this.shippingOptions.create(dto);
  }

  @Get(':id')
  @CatalogRead()
  @ReadFromReplica()
  @ApiOperation({
    summary: 'Read a shipping option (an inactive one is 404 for users)',
    description: 'With CATALOG_PUBLIC=true, callers without a token may read it as a user would.',
  })
  @ApiEnvelope(ShippingOptionResponseDto)
  @ApiErrors(400, 401, 404, 429, { ...BAD_ID, 404: NOT_FOUND })
  get(@IdParam() id: number, @CurrentUser() actor: AuthUser | undefined): Promise<ShippingOptionResponseDto> {
    return this.shippingOptions.get(id, actor);
  }

  @Put(':id')
  @Roles('admin')
  @ApiOperation({
    summary: 'Update a shipping option (admin)',
    description: 'Partial: only the fields sent change; `countries` sent replaces the list.',
  })
  @ApiEnvelope(ShippingOptionResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, {
    400: {
      field: 'countries',
      rule: 'isCountryCode',
      message: 'countries must be an ISO 3166-1 alpha-2 country code in upper case in each element',
    },
    404: NOT_FOUND,
  })
  update(@IdParam() id: number, @Body() dto: UpdateShippingOptionDto): Promise<ShippingOptionResponseDto> {
    return this.shippingOptions.update(id, dto);
  }

  @Delete(':id')
  @Roles('admin')
  @ApiOperation({
    summary: 'Delete a shipping option (admin)',
    description:
      'Soft deletion: the option is gone from every read; orders placed with it keep their totals.',
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 429, { ...BAD_ID, 404: NOT_FOUND })
  remove(@IdParam() id: number): Promise<void> {
    return this.shippingOptions.remove(id);
  }
}
