import type { EntityManager } from 'typeorm';
import type { Tx } from '../database/transaction-runner.js';
import type { PricingContext } from './adjusters.js';

/**
 * A tender (gift cards): pays part of a document's total after taxes, never lowers them. `available` reads what
 * it could pay for the document (the calculator caps it at the total); `commit` takes up to `upTo` inside the
 * transaction that places the order and answers what it took (throwing a 400 refuses the order; what no tender
 * takes refuses it too); `release` gives back what the order took inside the one that cancels it, once. Registered with the PRICING_TENDERS provider
 * (docs/extending.md#pricing-tenders); they pay in their registration order.
 */
export interface PricingTender {
  readonly name: string;
  available(manager: EntityManager, context: PricingContext): Promise<number>;
  commit(
    tx: Tx,
    order: { id: number; currency: string; cartId: string | null },
    upTo: number,
  ): Promise<number>;
  release(tx: Tx, orderId: number): Promise<void>;
}

/** The multi-provider token of the registered tenders (an array). */
export const PRICING_TENDERS = Symbol('PRICING_TENDERS');
