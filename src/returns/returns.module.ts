import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { FulfilmentsModule } from '../fulfilments/fulfilments.module.js';
import { OrdersModule } from '../orders/orders.module.js';
import { PaymentsModule } from '../payments/payments.module.js';
import { ProductsModule } from '../products/products.module.js';
import { Return, ReturnItem } from './return.entity.js';
import { ReturnTimeline } from './return-timeline.js';
import { AdminReturnsController, OrderReturnsController } from './returns.controller.js';
import { ReturnsService } from './returns.service.js';

/** Returns of fulfilled units, their refund and restock (DESIGN.md §16); exports its part of the orders' timeline. */
@Module({
  imports: [
    TypeOrmModule.forFeature([Return, ReturnItem]),
    OrdersModule,
    FulfilmentsModule,
    PaymentsModule,
    ProductsModule,
  ],
  controllers: [OrderReturnsController, AdminReturnsController],
  providers: [ReturnsService, ReturnTimeline],
  exports: [ReturnTimeline],
})
export class ReturnsModule {}
