import type { EntityManager } from 'typeorm';
import type { Tx } from '../database/transaction-runner.js';
import type { CartGiftCardDto } from './dto/gift-card.dto.js';

/** What an order took from one gift card at checkout, in minor units of the order's currency. */
export interface OrderGiftCard {
  id: number;
  codeLast4: string;
  amount: number;
}

/**
 * What other modules may ask of the gift cards module (bound to GiftCardsService in GiftCardsModule): carts apply
 * and remove cards, orders show what they took, payments put refunds back on them.
 */
export abstract class GiftCardLedger {
  /**
   * Applies the card with this code to the cart, inside the caller's transaction (applying it again changes
   * nothing). 400 on `code` naming the rule: unknown, inactive, expired, currency, noBalance.
   */
  abstract applyToCart(tx: Tx, cartId: string, code: string, currency: string): Promise<void>;

  /** Takes the card off the cart; 404 when it is not on it. */
  abstract removeFromCart(tx: Tx, cartId: string, giftCardId: number): Promise<void>;

  /** Moves the cards of a cart merged into another to that one (those not on it already), in the caller's transaction. */
  abstract moveCartCards(tx: Tx, fromCartId: string, toCartId: string): Promise<void>;

  /** The cart's cards in the order applied, each with what it pays of `giftCardTotal` (minor units). */
  abstract ofCart(
    manager: EntityManager,
    cartId: string,
    currency: string,
    giftCardTotal: number,
  ): Promise<CartGiftCardDto[]>;

  /** What each order took from its cards (orders without a card are not in the map). */
  abstract ofOrders(manager: EntityManager, orderIds: number[]): Promise<Map<number, OrderGiftCard[]>>;

  /**
   * Puts `amount` (minor units) of a refund back on the order's cards, at most what each gave and has not got
   * back, in its own transaction; once per refund (`refundId`). Throws when the cards gave less than that.
   */
  abstract refundToCards(orderId: number, amount: number, refundId: number): Promise<void>;
}
