import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CustomerGroupsModule } from '../customer-groups/customer-groups.module.js';
import { PromotionAdjuster } from './promotion-adjuster.js';
import { PromotionPricing } from './promotion-pricing.js';
import { CartDiscountCode, Promotion, PromotionUsage } from './promotion.entity.js';
import { PromotionsController } from './promotions.controller.js';
import { PromotionsService } from './promotions.service.js';

/**
 * Promotions and discount codes. Other modules import this module and inject PromotionPricing, its public
 * surface: PricingModule registers it as a pricing adjuster, the carts module's routes hold codes with it.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Promotion, CartDiscountCode, PromotionUsage]), CustomerGroupsModule],
  controllers: [PromotionsController],
  providers: [
    PromotionsService,
    PromotionAdjuster,
    { provide: PromotionPricing, useExisting: PromotionAdjuster },
  ],
  exports: [PromotionPricing],
})
export class PromotionsModule {}
