import {
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  Patch,
  Post,
  Query,
  Res,
  UnauthorizedException,
} from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AuthUser, CurrentUser, Roles } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { IdParam } from '../common/id-param.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { checkIdempotencyKey } from '../common/idempotency-key.js';
import { OptionalAuth } from '../common/public.decorator.js';
import {
  CreateOrderDto,
  OrderDetailResponseDto,
  OrderListQueryDto,
  OrderResponseDto,
  UpdateOrderStatusDto,
} from './dto/order.dto.js';
import { OrdersService } from './orders.service.js';

@ApiTags('orders')
@ApiBearerAuth()
@Controller('orders')
export class OrdersController {
  constructor(private readonly orders: OrdersService) {}

  @Get()
  @ApiOperation({ summary: "List the caller's orders, newest first" })
  @ApiEnvelope(OrderResponseDto, { list: true })
  @ApiErrors(400, 401, 429, {
    400: {
      field: 'status',
      rule: 'isIn',
      message: 'status must be one of the following values: pending, paid, shipped, completed, cancelled',
    },
  })
  list(
    @Query() query: OrderListQueryDto,
    @CurrentUser() actor: AuthUser,
  ): Promise<Paginated<OrderResponseDto>> {
    return this.orders.list(query, actor);
  }

  @Post()
  @ApiOperation({
    summary: 'Place an order',
    description:
      'All or nothing: every product must exist, be active and have the stock. Stock is taken atomically; ' +
      'the total is the exact sum of price x quantity. With `Idempotency-Key`, a repeat of the same request ' +
      'returns the first order (header `Idempotent-Replayed: true`).',
  })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: '1-128 visible ASCII characters' })
  @ApiEnvelope(OrderResponseDto, {
    status: 201,
    description: 'The order, without items (the earlier one when replayed)',
    headers: ['Idempotent-Replayed'],
  })
  @ApiErrors(400, 401, 429, {
    400: { field: 'items.0.quantity', rule: 'min', message: 'items.0.quantity must not be less than 1' },
  })
  async create(
    @Body() dto: CreateOrderDto,
    @CurrentUser() actor: AuthUser,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<OrderResponseDto> {
    checkIdempotencyKey(idempotencyKey);
    const { order, replayed } = await this.orders.create(dto, actor, idempotencyKey);
    if (replayed) response.setHeader('Idempotent-Replayed', 'true');
    return order;
  }

  @Get(':id')
  @OptionalAuth()
  @ApiOperation({
    summary: "Read an order with its items (own orders; admins any; a guest's order with its X-Order-Token)",
    description:
      'With `X-Order-Token` (the `order_token` of a guest checkout) no bearer token is needed; a wrong token ' +
      'is 404. Without it, the bearer token is required.',
  })
  @ApiHeader({ name: 'X-Order-Token', required: false, description: "A guest order's order_token" })
  @ApiEnvelope(OrderDetailResponseDto)
  @ApiErrors(400, 401, 404, 429, {
    ...{ 400: { field: 'id', rule: 'isInt', message: 'id must be an integer number' } },
    404: 'Order 41 not found',
  })
  get(
    @IdParam() id: number,
    @CurrentUser() actor: AuthUser | undefined,
    @Headers('x-order-token') orderToken: string | undefined,
  ): Promise<OrderDetailResponseDto> {
    if (orderToken !== undefined) return this.orders.getWithToken(id, orderToken);
    if (actor === undefined) throw new UnauthorizedException('Missing bearer token');
    return this.orders.get(id, actor);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel an own pending order; its stock is restored' })
  @ApiEnvelope(OrderResponseDto)
  @ApiErrors(400, 401, 404, 429, {
    400: { field: '', rule: 'invalid', message: 'Only a pending order can be cancelled; this order is paid' },
    404: 'Order 41 not found',
  })
  cancel(@IdParam() id: number, @CurrentUser() actor: AuthUser): Promise<OrderResponseDto> {
    return this.orders.cancel(id, actor);
  }

  @Patch(':id/status')
  @Roles('admin')
  @ApiOperation({
    summary: 'Move status and/or payment_status along the allowed transitions (admin)',
    description:
      'status: pending -> paid | cancelled; paid -> shipped | cancelled; shipped -> completed. payment_status: ' +
      'pending -> paid | failed; failed -> paid; paid -> refunded. paid/shipped/completed need payment paid; ' +
      'refunded needs status cancelled or completed; a cancelled order takes no payment (payment_status only ' +
      'becomes refunded). Cancelling restores stock. A refused move is 400 naming the field and the rule.',
  })
  @ApiEnvelope(OrderResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, {
    400: {
      field: 'payment_status',
      rule: 'cancelledOrder',
      message: 'payment_status cannot become paid on a cancelled order',
    },
    404: 'Order 41 not found',
  })
  updateStatus(
    @IdParam() id: number,
    @Body() dto: UpdateOrderStatusDto,
    @CurrentUser() admin: AuthUser,
  ): Promise<OrderResponseDto> {
    return this.orders.updateStatus(id, dto, admin);
  }
}
