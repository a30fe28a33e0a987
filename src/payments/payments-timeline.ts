import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { OrderHistory } from '../orders/order-history.js';
import type { OrderTimelineEntry, OrderTimelineSource, TimelineActor } from '../orders/order-timeline.js';
import { fromMinor } from '../pricing/calculator.js';
import { Payment, PaymentRefund } from './payment.entity.js';
import { AUTOMATIC_REFUND_REASON } from './payments.service.js';

/**
 * The payments module's part of an order's timeline, from its own tables (kept for good): a `payment` entry per
 * payment (when it was recorded by hand, else created) and a `refund` entry per refund (when it was asked for).
 */
@Injectable()
export class PaymentsTimeline implements OrderTimelineSource {
  constructor(
    @InjectRepository(Payment) private readonly payments: Repository<Payment>,
    @InjectRepository(PaymentRefund) private readonly refunds: Repository<PaymentRefund>,
    private readonly orders: OrderHistory,
  ) {}

  async entriesOf(orderId: number): Promise<OrderTimelineEntry[]> {
    const payments = await this.payments.find({ where: { orderId }, order: { id: 'ASC' } });
    if (payments.length === 0) return [];
    const refunds = await this.refunds.find({
      where: { paymentId: In(payments.map((payment) => payment.id)) },
      order: { id: 'ASC' },
    });
    // Gift cards are taken, and a manual payment waiting for the money is created, by whoever placed the order.
    const ownerId = await this.orders.ownerOf(orderId);
    const placer: TimelineActor =
      ownerId === null ? { type: 'guest', id: null } : { type: 'customer', id: ownerId };
    const byId = new Map(payments.map((payment) => [payment.id, payment]));
    return [
      ...payments.map((payment) => ({
        at: payment.recordedAt ?? payment.createdAt,
        type: 'payment',
        actor: payerOf(payment, placer),
        data: {
          payment_id: payment.id,
          provider: payment.provider,
          status: payment.status,
          amount: fromMinor(payment.amountCents, payment.currency),
          refunded: fromMinor(payment.refundedCents, payment.currency),
          currency: payment.currency,
        },
      })),
      ...refunds.map((refund) => {
        const { currency } = byId.get(refund.paymentId)!;
        return {
          at: refund.createdAt,
          type: 'refund',
          actor: requesterOf(refund),
          data: {
            refund_id: refund.id,
            payment_id: refund.paymentId,
            amount: fromMinor(refund.amountCents, currency),
            currency,
            status: refund.status,
            reason: refund.reason,
          },
        };
      }),
    ];
  }
}

function payerOf(payment: Payment, placer: TimelineActor): TimelineActor {
  if (payment.provider === 'stripe') return { type: 'payment_provider', id: null };
  if (payment.provider === 'gift_card') return placer;
  // A manual payment that took money was recorded by staff (no id: recorded before recorders were kept).
  const recorded =
    payment.recordedBy !== null || ['paid', 'partially_refunded', 'refunded'].includes(payment.status);
  return recorded ? { type: 'staff', id: payment.recordedBy } : placer;
}

function requesterOf(refund: PaymentRefund): TimelineActor {
  if (refund.requestedBy !== null) return { type: 'staff', id: refund.requestedBy };
  // The service's own refund, or one staff asked for before requesters were kept.
  return refund.reason === AUTOMATIC_REFUND_REASON
    ? { type: 'system', id: null }
    : { type: 'staff', id: null };
}
