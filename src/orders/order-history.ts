import type { Tx } from '../database/transaction-runner.js';
import type { Order } from './order.entity.js';

/** What other modules may ask of the orders module (bound to OrdersService in OrdersModule). */
export abstract class OrderHistory {
  /** Whether the user has an order, not cancelled, that contains the product. */
  abstract hasOrdered(userId: number, productId: number): Promise<boolean>;

  /** The id of the order's owner, or null when there is no such order. */
  abstract ownerOf(orderId: number): Promise<number | null>;

  /**
   * Cancels a user's pending orders and restores their stock, inside the caller's transaction (account deletion).
   * Returns the cancelled orders, to announce with `announceUpdated` after the commit.
   */
  abstract cancelPendingOf(tx: Tx, userId: number): Promise<Order[]>;

  /** Tells the owners' WebSocket clients about changed orders; call after the commit. */
  abstract announceUpdated(orders: Order[]): Promise<void>;
}
