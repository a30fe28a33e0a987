import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ShippingOptionCatalog } from './shipping-option-catalog.js';
import { ShippingOption } from './shipping-option.entity.js';
import { ShippingOptionsController } from './shipping-options.controller.js';
import { ShippingOptionsService } from './shipping-options.service.js';

/** Other modules import this module and inject ShippingOptionCatalog, its public surface (docs/extending.md). */
@Module({
  imports: [TypeOrmModule.forFeature([ShippingOption])],
  controllers: [ShippingOptionsController],
  providers: [
    ShippingOptionsService,
    { provide: ShippingOptionCatalog, useExisting: ShippingOptionsService },
  ],
  exports: [ShippingOptionCatalog],
})
export class ShippingOptionsModule {}
