import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AddressesModule } from '../addresses/addresses.module.js';
import { GiftCardsModule } from '../gift-cards/gift-cards.module.js';
import { OrdersModule } from '../orders/orders.module.js';
import { ShippingOptionsModule } from '../shipping-options/shipping-options.module.js';
import { PricingModule } from '../pricing/pricing.module.js';
import { PriceListPricesModule } from '../price-lists/price-list-prices.module.js';
import { PromotionsModule } from '../promotions/promotions.module.js';
import { RegionsModule } from '../regions/regions.module.js';
import { UsersModule } from '../users/users.module.js';
import { AdminCartsController } from './admin-carts.controller.js';
import { CartCleanup } from './cart-cleanup.js';
import { Cart, CartItem } from './cart.entity.js';
import { CartsController } from './carts.controller.js';
import { CartsService } from './carts.service.js';

@Module({
  imports: [
    TypeOrmModule.forFeature([Cart, CartItem]),
    OrdersModule,
    AddressesModule,
    ShippingOptionsModule,
    RegionsModule,
    PricingModule,
    PriceListPricesModule,
    GiftCardsModule,
    PromotionsModule,
    UsersModule,
  ],
  controllers: [CartsController, AdminCartsController],
  providers: [CartsService, CartCleanup],
})
export class CartsModule {}
