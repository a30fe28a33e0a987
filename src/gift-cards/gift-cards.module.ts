import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { GiftCardLedger } from './gift-card-ledger.js';
import { GiftCardTender } from './gift-card-tender.js';
import { GiftCard } from './gift-card.entity.js';
import { GiftCardsController } from './gift-cards.controller.js';
import { GiftCardsService } from './gift-cards.service.js';

/**
 * Gift cards. PricingModule registers GiftCardTender as the calculator's tender; carts, orders and payments inject
 * GiftCardLedger. It imports no other domain module, so each of those can import it without a cycle.
 */
@Module({
  imports: [TypeOrmModule.forFeature([GiftCard])],
  controllers: [GiftCardsController],
  providers: [GiftCardsService, GiftCardTender, { provide: GiftCardLedger, useExisting: GiftCardsService }],
  exports: [GiftCardLedger, GiftCardTender],
})
export class GiftCardsModule {}
