import { Body, Controller, Delete, Get, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AuthUser, CurrentUser, Roles } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { PageQueryDto } from '../common/pagination.js';
import { OrderDetailResponseDto } from '../orders/dto/order.dto.js';
import { CartsService } from './carts.service.js';
import {
  CompleteDraftDto,
  CreateDraftCartDto,
  DraftCartResponseDto,
  DraftCartSummaryDto,
} from './dto/cart.dto.js';

const CART_ID = { name: 'id', schema: { type: 'string', format: 'uuid' } } as const;
const NOT_FOUND = 'Draft cart 3f1c8a2e-6d1b-4f7a-9a53-0d2e1b7c4a10 not found';

/**
 * Draft orders: carts staff build for a customer (an order taken over the phone). Between creation and
 * completion the draft is changed through the cart routes (`/carts/{id}/…`) with an admin's bearer token.
 */
@ApiTags('admin')
@ApiBearerAuth()
@Roles('admin')
@Controller('admin/carts')
export class AdminCartsController {
  constructor(private readonly carts: CartsService) {}

  @Post()
  @ApiOperation({
    summary: 'Start a draft order for a customer (admin)',
    description:
      'Exactly one of `user_id` (a registered, active customer) and `email` (a guest order); `region_id` as for ' +
      'POST /carts. Lines, address, shipping option, discount codes and gift cards are then set with the cart ' +
      'routes (an admin may act on any draft; the customer cannot see or change it).',
  })
  @ApiEnvelope(DraftCartResponseDto, { status: 201 })
  @ApiErrors(400, 401, 403, 429, {
    400: { field: 'user_id', rule: 'exists', message: 'user 7 does not exist or is not active' },
  })
  create(@Body() dto: CreateDraftCartDto, @CurrentUser() staff: AuthUser): Promise<DraftCartResponseDto> {
    return this.carts.createDraft(dto, staff);
  }

  @Get()
  @ApiOperation({ summary: 'List the open draft orders, most recently changed first (admin)' })
  @ApiEnvelope(DraftCartSummaryDto, { list: true })
  @ApiErrors(400, 401, 403, 429)
  list(@Query() query: PageQueryDto): Promise<Paginated<DraftCartSummaryDto>> {
    return this.carts.listDrafts(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a draft order: the cart with its customer (admin)' })
  @ApiParam(CART_ID)
  @ApiEnvelope(DraftCartResponseDto)
  @ApiErrors(401, 403, 404, 429, { 404: NOT_FOUND })
  get(@Param('id') id: string, @CurrentUser() staff: AuthUser): Promise<DraftCartResponseDto> {
    return this.carts.getDraft(id, staff);
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Delete an open draft order with its lines, codes and gift cards (admin)',
    description: 'A draft already placed is refused (400 `id`/`open`): its order stays.',
  })
  @ApiParam(CART_ID)
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 429, { 404: NOT_FOUND })
  remove(@Param('id') id: string, @CurrentUser() staff: AuthUser): Promise<void> {
    return this.carts.deleteDraft(id, staff);
  }

  @Post(':id/complete')
  @ApiOperation({
    summary: 'Place the draft’s order for its customer and send it for payment (admin)',
    description:
      'Through the checkout’s placing (stock, prices, promotion usage and gift cards as POST /carts/{id}/checkout; ' +
      'the same 400s). The order is pending, `placed_by` the caller, and the customer is e-mailed a payment link ' +
      '(MAIL_LINK_BASE_URL + `/orders/{id}?token=…`, the order token, which is only in the e-mail). With ' +
      '`mark_paid: true` no link is sent: the order is marked paid by hand in the same transaction, as ' +
      'PATCH /orders/{id}/status does. A completed draft answers its order again (`Idempotent-Replayed: true`) ' +
      'and sends nothing.',
  })
  @ApiParam(CART_ID)
  @ApiEnvelope(OrderDetailResponseDto, { status: 201, headers: ['Idempotent-Replayed'] })
  @ApiErrors(400, 401, 403, 404, 429, {
    400: { field: 'items.90', rule: 'stock', message: 'product 12: only 1 in stock, the line asks for 2' },
    404: NOT_FOUND,
  })
  async complete(
    @Param('id') id: string,
    @Body() dto: CompleteDraftDto,
    @CurrentUser() staff: AuthUser,
    @Res({ passthrough: true }) response: Response,
  ): Promise<OrderDetailResponseDto> {
    const { order, replayed } = await this.carts.completeDraft(id, dto, staff);
    if (replayed) response.setHeader('Idempotent-Replayed', 'true');
    return order;
  }
}
