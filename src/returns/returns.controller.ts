import { Body, Controller, Get, Headers, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AuthUser, CurrentUser, Roles } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { IdParam } from '../common/id-param.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { OptionalAuth } from '../common/public.decorator.js';
import {
  CreateReturnDto,
  ReceiveReturnDto,
  RejectReturnDto,
  ReturnListQueryDto,
  ReturnResponseDto,
} from './dto/return.dto.js';
import { ReturnsService } from './returns.service.js';

const NOT_FOUND = 'Return 3 not found';
const ORDER_TOKEN = { name: 'X-Order-Token', required: false, description: "A guest order's order_token" };

@ApiTags('orders')
@ApiBearerAuth()
@Controller('orders')
export class OrderReturnsController {
  constructor(private readonly returns: ReturnsService) {}

  @Post(':id/returns')
  @OptionalAuth()
  @ApiOperation({
    summary: 'Request the return of fulfilled units (owner, or a guest with X-Order-Token)',
    description:
      "Within RETURN_WINDOW_DAYS of the item's last shipment; only fulfilled units not already in a requested " +
      "or received return. `refund_amount` is the units' shares of their lines' totals (after discounts, with " +
      "tax), the units of a line taken in order. Someone else's order is 404.",
  })
  @ApiHeader(ORDER_TOKEN)
  @ApiEnvelope(ReturnResponseDto, { status: 201 })
  @ApiErrors(400, 401, 404, 429, {
    400: {
      field: 'items.0.order_item_id',
      rule: 'returnWindow',
      message: 'items.0.order_item_id 90 shipped more than 30 days ago (RETURN_WINDOW_DAYS)',
    },
    404: 'Order 41 not found',
  })
  request(
    @IdParam() id: number,
    @Body() dto: CreateReturnDto,
    @CurrentUser() actor: AuthUser | undefined,
    @Headers('x-order-token') orderToken: string | undefined,
  ): Promise<ReturnResponseDto> {
    return this.returns.request(id, dto, { actor, orderToken });
  }

  @Get(':id/returns')
  @OptionalAuth()
  @ApiOperation({
    summary: "The order's returns, oldest first (owner, admin, or a guest with X-Order-Token)",
  })
  @ApiHeader(ORDER_TOKEN)
  @ApiEnvelope(ReturnResponseDto, { array: true })
  @ApiErrors(400, 401, 404, 429, { 404: 'Order 41 not found' })
  list(
    @IdParam() id: number,
    @CurrentUser() actor: AuthUser | undefined,
    @Headers('x-order-token') orderToken: string | undefined,
  ): Promise<ReturnResponseDto[]> {
    return this.returns.listOf(id, { actor, orderToken });
  }
}

@ApiTags('admin')
@ApiBearerAuth()
@Roles('admin')
@Controller('admin/returns')
export class AdminReturnsController {
  constructor(private readonly returns: ReturnsService) {}

  @Get()
  @ApiOperation({ summary: 'List returns, newest first, by status and order (admin)' })
  @ApiEnvelope(ReturnResponseDto, { list: true })
  @ApiErrors(400, 401, 403, 429, {
    400: {
      field: 'status',
      rule: 'isIn',
      message: 'status must be one of the following values: requested, received, rejected',
    },
  })
  list(@Query() query: ReturnListQueryDto): Promise<Paginated<ReturnResponseDto>> {
    return this.returns.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a return (admin)' })
  @ApiEnvelope(ReturnResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, { 404: NOT_FOUND })
  get(@IdParam() id: number): Promise<ReturnResponseDto> {
    return this.returns.get(id);
  }

  @Post(':id/receive')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Receive a requested return: restock, then refund (admin)',
    description:
      'The listed units arrived (at most those requested; an unlisted item none): their shares are refunded ' +
      "through the order's payment provider, then its gift cards, plus the order's shipping when " +
      '`refund_shipping` (once per order). Units marked `restock` go back in stock. Units that did not arrive ' +
      'are freed. Only once: a second receive is 400 and changes nothing. The refund runs after the return is ' +
      'recorded; `refund_status` failed (the provider refused) is retried with POST /admin/returns/{id}/refund.',
  })
  @ApiEnvelope(ReturnResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, {
    400: {
      field: 'status',
      rule: 'requested',
      message: 'Return 3 is received: only a requested return can be received',
    },
    404: NOT_FOUND,
  })
  receive(
    @IdParam() id: number,
    @Body() dto: ReceiveReturnDto,
    @CurrentUser() staff: AuthUser,
  ): Promise<ReturnResponseDto> {
    return this.returns.receive(id, dto, staff);
  }

  @Post(':id/refund')
  @HttpCode(200)
  @ApiOperation({
    summary: "Retry a received return's refund (admin)",
    description:
      'After `refund_status` failed: a new attempt (a new idempotency key). While pending: the same request ' +
      'again (the same key: nothing is refunded twice).',
  })
  @ApiEnvelope(ReturnResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, {
    400: {
      field: 'refund_status',
      rule: 'open',
      message: 'Return 3 has no refund to retry (status received, refund_status succeeded)',
    },
    404: NOT_FOUND,
  })
  refund(@IdParam() id: number, @CurrentUser() staff: AuthUser): Promise<ReturnResponseDto> {
    return this.returns.retryRefund(id, staff);
  }

  @Post(':id/reject')
  @HttpCode(200)
  @ApiOperation({ summary: 'Reject a requested return; its units may be returned again (admin)' })
  @ApiEnvelope(ReturnResponseDto)
  @ApiErrors(400, 401, 403, 404, 429, {
    400: { field: 'reason', rule: 'codePointLength', message: 'reason must be 1 to 500 characters long' },
    404: NOT_FOUND,
  })
  reject(
    @IdParam() id: number,
    @Body() dto: RejectReturnDto,
    @CurrentUser() staff: AuthUser,
  ): Promise<ReturnResponseDto> {
    return this.returns.reject(id, dto, staff);
  }
}
