import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { sendAsWebSocketFrames } from '../events/websocket-frames.js';
import { GiftCardsModule } from '../gift-cards/gift-cards.module.js';
import { PricingModule } from '../pricing/pricing.module.js';
import { PriceListPricesModule } from '../price-lists/price-list-prices.module.js';
import { ProductsModule } from '../products/products.module.js';
import { RegionsModule } from '../regions/regions.module.js';
import { AdminOrdersController } from './admin-orders.controller.js';
import { orderFrames } from './order-events.js';
import { OrderEventsTimeline } from './order-events-timeline.js';
import { OrderExpiry } from './order-expiry.js';
import { OrderHistory } from './order-history.js';
import { OrderItem } from './order-item.entity.js';
import { Order } from './order.entity.js';
import { OrdersController } from './orders.controller.js';
import { OrdersService } from './orders.service.js';
import { PaymentMethodsController } from './payment-methods.controller.js';

@Module({
  imports: [
    TypeOrmModule.forFeature([Order, OrderItem]),
    ProductsModule,
    RegionsModule,
    PricingModule,
    PriceListPricesModule,
    GiftCardsModule,
  ],
  controllers: [OrdersController, AdminOrdersController, PaymentMethodsController],
  providers: [
    OrdersService,
    { provide: OrderHistory, useExisting: OrdersService },
    OrderExpiry,
    OrderEventsTimeline,
  ],
  exports: [OrderHistory, OrderEventsTimeline],
})
export class OrdersModule {
  constructor() {
    sendAsWebSocketFrames('order.created', orderFrames);
    sendAsWebSocketFrames('order.updated', orderFrames);
  }
}
