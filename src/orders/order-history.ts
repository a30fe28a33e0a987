import type { Tx } from '../database/transaction-runner.js';
import type { Order } from './order.entity.js';

/** What other modules may ask of the orders module (bound to OrdersService in OrdersModule). */
export abstract class OrderHistory {
  /** Whether the user has an order, not cancelled, that contains the product. */
  abstract hasOrdered(userId: number, productId: number): Promise<boolean>;

  /** The id of the order's owner, or null when there is no such order. */
  abstract ownerOf(orderId: number): Promise<number | null>;

  /**
   * Cancels a user's pending orders and restores their stock, inside the caller's transaction (account deletion),
   * publishing `order.updated` and `order.cancelled` for each in it. Returns the cancelled orders.
   */
  abstract cancelPendingOf(tx: Tx, userId: number): Promise<Order[]>;
}
