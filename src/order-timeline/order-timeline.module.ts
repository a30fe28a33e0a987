import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { FulfilmentsModule } from '../fulfilments/fulfilments.module.js';
import { FulfilmentTimeline } from '../fulfilments/fulfilment-timeline.js';
import { OrderEventsTimeline } from '../orders/order-events-timeline.js';
import type { OrderTimelineSource } from '../orders/order-timeline.js';
import { OrdersModule } from '../orders/orders.module.js';
import { PaymentsModule } from '../payments/payments.module.js';
import { PaymentsTimeline } from '../payments/payments-timeline.js';
import { ReturnsModule } from '../returns/returns.module.js';
import { ReturnTimeline } from '../returns/return-timeline.js';
import { OrderNote } from './order-note.entity.js';
import { OrderNotes } from './order-notes.js';
import { OrderTimelineController } from './order-timeline.controller.js';
import { OrderTimeline } from './order-timeline.service.js';
import { ORDER_TIMELINE_SOURCES } from './timeline-sources.js';

/**
 * Staff notes on orders and the admin order timeline. Each module that records something about orders exports
 * an OrderTimelineSource; they are listed under ORDER_TIMELINE_SOURCES here (docs/extending.md#order-timeline).
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([OrderNote]),
    OrdersModule,
    PaymentsModule,
    FulfilmentsModule,
    ReturnsModule,
  ],
  controllers: [OrderTimelineController],
  providers: [
    OrderNotes,
    OrderTimeline,
    {
      provide: ORDER_TIMELINE_SOURCES,
      // At the same instant: a payment before the status change it causes, a refund before its own.
      inject: [PaymentsTimeline, OrderEventsTimeline, FulfilmentTimeline, ReturnTimeline, OrderNotes],
      useFactory: (...sources: OrderTimelineSource[]): OrderTimelineSource[] => sources,
    },
  ],
})
export class OrderTimelineModule {}
