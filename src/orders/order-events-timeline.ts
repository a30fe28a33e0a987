import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { EventBus } from '../events/event-bus.js';
import { fromMinor } from '../pricing/calculator.js';
import type { OrderEmailSentPayload, OrderEventPayload } from './order-events.js';
import { amountDueOf } from './order-history.js';
import type { OrderTimelineEntry, OrderTimelineSource, TimelineActor } from './order-timeline.js';
import { Order } from './order.entity.js';

const SYSTEM: TimelineActor = { type: 'system', id: null };

/**
 * The orders module's part of an order's timeline: `placed` from the order itself, and from its events in the
 * outbox (read by their indexed order id, while OUTBOX_RETENTION keeps them) `status_changed` for each
 * `order.updated` and `email_sent` for each `order.email_sent`.
 */
@Injectable()
export class OrderEventsTimeline implements OrderTimelineSource {
  constructor(
    @InjectRepository(Order) private readonly orders: Repository<Order>,
    private readonly events: EventBus,
  ) {}

  async entriesOf(orderId: number): Promise<OrderTimelineEntry[]> {
    const order = await this.orders.findOneBy({ id: orderId });
    if (order === null) return [];
    const events = await this.events.eventsOfOrder(orderId, [
      'order.created',
      'order.updated',
      'order.email_sent',
    ]);
    const created = events.find((event) => event.type === 'order.created')?.data as
      OrderEventPayload | undefined;
    const money = (amount: number) => fromMinor(amount, order.currencyCode);
    const entries: OrderTimelineEntry[] = [
      {
        at: order.createdAt,
        type: 'placed',
        actor:
          created?.actor ??
          (order.userId === null ? { type: 'guest', id: null } : { type: 'customer', id: order.userId }),
        data: {
          order_number: order.orderNumber,
          total: money(order.totalCents),
          amount_due: money(amountDueOf(order)),
          currency_code: order.currencyCode,
          payment_method: order.paymentMethod,
        },
      },
    ];
    // Events stored before `previous` was recorded: the state before is the one the event before announced.
    let before: { status: string; payment_status: string } | null = null;
    for (const event of events) {
      const at = new Date(event.created_at);
      if (event.type === 'order.email_sent') {
        const sent = event.data as OrderEmailSentPayload;
        entries.push({ at, type: 'email_sent', actor: sent.actor, data: { kind: sent.kind, to: sent.to } });
        continue;
      }
      const { order: state, actor, previous } = event.data as OrderEventPayload;
      const from = previous ?? before;
      before = { status: state.status, payment_status: state.payment_status };
      if (event.type !== 'order.updated') continue;
      entries.push({
        at,
        type: 'status_changed',
        actor: actor ?? SYSTEM,
        data: {
          status: state.status,
          payment_status: state.payment_status,
          // Absent in events stored before fulfilments.
          fulfillment_status: state.fulfillment_status ?? null,
          previous_status: from?.status ?? null,
          previous_payment_status: from?.payment_status ?? null,
        },
      });
    }
    return entries;
  }
}
