import { fromMinor } from '../pricing/calculator.js';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNumber, IsOptional, IsString, MaxLength, Min } from 'class-validator';
import { PAYMENT_STATUSES, type PaymentStatus } from './payment-status.js';
import type { Payment, PaymentRefund } from './payment.entity.js';

export class PaymentResponseDto {
  @ApiProperty({ type: 'integer', example: 5 }) id: number;
  @ApiProperty({ type: 'integer', example: 41 }) order_id: number;
  @ApiProperty({
    enum: ['manual', 'stripe', 'gift_card'],
    example: 'stripe',
    description:
      '`gift_card`: what gift cards paid at checkout (a refund past the other payment goes back to them)',
  })
  provider: string;
  @ApiProperty({ enum: PAYMENT_STATUSES, example: 'pending' }) status: PaymentStatus;
  @ApiProperty({ example: 60.17, description: "The order's total, in CURRENCY" }) amount: number;
  @ApiProperty({ example: 'usd' }) currency: string;
  @ApiProperty({
    type: 'string',
    nullable: true,
    example: 'pi_3Q_secret_abc',
    description: 'Stripe: for Stripe.js confirmPayment in the buyer’s browser; null for manual payments',
  })
  client_secret: string | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    enum: ['amount_mismatch', 'paid_after_cancel'],
    example: 'paid_after_cancel',
    description:
      'Why the payment needs staff: `amount_mismatch` (the provider took another amount; not marked paid), ' +
      '`paid_after_cancel` (money taken for a cancelled or expired order; refunded by the service)',
  })
  flag: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class CreateRefundDto {
  @ApiPropertyOptional({ example: 10.5, description: 'Default: everything paid and not yet refunded' })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false, maxDecimalPlaces: 2 })
  @Min(0.01)
  amount?: number;

  @ApiPropertyOptional({ example: 'damaged in transit', maxLength: 500 })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string;
}

export class RefundResponseDto {
  @ApiProperty({ type: 'integer', example: 3 }) id: number;
  @ApiProperty({ type: 'integer', example: 5 }) payment_id: number;
  @ApiProperty({ example: 10.5 }) amount: number;
  @ApiProperty({ enum: ['pending', 'succeeded', 'failed'], example: 'succeeded' }) status: string;
  @ApiProperty({ type: 'string', nullable: true, example: 'damaged in transit' }) reason: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export function toPaymentResponse(payment: Payment): PaymentResponseDto {
  return {
    id: payment.id,
    order_id: payment.orderId,
    provider: payment.provider,
    status: payment.status,
    amount: fromMinor(payment.amountCents, payment.currency),
    currency: payment.currency,
    client_secret: payment.clientSecret,
    flag: payment.flag,
    created_at: payment.createdAt.toISOString(),
    updated_at: payment.updatedAt.toISOString(),
  };
}

/** A refund, its amount in the currency of its payment. */
export function toRefundResponse(refund: PaymentRefund, currency: string): RefundResponseDto {
  return {
    id: refund.id,
    payment_id: refund.paymentId,
    amount: fromMinor(refund.amountCents, currency),
    status: refund.status,
    reason: refund.reason,
    created_at: refund.createdAt.toISOString(),
  };
}
