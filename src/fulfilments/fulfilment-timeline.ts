import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { OrderTimelineEntry, OrderTimelineSource } from '../orders/order-timeline.js';
import { toFulfilmentResponse } from './dto/fulfilment.dto.js';
import { Fulfilment } from './fulfilment.entity.js';

/** The fulfilments' part of an order's timeline: created, delivered and cancelled, each by its staff account. */
@Injectable()
export class FulfilmentTimeline implements OrderTimelineSource {
  constructor(@InjectRepository(Fulfilment) private readonly fulfilments: Repository<Fulfilment>) {}

  async entriesOf(orderId: number): Promise<OrderTimelineEntry[]> {
    const fulfilments = await this.fulfilments.find({
      where: { orderId },
      relations: { items: true },
      order: { id: 'ASC', items: { id: 'ASC' } },
    });
    return fulfilments.flatMap((fulfilment) => {
      const { id, items, carrier, tracking_number, tracking_url } = toFulfilmentResponse(fulfilment);
      const data = { fulfilment_id: id, items, carrier, tracking_number, tracking_url };
      const staff = (userId: number | null) => ({ type: 'staff' as const, id: userId });
      const entries: OrderTimelineEntry[] = [
        { at: fulfilment.shippedAt, type: 'fulfilment_created', actor: staff(fulfilment.createdBy), data },
      ];
      if (fulfilment.deliveredAt !== null) {
        entries.push({
          at: fulfilment.deliveredAt,
          type: 'fulfilment_delivered',
          actor: staff(fulfilment.deliveredBy),
          data,
        });
      }
      if (fulfilment.cancelledAt !== null) {
        entries.push({
          at: fulfilment.cancelledAt,
          type: 'fulfilment_cancelled',
          actor: staff(fulfilment.cancelledBy),
          data,
        });
      }
      return entries;
    });
  }
}
