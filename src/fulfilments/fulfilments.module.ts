import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OrdersModule } from '../orders/orders.module.js';
import { Fulfilment, FulfilmentItem } from './fulfilment.entity.js';
import { FulfilmentTimeline } from './fulfilment-timeline.js';
import { FulfilmentsController } from './fulfilments.controller.js';
import { FulfilmentsService } from './fulfilments.service.js';
import { ShippedUnits } from './shipped-units.js';

/** Fulfilments of paid orders (DESIGN.md §16); exports its part of the orders' timeline. */
@Module({
  imports: [TypeOrmModule.forFeature([Fulfilment, FulfilmentItem]), OrdersModule],
  controllers: [FulfilmentsController],
  providers: [
    FulfilmentsService,
    FulfilmentTimeline,
    { provide: ShippedUnits, useExisting: FulfilmentsService },
  ],
  exports: [FulfilmentTimeline, ShippedUnits],
})
export class FulfilmentsModule {}
