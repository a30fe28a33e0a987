import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RateTableTaxProvider } from './rate-table-tax-provider.js';
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
    RateTableTaxProvider,
    { provide: TaxProvider, useExisting: RateTableTaxProvider },
  ],
  exports: [TaxProvider],
})
export class TaxesModule {}
