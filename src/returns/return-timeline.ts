import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { OrderTimelineEntry, OrderTimelineSource } from '../orders/order-timeline.js';
import { toReturnResponse } from './dto/return.dto.js';
import { Return } from './return.entity.js';

/**
 * The returns' part of an order's timeline: requested (by the customer, or a guest with the order's token),
 * received and rejected (by staff).
 */
@Injectable()
export class ReturnTimeline implements OrderTimelineSource {
  constructor(@InjectRepository(Return) private readonly returns: Repository<Return>) {}

  async entriesOf(orderId: number): Promise<OrderTimelineEntry[]> {
    const returns = await this.returns.find({
      where: { orderId },
      relations: { items: true },
      order: { id: 'ASC', items: { id: 'ASC' } },
    });
    return returns.flatMap((ret) => {
      const shown = toReturnResponse(ret);
      const data = { return_id: ret.id, items: shown.items, refund_amount: shown.refund_amount };
      const entries: OrderTimelineEntry[] = [
        {
          at: ret.createdAt,
          type: 'return_requested',
          actor:
            ret.requestedBy === null
              ? { type: 'guest', id: null }
              : { type: 'customer', id: ret.requestedBy },
          data: { ...data, note: ret.note },
        },
      ];
      if (ret.receivedAt !== null) {
        entries.push({
          at: ret.receivedAt,
          type: 'return_received',
          actor: { type: 'staff', id: ret.receivedBy },
          data: { ...data, refund_shipping: shown.refund_shipping, refund_status: shown.refund_status },
        });
      }
      if (ret.rejectedAt !== null) {
        entries.push({
          at: ret.rejectedAt,
          type: 'return_rejected',
          actor: { type: 'staff', id: ret.rejectedBy },
          data: { ...data, reason: ret.rejectReason },
        });
      }
      return entries;
    });
  }
}
