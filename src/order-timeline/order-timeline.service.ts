import { Inject, Injectable } from '@nestjs/common';
import type { AuthUser } from '../auth/auth-user.js';
import { OrderHistory } from '../orders/order-history.js';
import type { OrderTimelineSource } from '../orders/order-timeline.js';
import type { OrderTimelineEntryDto } from './order-timeline.dto.js';
import { ORDER_TIMELINE_SOURCES } from './timeline-sources.js';

/**
 * An order's timeline: every source's entries, oldest first. At the same instant a `status_changed` comes after
 * the other entries (it follows from what its transaction did: a payment, a fulfilment, a refund), then
 * `placed` first, then the sources' registration order, then each source's own order: the same order on every
 * read.
 */
const statusLast = (entry: { type: string }) => (entry.type === 'status_changed' ? 1 : 0);

@Injectable()
export class OrderTimeline {
  constructor(
    @Inject(ORDER_TIMELINE_SOURCES) private readonly sources: OrderTimelineSource[],
    private readonly orders: OrderHistory,
  ) {}

  async of(orderId: number, admin: AuthUser): Promise<OrderTimelineEntryDto[]> {
    await this.orders.findPayable(orderId, { actor: admin });
    const lists = await Promise.all(this.sources.map((source) => source.entriesOf(orderId)));
    return lists
      .flatMap((entries, source) => entries.map((entry, index) => ({ entry, source, index })))
      .sort(
        (a, b) =>
          a.entry.at.getTime() - b.entry.at.getTime() ||
          statusLast(a.entry) - statusLast(b.entry) ||
          a.source - b.source ||
          a.index - b.index,
      )
      .map(({ entry }) => ({
        at: entry.at.toISOString(),
        type: entry.type,
        actor: { type: entry.actor.type, id: entry.actor.id },
        data: entry.data,
      }));
  }
}
