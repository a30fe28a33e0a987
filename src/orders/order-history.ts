import type { RegionInfo } from '../regions/region-directory.js';
import type { AddressFields } from '../addresses/dto/address.dto.js';
import type { Tx } from '../database/transaction-runner.js';
import type { AuthUser } from '../auth/auth-user.js';
import type { PaymentStatus } from './order-status.js';
import type { TimelineActor } from './order-timeline.js';

/** Who asks for an order: a signed-in user, or a guest with the order's token (X-Order-Token). */
export interface OrderAccess {
  actor?: AuthUser;
  orderToken?: string;
}

/** What the payments module reads of an order. */
export type PayableOrder = Pick<
  Order,
  | 'id'
  | 'orderNumber'
  | 'userId'
  | 'totalCents'
  | 'giftCardTotalMinor'
  | 'currencyCode'
  | 'paymentMethod'
  | 'status'
  | 'paymentStatus'
>;

/** What a payment takes: the order's total less what gift cards pay, in minor units of its currency. */
export function amountDueOf(order: Pick<Order, 'totalCents' | 'giftCardTotalMinor'>): number {
  return order.totalCents - order.giftCardTotalMinor;
}
import type { StockRequest } from '../products/product-catalog.js';
import type { OrderDetailResponseDto, OrderResponseDto } from './dto/order.dto.js';
import type { Order } from './order.entity.js';

/** A structured postal address as an order keeps it (`shipping_address_details`); empty optional fields are "". */
export type ShippingAddressDetails = AddressFields;

/** An order placed from a cart: the cart's lines, address, shipping and who buys (a user, or a guest's e-mail). */
export interface CartOrder {
  cartId: string;
  /** null: a guest order. */
  userId: number | null;
  /** The confirmation's address; null for a customer who gave none (their account's address is used). */
  email: string | null;
  items: StockRequest[];
  shippingAddress: ShippingAddressDetails;
  /** The cart's region; the order is priced in it with the prices read as the stock is taken. */
  region: RegionInfo;
  /** The shipping option's price in the region's currency (minor units) and its tax class; null: none. */
  shipping: { amount: number; taxClass: string } | null;
  paymentMethod: string;
  /** A guest order's token (only its hash is stored); null for a user's order. */
  orderToken: string | null;
}

/** What other modules may ask of the orders module (bound to OrdersService in OrdersModule). */
export abstract class OrderHistory {
  /** Whether the user has an order, not cancelled, that contains the product. */
  abstract hasOrdered(userId: number, productId: number): Promise<boolean>;

  /** The id of the order's owner, or null when there is no such order. */
  abstract ownerOf(orderId: number): Promise<number | null>;

  /**
   * Cancels a user's pending orders and restores their stock, inside the caller's transaction (account deletion),
   * publishing `order.updated` and `order.cancelled` for each in it (their `actor`: who deletes the account).
   * Returns the cancelled orders.
   */
  abstract cancelPendingOf(tx: Tx, userId: number, actor: TimelineActor): Promise<Order[]>;

  /**
   * The order for its owner or an admin, or for a guest with its order token; 404 for anyone else, as for a
   * missing order (401 with neither a user nor a token).
   */
  abstract findPayable(orderId: number, access: OrderAccess): Promise<PayableOrder>;

  /**
   * The order, locked until the caller's transaction ends. A payment is created under this lock, and every
   * cancellation (owner, admin, expiry, account deletion) takes it too and cancels the live payment in its
   * transaction, so a payment never outlives its order.
   */
  abstract lockPayable(tx: Tx, orderId: number): Promise<PayableOrder>;

  /**
   * Makes the order's payment_status follow its payment inside the caller's transaction (a paid payment also
   * moves a pending order to paid), publishing the order events in it. False when the order is cancelled and the
   * payment would make it paid: a cancelled order never becomes paid. `actor` goes into the events: the provider
   * (a webhook, reconciliation), the staff who asked for a refund, or the system.
   */
  abstract followPayment(
    tx: Tx,
    orderId: number,
    paymentStatus: PaymentStatus,
    actor: TimelineActor,
  ): Promise<boolean>;

  /**
   * Staff record that the money of a bank-transfer or cash order arrived, inside the caller's transaction: the
   * order's payment_status becomes paid (a pending order becomes paid), and its waiting manual payment is marked
   * paid, or else a `manual` payment of the amount due is written, paid, recorded by `staffId` now, so refunds
   * go through the payments module as for any provider. Publishes the order events (actor: the staff). 404 for
   * a missing order; a refused move is a 400 naming the field and rule (as PATCH /orders/{id}/status).
   */
  abstract markPaidByHand(tx: Tx, orderId: number, staffId: number): Promise<OrderResponseDto>;
  /**
   * Places a cart's order inside the caller's transaction through the same no-oversell placing as POST /orders
   * (stock taken per product in id order, exact total = items + shipping, `order.created` published in it).
   * Throws 400 when a product is missing, inactive or short (InsufficientStockException).
   */
  abstract placeFromCart(tx: Tx, placement: CartOrder): Promise<OrderDetailResponseDto>;

  /** The order placed from the cart, with its items, or null. */
  abstract placedFromCart(cartId: string): Promise<OrderDetailResponseDto | null>;
}
