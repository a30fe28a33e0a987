import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PasswordHasher } from '../auth/password-hasher.js';
import { CustomerGroupsModule } from '../customer-groups/customer-groups.module.js';
import { OrdersModule } from '../orders/orders.module.js';
import { SessionsModule } from '../sessions/sessions.module.js';
import { UserAccounts } from './user-accounts.js';
import { User } from './user.entity.js';
import { UsersController } from './users.controller.js';
import { UsersService } from './users.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([User]), SessionsModule, OrdersModule, CustomerGroupsModule],
  controllers: [UsersController],
  providers: [UsersService, { provide: UserAccounts, useExisting: UsersService }, PasswordHasher],
  exports: [UserAccounts, PasswordHasher],
})
export class UsersModule {}
