import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OrdersModule } from '../orders/orders.module.js';
import { CartCleanup } from './cart-cleanup.js';
import { Cart, CartItem } from './cart.entity.js';
import { CartsController } from './carts.controller.js';
import { CartsService } from './carts.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([Cart, CartItem]), OrdersModule],
  controllers: [CartsController],
  providers: [CartsService, CartCleanup],
})
export class CartsModule {}
