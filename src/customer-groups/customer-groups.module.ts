import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CustomerGroupDirectory } from './customer-group-directory.js';
import { CustomerGroup, CustomerGroupMember } from './customer-group.entity.js';
import { CustomerGroupsService } from './customer-groups.service.js';

/** Other modules import this module and inject CustomerGroupDirectory, its public surface. */
@Module({
  imports: [TypeOrmModule.forFeature([CustomerGroup, CustomerGroupMember])],
  providers: [CustomerGroupsService, { provide: CustomerGroupDirectory, useExisting: CustomerGroupsService }],
  exports: [CustomerGroupDirectory],
})
export class CustomerGroupsModule {}
