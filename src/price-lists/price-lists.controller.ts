import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Roles } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { IdParam } from '../common/id-param.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { PageQueryDto } from '../common/pagination.js';
import { CreatePriceListDto, PriceListResponseDto, UpdatePriceListDto } from './dto/price-list.dto.js';
import { PriceListsService } from './price-lists.service.js';

const NOT_FOUND = 'Price list 4 not found';
const BAD_ID = { field: 'id', rule: 'isInt', message: 'id must be an integer number' };
const BAD_AMOUNT = {
  field: 'prices.0.amount',
  rule: 'isAmountIn',
  message: 'prices.0.amount must be a non-negative amount with no more decimals than its currency has',
};
const RULES =
  'Every price is of a product (`product_id`; its variants too, unless the list prices a variant itself) or ' +
  'of a variant (`variant_id`), in a currency, at most once each (400 naming `prices.N.product_id`, ' +
  '`prices.N.variant_id`, `prices.N.currency_code` or `prices.N.amount`). Products, variants and groups must ' +
  'exist (rule `exists`); `ends_at` must be after `starts_at` (rule `afterStartsAt`).';

@ApiTags('price-lists')
@ApiBearerAuth()
@Roles('admin')
@Controller('price-lists')
export class PriceListsController {
  constructor(private readonly lists: PriceListsService) {}

  @Get()
  @ApiOperation({
    summary: 'List price lists (admin)',
    description: 'Id order, each with its groups and prices.',
  })
  @ApiEnvelope(PriceListResponseDto, { list: true })
  @ApiErrors(400, 401, 403, 429, {
    400: { field: 'page_size', rule: 'min', message: 'page_size must not be less than 1' },
  })
  list(@Query() query: PageQueryDto): Promise<Paginated<PriceListResponseDto>> {
    return this.lists.list(query);
  }

  @Post()
  @ApiOperation({
    summary: 'Create a price list (admin)',
    description:
      'An active list applies from `starts_at` up to (not at) `ends_at` to everyone, or, with ' +
      '`customer_group_ids`, to the members of those groups. ' +
      RULES,
  })
  @ApiEnvelope(PriceListResponseDto, { status: 201 })
  @ApiErrors(400, 401, 403, 429, { 400: BAD_AMOUNT })
  create(@Body() dto: CreatePriceListDto): Promise<PriceListResponseDto> {
    return this.lists.create(dto);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a price list (admin)' })
  @ApiEnvelope(PriceListResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, { 400: BAD_ID, 404: NOT_FOUND })
  get(@IdParam() id: number): Promise<PriceListResponseDto> {
    return this.lists.get(id);
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Update a price list (admin)',
    description:
      'Partial: only the fields sent change; `description`, `starts_at` and `ends_at` may be set back to null; ' +
      '`customer_group_ids` and `prices` sent replace theirs. Carts show the change at their next read; ' +
      'orders keep the prices they were placed with. ' +
      RULES,
  })
  @ApiEnvelope(PriceListResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, { 400: BAD_AMOUNT, 404: NOT_FOUND })
  update(@IdParam() id: number, @Body() dto: UpdatePriceListDto): Promise<PriceListResponseDto> {
    return this.lists.update(id, dto);
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Delete a price list (admin)',
    description: 'Its prices go with it; orders keep the prices they were placed with.',
  })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 429, { 400: BAD_ID, 404: NOT_FOUND })
  remove(@IdParam() id: number): Promise<void> {
    return this.lists.remove(id);
  }
}
