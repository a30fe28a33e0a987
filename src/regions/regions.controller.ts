import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Roles } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { IdParam } from '../common/id-param.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { PageQueryDto } from '../common/pagination.js';
import { CatalogRead } from '../common/public.decorator.js';
import { CreateRegionDto, RegionResponseDto, UpdateRegionDto } from './dto/region.dto.js';
import { RegionsService } from './regions.service.js';
import { ReadFromReplica } from '../database/replica-reads.js';

const NOT_FOUND = 'Region 2 not found';
const BAD_ID = { 400: { field: 'id', rule: 'isInt', message: 'id must be an integer number' } };
const COUNTRY_TAKEN = {
  field: 'countries',
  rule: 'unique',
  message: 'countries must not list a country of another region: DE is in region 2 (Europe)',
};

@ApiTags('regions')
@ApiBearerAuth()
@Controller('regions')
export class RegionsController {
  constructor(private readonly regions: RegionsService) {}

  @Get()
  @CatalogRead()
  @ReadFromReplica()
  @ApiOperation({
    summary: 'List regions',
    description:
      'Every region, the default one included; id order. With CATALOG_PUBLIC=true, callers without a token ' +
      'may read it.',
  })
  @ApiEnvelope(RegionResponseDto, { list: true })
  @ApiErrors(400, 401, 429, {
    400: { field: 'page_size', rule: 'min', message: 'page_size must not be less than 1' },
  })
  list(@Query() query: PageQueryDto): Promise<Paginated<RegionResponseDto>> {
    return this.regions.list(query);
  }

  @Post()
  @Roles('admin')
  @ApiOperation({
    summary: 'Create a region (admin)',
    description: 'A country listed by another region is refused (400 naming `countries`, rule `unique`).',
  })
  @ApiEnvelope(RegionResponseDto, { status: 201 })
  @ApiErrors(400, 401, 403, 429, { 400: COUNTRY_TAKEN })
  create(@Body() dto: CreateRegionDto): Promise<RegionResponseDto> {
    return this.regions.create(dto);
  }

  @Get(':id')
  @CatalogRead()
  @ReadFromReplica()
  @ApiOperation({
    summary: 'Read a region',
    description: 'With CATALOG_PUBLIC=true, callers without a token may read it.',
  })
  @ApiEnvelope(RegionResponseDto)
  @ApiErrors(400, 401, 404, 429, { ...BAD_ID, 404: NOT_FOUND })
  get(@IdParam() id: number): Promise<RegionResponseDto> {
    return this.regions.get(id);
  }

  @Put(':id')
  @Roles('admin')
  @ApiOperation({
    summary: 'Update a region (admin)',
    description:
      'Partial: only the fields sent change; `countries` sent replaces the list. The default region keeps ' +
      'its currency (400 naming `currency_code`); `is_default` is read-only.',
  })
  @ApiEnvelope(RegionResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, { 400: COUNTRY_TAKEN, 404: NOT_FOUND })
  update(@IdParam() id: number, @Body() dto: UpdateRegionDto): Promise<RegionResponseDto> {
    return this.regions.update(id, dto);
  }

  @Delete(':id')
  @Roles('admin')
  @ApiOperation({
    summary: 'Delete a region (admin)',
    description:
      'The default region cannot be deleted (400). Carts in the region move to the default region; orders ' +
      'keep the currency and amounts they were placed with.',
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 429, {
    400: {
      field: 'id',
      rule: 'defaultRegion',
      message: 'Region 1 is the default region and cannot be deleted',
    },
    404: NOT_FOUND,
  })
  remove(@IdParam() id: number): Promise<void> {
    return this.regions.remove(id);
  }
}
