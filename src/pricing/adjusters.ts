import type { EntityManager } from 'typeorm';
import type { Tx } from '../database/transaction-runner.js';
import type { Adjuster, Adjustment, DocumentDiscount, PricingLine } from './calculator.js';

/** What an adjuster is told of the document it prices. */
export interface PricingContext {
  currency: string;
  regionId: number;
  /** The customer's account, null for a guest. */
  customerId: number | null;
  /** The document's e-mail (a guest's cart or order), null while none is known. */
  email: string | null;
  /** The order being placed when it is written already (its own row is not one of the customer's earlier orders). */
  placingOrderId: number | null;
  /** The cart priced (also when it is being checked out); null for `POST /orders`. */
  cartId: string | null;
  lines: readonly PricingLine[];
}

/**
 * A pricing concern of the discount stage (promotions, gift cards' tenders come the same way): a read-only
 * `quote` loads what it needs and gives the calculator a pure Adjuster; where something is taken (a promotion
 * use), `commit` takes it inside the transaction that places the order (throwing a 400 refuses the order; it also
 * gets the document's discounts it considered, to refuse codes that no longer apply) and
 * `release` gives it back inside the one that cancels it. Registered with the PRICING_ADJUSTERS provider
 * (docs/extending.md#pricing-adjusters); they run in their registration order.
 */
export interface PricingAdjuster {
  readonly name: string;
  quote(manager: EntityManager, context: PricingContext): Promise<Adjuster | null>;
  commit?(tx: Tx, order: OrderTaking, given: Adjustment[], discounts: DocumentDiscount[]): Promise<void>;
  release?(tx: Tx, orderId: number): Promise<void>;
}

/** The order an adjuster's `commit` takes for: its id, its account (null: a guest) and its e-mail. */
export interface OrderTaking {
  id: number;
  customerId: number | null;
  email: string | null;
}

/** The multi-provider token of the registered adjusters (an array). */
export const PRICING_ADJUSTERS = Symbol('PRICING_ADJUSTERS');
