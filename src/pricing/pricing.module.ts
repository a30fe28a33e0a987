import { Module } from '@nestjs/common';
import { PromotionPricing } from '../promotions/promotion-pricing.js';
import { PromotionsModule } from '../promotions/promotions.module.js';
import { TaxesModule } from '../taxes/taxes.module.js';
import { PRICING_ADJUSTERS, type PricingAdjuster } from './adjusters.js';
import { DocumentPricing } from './document-pricing.js';

/**
 * The one calculator's service (DocumentPricing) for carts, orders and payments. Pricing concerns register
 * adjusters under PRICING_ADJUSTERS, in the order they run: promotions (PromotionsModule, which imports nothing
 * of pricing's module, so there is no cycle).
 */
@Module({
  imports: [TaxesModule, PromotionsModule],
  providers: [
    DocumentPricing,
    {
      provide: PRICING_ADJUSTERS,
      inject: [PromotionPricing],
      useFactory: (promotions: PromotionPricing): PricingAdjuster[] => [promotions],
    },
  ],
  exports: [DocumentPricing],
})
export class PricingModule {}
