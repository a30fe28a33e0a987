import { Module } from '@nestjs/common';
import { TaxesModule } from '../taxes/taxes.module.js';
import { PRICING_ADJUSTERS } from './adjusters.js';
import { DocumentPricing } from './document-pricing.js';

/**
 * The one calculator's service (DocumentPricing) for carts, orders and payments. Pricing concerns register
 * adjusters under PRICING_ADJUSTERS (none yet: promotions come as one).
 */
@Module({
  imports: [TaxesModule],
  providers: [DocumentPricing, { provide: PRICING_ADJUSTERS, useValue: [] }],
  exports: [DocumentPricing],
})
export class PricingModule {}
