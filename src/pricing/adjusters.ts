import type { EntityManager } from 'typeorm';
import type { Tx } from '../database/transaction-runner.js';
import type { Adjuster, Adjustment, PricingLine } from './calculator.js';

/** What an adjuster is told of the document it prices. */
export interface PricingContext {
  currency: string;
  regionId: number;
  /** The customer's account, null for a guest. */
  customerId: number | null;
  /** The cart priced (also when it is being checked out); null for `POST /orders`. */
  cartId: string | null;
  lines: readonly PricingLine[];
}

/**
 * A pricing concern of the discount stage (promotions, gift cards' tenders come the same way): a read-only
 * `quote` loads what it needs and gives the calculator a pure Adjuster; where something is taken (a promotion
 * use), `commit` takes it inside the transaction that places the order (throwing a 400 refuses the order) and
 * `release` gives it back inside the one that cancels it. Registered with the PRICING_ADJUSTERS provider
 * (docs/extending.md#pricing-adjusters); they run in their registration order.
 */
export interface PricingAdjuster {
  readonly name: string;
  quote(manager: EntityManager, context: PricingContext): Promise<Adjuster | null>;
  commit?(tx: Tx, order: { id: number; customerId: number | null }, given: Adjustment[]): Promise<void>;
  release?(tx: Tx, orderId: number): Promise<void>;
}

/** The multi-provider token of the registered adjusters (an array). */
export const PRICING_ADJUSTERS = Symbol('PRICING_ADJUSTERS');
