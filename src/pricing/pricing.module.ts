import { Module } from '@nestjs/common';
import { GiftCardsModule } from '../gift-cards/gift-cards.module.js';
import { GiftCardTender } from '../gift-cards/gift-card-tender.js';
import { PromotionPricing } from '../promotions/promotion-pricing.js';
import { PromotionsModule } from '../promotions/promotions.module.js';
import { TaxesModule } from '../taxes/taxes.module.js';
import { PRICING_ADJUSTERS, type PricingAdjuster } from './adjusters.js';
import { DocumentPricing } from './document-pricing.js';
import { PRICING_TENDERS } from './tenders.js';

/**
 * The one calculator's service (DocumentPricing) for carts, orders and payments. Pricing concerns register
 * adjusters under PRICING_ADJUSTERS, in the order they run (promotions), and tenders under PRICING_TENDERS (gift
 * cards). Neither module imports a module that imports this one, so there is no cycle.
 */
@Module({
  imports: [TaxesModule, PromotionsModule, GiftCardsModule],
  providers: [
    DocumentPricing,
    {
      provide: PRICING_ADJUSTERS,
      inject: [PromotionPricing],
      useFactory: (promotions: PromotionPricing): PricingAdjuster[] => [promotions],
    },
    {
      provide: PRICING_TENDERS,
      inject: [GiftCardTender],
      useFactory: (giftCards: GiftCardTender) => [giftCards],
    },
  ],
  exports: [DocumentPricing],
})
export class PricingModule {}
