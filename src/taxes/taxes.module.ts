import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RateTableTaxProvider } from './rate-table-tax-provider.js';
import { TaxRateRow } from './tax-rate.entity.js';
import { TaxProvider } from './tax-provider.js';

/** Other modules import this module and inject TaxProvider, its public surface (docs/extending.md). */
@Module({
  imports: [TypeOrmModule.forFeature([TaxRateRow])],
  providers: [RateTableTaxProvider, { provide: TaxProvider, useExisting: RateTableTaxProvider }],
  exports: [TaxProvider],
})
export class TaxesModule {}
