import type { Tx } from '../database/transaction-runner.js';

/** What other modules (returns) may ask of the fulfilments module (bound to FulfilmentsService). */
export abstract class ShippedUnits {
  /** When each of the order's items last shipped: the latest shipped_at of its live fulfilments, by item id. */
  abstract lastShippedOf(tx: Tx, orderId: number): Promise<Map<number, Date>>;
}
