import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CustomerGroupDirectory } from './customer-group-directory.js';
import { CustomerGroup, CustomerGroupMember } from './customer-group.entity.js';
import { CustomerGroupsController } from './customer-groups.controller.js';
import { CustomerGroupsService } from './customer-groups.service.js';

/** Other modules import this module and inject CustomerGroupDirectory, its public surface. */
@Module({
  imports: [TypeOrmModule.forFeature([CustomerGroup, CustomerGroupMember])],
  controllers: [CustomerGroupsController],
  providers: [CustomerGroupsService, { provide: CustomerGroupDirectory, useExisting: CustomerGroupsService }],
  exports: [CustomerGroupDirectory],
})
export class CustomerGroupsModule {}
