import type { EntityManager } from 'typeorm';
import type { Tx } from '../database/transaction-runner.js';
import type { OrderTaking, PricingAdjuster, PricingContext } from '../pricing/adjusters.js';
import type { Adjuster, Adjustment, DocumentDiscount, PricedDocument } from '../pricing/calculator.js';

/**
 * What other modules may ask of the promotions module (bound to PromotionAdjuster in PromotionsModule): the
 * promotions' pricing adjuster, which PricingModule registers under PRICING_ADJUSTERS, and the discount codes a
 * cart holds, which the carts module's routes put on and take off inside their own transaction.
 */
export abstract class PromotionPricing implements PricingAdjuster {
  abstract readonly name: string;
  abstract quote(manager: EntityManager, context: PricingContext): Promise<Adjuster | null>;
  abstract commit(
    tx: Tx,
    order: OrderTaking,
    given: Adjustment[],
    discounts: DocumentDiscount[],
  ): Promise<void>;
  abstract release(tx: Tx, orderId: number): Promise<void>;

  /** Puts the promotion of `code` (any case) on the cart, once; 400 `code`/`unknown` when there is none. */
  abstract hold(tx: Tx, cartId: string, code: string): Promise<number>;

  /** Moves the codes of a cart merged into another there (those it does not hold yet). */
  abstract moveCodes(tx: Tx, fromCartId: string, toCartId: string): Promise<void>;

  /** Takes the code off the cart; 404 when the cart does not hold it. */
  abstract drop(tx: Tx, cartId: string, code: string): Promise<void>;

  /** 400 on `code` naming the rule when the priced cart does not apply the promotion it holds. */
  abstract assertApplies(document: PricedDocument, promotionId: number): void;
}
