import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CustomerGroupsModule } from '../customer-groups/customer-groups.module.js';
import { ProductsModule } from '../products/products.module.js';
import { PriceList, PriceListCustomerGroup, PriceListPrice } from './price-list.entity.js';
import { PriceListsController } from './price-lists.controller.js';
import { PriceListsService } from './price-lists.service.js';

/** The admin API of price lists. Other modules import PriceListPricesModule for the prices they give. */
@Module({
  imports: [
    TypeOrmModule.forFeature([PriceList, PriceListCustomerGroup, PriceListPrice]),
    ProductsModule,
    CustomerGroupsModule,
  ],
  controllers: [PriceListsController],
  providers: [PriceListsService],
})
export class PriceListsModule {}
