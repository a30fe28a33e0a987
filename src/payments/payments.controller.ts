import { Body, Controller, Get, Headers, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiHeader, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AuthUser, CurrentUser, Roles } from '../auth/auth-user.js';
import { IdParam } from '../common/id-param.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { OptionalAuth, Public } from '../common/public.decorator.js';
import { checkIdempotencyKey } from '../common/idempotency-key.js';
import { fieldError, ReadsOwnBody } from '../common/validation.js';
import { CreateRefundDto, PaymentResponseDto, RefundResponseDto } from './payment.dto.js';
import { InvalidWebhookError, MalformedWebhookError } from './payment-provider.js';
import { PaymentsService } from './payments.service.js';

export class WebhookReceiptDto {
  @ApiProperty({ example: true }) received: boolean;
  @ApiProperty({ example: true, description: 'False for a redelivery or an event of no interest' })
  applied: boolean;
}

@ApiTags('payments')
@ApiBearerAuth()
@Controller()
export class PaymentsController {
  constructor(private readonly payments: PaymentsService) {}

  @Post('orders/:id/payments')
  @OptionalAuth()
  @ApiOperation({
    summary:
      "Create the order's payment, or return its live one (owner, admin, or a guest with X-Order-Token)",
    description:
      "The provider follows the order's payment_method (PAYMENT_PROVIDERS). Stripe: `client_secret` is for " +
      "Stripe.js in the buyer's browser; the payment becomes paid when Stripe's webhook says so. Manual: an admin " +
      'confirms with PATCH /orders/{id}/status. 201 when created, 200 when the live payment is returned. A guest ' +
      'order is paid with `X-Order-Token` instead of a bearer token; a wrong token is 404.',
  })
  @ApiHeader({ name: 'X-Order-Token', required: false, description: "A guest order's order_token" })
  @ApiEnvelope(PaymentResponseDto, { status: 201 })
  @ApiErrors(400, 401, 404, 429, { 404: 'Order 41 not found' })
  async create(
    @IdParam() id: number,
    @CurrentUser() actor: AuthUser | undefined,
    @Headers('x-order-token') orderToken: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<PaymentResponseDto> {
    const { payment, created } = await this.payments.create(id, { actor, orderToken });
    response.status(created ? 201 : 200);
    return payment;
  }

  @Get('orders/:id/payments')
  @OptionalAuth()
  @ApiOperation({
    summary: "The order's payments, oldest first (owner, admin, or a guest with X-Order-Token)",
  })
  @ApiHeader({ name: 'X-Order-Token', required: false, description: "A guest order's order_token" })
  @ApiEnvelope(PaymentResponseDto, { array: true })
  @ApiErrors(400, 401, 404, 429, { 404: 'Order 41 not found' })
  list(
    @IdParam() id: number,
    @CurrentUser() actor: AuthUser | undefined,
    @Headers('x-order-token') orderToken: string | undefined,
  ): Promise<PaymentResponseDto[]> {
    return this.payments.list(id, { actor, orderToken });
  }

  @Post('admin/orders/:id/refunds')
  @Roles('admin')
  @ApiOperation({
    summary: "Refund (part of) the order's payment through its provider (admin)",
    description:
      'Never more than paid minus already refunded. payment_status becomes refunded or partially_refunded. ' +
      'With `Idempotency-Key`, a repeat returns the first refund.',
  })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: '1-128 visible ASCII characters' })
  @ApiEnvelope(RefundResponseDto, { status: 201 })
  @ApiErrors(400, 401, 403, 404, 429, {
    400: { field: 'amount', rule: 'max', message: 'amount must not exceed 12.5, paid and not yet refunded' },
    404: 'Order 41 not found',
  })
  refund(
    @IdParam() id: number,
    @Body() dto: CreateRefundDto,
    @CurrentUser() actor: AuthUser,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
  ): Promise<RefundResponseDto> {
    checkIdempotencyKey(idempotencyKey);
    return this.payments.refund(id, dto, actor, idempotencyKey);
  }

  @Get('admin/orders/:id/refunds')
  @Roles('admin')
  @ApiOperation({ summary: "The order's refunds, oldest first (admin)" })
  @ApiEnvelope(RefundResponseDto, { array: true })
  @ApiErrors(400, 401, 403, 404, 429, { 404: 'Order 41 not found' })
  listRefunds(@IdParam() id: number, @CurrentUser() actor: AuthUser): Promise<RefundResponseDto[]> {
    return this.payments.listRefunds(id, actor);
  }

  @Post('payments/stripe/webhook')
  @Public()
  @ReadsOwnBody()
  @HttpCode(200)
  @ApiOperation({
    summary: "Stripe's webhook endpoint (public; verified by Stripe-Signature over the raw body)",
    description:
      'A missing, forged or older than 5 minutes signature is 400 and changes nothing. Each event is applied ' +
      'once by its id; a redelivery is 200 and does nothing.',
  })
  @ApiHeader({ name: 'Stripe-Signature', required: true })
  @ApiEnvelope(WebhookReceiptDto)
  @ApiErrors(400, 429)
  async stripeWebhook(@Req() request: Request): Promise<WebhookReceiptDto> {
    const provider = this.payments.provider('stripe');
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    let event;
    try {
      event = provider.parseWebhook(body, request.headers);
    } catch (error) {
      if (error instanceof InvalidWebhookError)
        throw fieldError('Stripe-Signature', error.rule, error.message);
      if (error instanceof MalformedWebhookError) throw fieldError('body', 'event', error.message);
      throw error;
    }
    if (event === null) return { received: true, applied: false };
    return { received: true, applied: (await this.payments.applyEvent(provider, event)) === 'applied' };
  }
}
