import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Address } from './address.entity.js';
import { AddressBook } from './address-book.js';
import { AddressesController } from './addresses.controller.js';
import { AddressesService } from './addresses.service.js';

/** Other modules import this module and inject AddressBook, its public surface (docs/extending.md). */
@Module({
  imports: [TypeOrmModule.forFeature([Address])],
  controllers: [AddressesController],
  providers: [AddressesService, { provide: AddressBook, useExisting: AddressesService }],
  exports: [AddressBook],
})
export class AddressesModule {}
