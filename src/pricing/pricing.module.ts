import { Module } from '@nestjs/common';
import { GiftCardsModule } from '../gift-cards/gift-cards.module.js';
import { GiftCardTender } from '../gift-cards/gift-card-tender.js';
import { TaxesModule } from '../taxes/taxes.module.js';
import { PRICING_ADJUSTERS } from './adjusters.js';
import { DocumentPricing } from './document-pricing.js';
import { PRICING_TENDERS } from './tenders.js';

/**
 * The one calculator's service (DocumentPricing) for carts, orders and payments. Pricing concerns register
 * adjusters under PRICING_ADJUSTERS (none yet: promotions come as one) and tenders under PRICING_TENDERS (gift
 * cards; their module imports no module that imports this one).
 */
@Module({
  imports: [TaxesModule, GiftCardsModule],
  providers: [
    DocumentPricing,
    { provide: PRICING_ADJUSTERS, useValue: [] },
    {
      provide: PRICING_TENDERS,
      inject: [GiftCardTender],
      useFactory: (giftCards: GiftCardTender) => [giftCards],
    },
  ],
  exports: [DocumentPricing],
})
export class PricingModule {}
