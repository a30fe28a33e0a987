import { Module } from '@nestjs/common';
import { PriceListLookup } from './price-list-lookup.js';
import { PriceListPrices } from './price-list-prices.js';

/**
 * The price-list lookup carts, orders and the catalogue price their lines with. Apart from PriceListsModule (the
 * admin API), which needs the products module to check the products it lists: the products module needs this.
 */
@Module({
  providers: [{ provide: PriceListPrices, useClass: PriceListLookup }],
  exports: [PriceListPrices],
})
export class PriceListPricesModule {}
