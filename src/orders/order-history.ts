import type { Tx } from '../database/transaction-runner.js';
import type { AuthUser } from '../auth/auth-user.js';
import type { PaymentStatus } from './order-status.js';
import type { Order } from './order.entity.js';

/** What the payments module reads of an order. */
export type PayableOrder = Pick<
  Order,
  'id' | 'userId' | 'totalCents' | 'paymentMethod' | 'status' | 'paymentStatus'
>;

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

  /** The order for its owner or an admin; 404 for anyone else, as for a missing order. */
  abstract findPayable(orderId: number, actor: AuthUser): Promise<PayableOrder>;

  /**
   * Makes the order's payment_status follow its payment inside the caller's transaction (a paid payment also
   * moves a pending order to paid), publishing the order events in it. False when the order is cancelled and the
   * payment would make it paid: a cancelled order never becomes paid.
   */
  abstract followPayment(tx: Tx, orderId: number, paymentStatus: PaymentStatus): Promise<boolean>;
}
