import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CategoriesModule } from '../categories/categories.module.js';
import { PriceListPricesModule } from '../price-lists/price-list-prices.module.js';
import { RegionsModule } from '../regions/regions.module.js';
import { UploadModule } from '../upload/upload.module.js';
import { ProductCatalog } from './product-catalog.js';
import { Product } from './product.entity.js';
import { ProductsController } from './products.controller.js';
import { ProductVariantsController } from './product-variants.controller.js';
import { ProductVariants } from './product-variants.service.js';
import { PRODUCT_SEARCH, ProductListQuery } from './product-list.query.js';
import { ProductListTotals } from './product-list-totals.js';
import { ProductsService } from './products.service.js';
import { SearchModule } from '../search/search.module.js';
import { SearchDictionary } from './search-dictionary.js';
import { SearchSlotInterceptor, SearchSlots } from './search-slots.js';

@Module({
  imports: [
    TypeOrmModule.forFeature([Product]),
    UploadModule,
    CategoriesModule,
    RegionsModule,
    PriceListPricesModule,
    SearchModule,
  ],
  controllers: [ProductsController, ProductVariantsController],
  providers: [
    ProductsService,
    { provide: ProductCatalog, useExisting: ProductsService },
    ProductListQuery,
    { provide: PRODUCT_SEARCH, useExisting: ProductListQuery },
    ProductListTotals,
    ProductVariants,
    SearchSlots,
    SearchSlotInterceptor,
    SearchDictionary,
  ],
  exports: [ProductCatalog],
})
export class ProductsModule {}
