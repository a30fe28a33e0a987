import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { fieldError } from '../common/validation.js';
import { changedRows } from '../database/raw-query.js';
import { sqlDatetime } from '../database/timestamps.js';
import type { Tx } from '../database/transaction-runner.js';
import type { PricingContext } from '../pricing/adjusters.js';
import type { PricingTender } from '../pricing/tenders.js';
import {
  allocate,
  cardsOfCart,
  INSERT_TRANSACTION,
  refusalOf,
  TAKE_BALANCE,
} from './gift-card-statements.js';
import { creditBack } from './gift-cards.service.js';

/**
 * Gift cards as the calculator's tender: a cart's usable cards pay its total after taxes (in the order applied);
 * the checkout takes the balances by conditional update (a card never goes below zero, whatever runs at once),
 * a cancellation or expiry gives them back once.
 */
@Injectable()
export class GiftCardTender implements PricingTender {
  readonly name = 'gift-cards';

  async available(manager: EntityManager, context: PricingContext): Promise<number> {
    if (context.cartId === null) return 0;
    const cards = await cardsOfCart(manager, context.cartId);
    return allocate(cards, Number.MAX_SAFE_INTEGER, context.currency, new Date()).reduce((a, b) => a + b, 0);
  }

  /**
   * Every card on the cart must still pay (else 400 on `gift_cards` naming the rule: a card spent meanwhile is
   * `noBalance`); each takes its share by a conditional update, and one that no longer covers it refuses the
   * order (`insufficientBalance`), which then places nothing. Answers what the cards paid.
   */
  async commit(
    tx: Tx,
    order: { id: number; currency: string; cartId: string | null },
    upTo: number,
  ): Promise<number> {
    if (order.cartId === null) return 0;
    const now = new Date();
    const cards = await cardsOfCart(tx, order.cartId);
    for (const card of cards) {
      const refusal = refusalOf(card, order.currency, now);
      if (refusal !== null) throw fieldError('gift_cards', refusal.rule, refusal.message);
    }
    const shares = allocate(cards, upTo, order.currency, now);
    const at = sqlDatetime(now);
    // Card id order: concurrent checkouts drawing the same cards lock them in one order.
    const taken = cards.map((card, i) => ({ card, amount: shares[i] })).filter((share) => share.amount > 0);
    taken.sort((a, b) => a.card.id - b.card.id);
    for (const { card, amount: share } of taken) {
      if ((await changedRows(tx, TAKE_BALANCE, [share, at, card.id, share])) === 0) {
        throw fieldError(
          'gift_cards',
          'insufficientBalance',
          `gift card …${card.codeLast4} no longer covers ${share} (minor units): it was spent meanwhile`,
        );
      }
      await tx.query(INSERT_TRANSACTION, [card.id, order.id, 'debit', share, null, at, at]);
    }
    return taken.reduce((sum, share) => sum + share.amount, 0);
  }

  async release(tx: Tx, orderId: number): Promise<void> {
    await creditBack(tx, orderId, null, null);
  }
}
