import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { RateTableTaxProvider } from './rate-table-tax-provider.js';
import { StripeTaxProvider } from './stripe-tax-provider.js';
import { TaxRateRow } from './tax-rate.entity.js';
import { TaxProvider } from './tax-provider.js';
import { TaxRatesController } from './tax-rates.controller.js';
import { TaxRatesService } from './tax-rates.service.js';

/** Other modules import this module and inject TaxProvider, its public surface (docs/extending.md). */
@Module({
  imports: [TypeOrmModule.forFeature([TaxRateRow])],
  controllers: [TaxRatesController],
  providers: [
    TaxRatesService,
    {
      // TAX_PROVIDER: the rate table of /tax-rates, or Stripe Tax.
      provide: TaxProvider,
      inject: [APP_CONFIG],
      useFactory: ({ taxes }: AppConfig): TaxProvider =>
        taxes.provider === 'stripe' && taxes.stripe !== null
          ? new StripeTaxProvider({
              secretKey: taxes.stripe.secretKey,
              apiUrl: taxes.stripe.apiUrl,
              timeoutMs: taxes.timeoutMs,
              taxCodes: taxes.stripeTaxCodes,
            })
          : new RateTableTaxProvider(),
    },
  ],
  exports: [TaxProvider],
})
export class TaxesModule {}
