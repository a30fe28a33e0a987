import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type AuthUser, CurrentUser, Roles } from '../auth/auth-user.js';
import { IdParam } from '../common/id-param.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { OrderFulfilmentDto } from '../orders/dto/order.dto.js';
import { CreateFulfilmentDto } from './dto/fulfilment.dto.js';
import { FulfilmentsService } from './fulfilments.service.js';

const NOT_FOUND = 'Fulfilment 5 not found';

@ApiTags('admin')
@ApiBearerAuth()
@Roles('admin')
@Controller('admin')
export class FulfilmentsController {
  constructor(private readonly fulfilments: FulfilmentsService) {}

  @Post('orders/:id/fulfilments')
  @ApiOperation({
    summary: "Ship some of a paid order's units, with carrier and tracking (admin)",
    description:
      'Only for payment_status paid. Each item at most once, at most its unfulfilled units (exact under ' +
      'concurrency). The order becomes `shipped` when every unit is fulfilled; `order.fulfilled` is published and, ' +
      'unless `notify_customer` is false, the customer is sent the shipment e-mail with the tracking link.',
  })
  @ApiEnvelope(OrderFulfilmentDto, { status: 201 })
  @ApiErrors(400, 401, 403, 404, 429, {
    400: {
      field: 'items.0.quantity',
      rule: 'max',
      message: "items.0.quantity must not exceed the item's 1 unfulfilled unit(s)",
    },
    404: 'Order 41 not found',
  })
  create(
    @IdParam() orderId: number,
    @Body() dto: CreateFulfilmentDto,
    @CurrentUser() staff: AuthUser,
  ): Promise<OrderFulfilmentDto> {
    return this.fulfilments.create(orderId, dto, staff);
  }

  @Post('fulfilments/:id/deliver')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Mark a fulfilment delivered (admin)',
    description:
      'Idempotent: a delivered fulfilment is answered as it is. When every unit is fulfilled and every live ' +
      'fulfilment delivered, the order becomes `completed`. Publishes `order.delivered`.',
  })
  @ApiEnvelope(OrderFulfilmentDto)
  @ApiErrors(400, 401, 403, 404, 429, {
    400: {
      field: 'fulfilment',
      rule: 'notCancelled',
      message: 'Fulfilment 5 was cancelled: it cannot be delivered',
    },
    404: NOT_FOUND,
  })
  deliver(@IdParam() id: number, @CurrentUser() staff: AuthUser): Promise<OrderFulfilmentDto> {
    return this.fulfilments.deliver(id, staff);
  }

  @Post('fulfilments/:id/cancel')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Cancel a fulfilment before delivery (admin)',
    description:
      'Its units count as unfulfilled again; fulfillment_status is recomputed and a `shipped` order goes back to ' +
      '`paid`. Refused once delivered, when already cancelled, or while its units are in a return.',
  })
  @ApiEnvelope(OrderFulfilmentDto)
  @ApiErrors(400, 401, 403, 404, 429, {
    400: {
      field: 'fulfilment',
      rule: 'notDelivered',
      message: 'Fulfilment 5 was delivered: it cannot be cancelled',
    },
    404: NOT_FOUND,
  })
  cancel(@IdParam() id: number, @CurrentUser() staff: AuthUser): Promise<OrderFulfilmentDto> {
    return this.fulfilments.cancel(id, staff);
  }
}
