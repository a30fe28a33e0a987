import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Roles } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { IdParam } from '../common/id-param.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { PageQueryDto } from '../common/pagination.js';
import { CreatePromotionDto, PromotionResponseDto, UpdatePromotionDto } from './dto/promotion.dto.js';
import { PromotionsService } from './promotions.service.js';

const NOT_FOUND = 'Promotion 5 not found';
const BAD_ID = { 400: { field: 'id', rule: 'isInt', message: 'id must be an integer number' } };
const INVALID = {
  field: 'currency_code',
  rule: 'required',
  message: 'currency_code is required for a fixed promotion',
};

@ApiTags('promotions')
@ApiBearerAuth()
@Controller('promotions')
@Roles('admin')
export class PromotionsController {
  constructor(private readonly promotions: PromotionsService) {}

  @Get()
  @ApiOperation({ summary: 'List promotions (admin)', description: 'Newest first.' })
  @ApiEnvelope(PromotionResponseDto, { list: true })
  @ApiErrors(400, 401, 403, 429, {
    400: { field: 'page', rule: 'min', message: 'page must not be less than 1' },
  })
  list(@Query() query: PageQueryDto): Promise<Paginated<PromotionResponseDto>> {
    return this.promotions.list(query);
  }

  @Post()
  @ApiOperation({
    summary: 'Create a promotion (admin)',
    description:
      'A discount code (`code`, unique ignoring case: 400 `code`/`unique`) or, without one, an automatic ' +
      'promotion. percentage and fixed need `value` (fixed also `currency_code`), buy_x_get_y its ' +
      '`buy_x_get_y`; the stacking rules are in docs/api.md#promotions.',
  })
  @ApiEnvelope(PromotionResponseDto, { status: 201 })
  @ApiErrors(400, 401, 403, 429, { 400: INVALID })
  create(@Body() dto: CreatePromotionDto): Promise<PromotionResponseDto> {
    return this.promotions.create(dto);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a promotion (admin)' })
  @ApiEnvelope(PromotionResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, { ...BAD_ID, 404: NOT_FOUND })
  get(@IdParam() id: number): Promise<PromotionResponseDto> {
    return this.promotions.get(id);
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Update a promotion (admin)',
    description:
      'Partial: only the fields sent change (`conditions` field by field); null sets a nullable field back. ' +
      '`used_count` is not writable.',
  })
  @ApiEnvelope(PromotionResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, { 400: INVALID, 404: NOT_FOUND })
  update(@IdParam() id: number, @Body() dto: UpdatePromotionDto): Promise<PromotionResponseDto> {
    return this.promotions.update(id, dto);
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Delete a promotion (admin)',
    description: 'Carts lose the code; orders keep their discounts as they were placed.',
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 429, { ...BAD_ID, 404: NOT_FOUND })
  remove(@IdParam() id: number): Promise<void> {
    return this.promotions.remove(id);
  }
}
