import { createHmac } from 'node:crypto';
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
import type { OrderDetailResponseDto, OrderFulfilmentDto, OrderResponseDto } from './dto/order.dto.js';
import type { OrderEventPayload } from './order-events.js';
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
  /** A guest order's token, or a draft order's (only its hash is stored); null for a user's own order. */
  orderToken: string | null;
  /** The staff member placing a draft order for its customer; null when the customer checks out. */
  placedByUserId: number | null;
}

/**
 * A draft order's token, derived from the service's secret and the draft's cart: the payment link e-mail is
 * composed when its job runs, so the token is never stored but hashed (not even in the job queue).
 */
export function draftOrderToken(secret: string, cartId: string): string {
  return createHmac('sha256', secret).update(`draft-order-token:${cartId}`).digest('base64url');
}

/** An order item's units as fulfilments and returns count them. */
export interface OrderUnits {
  orderItemId: number;
  productId: number;
  variantId: number | null;
  productName: string;
  quantity: number;
  /** Units live fulfilments carry. */
  fulfilled: number;
  /** Units in a return requested or received (never more than the fulfilled ones). */
  returned: number;
  /** What the line costs, after its discounts, with its tax (minor units). */
  totalMinor: number;
}

/** A change of an item's counted units: positive takes units, negative gives them back. */
export interface UnitChange {
  orderItemId: number;
  quantity: number;
}

/** What moved an order's fulfilment: a fulfilment created, delivered or cancelled. */
export type FulfilmentChange = 'fulfilled' | 'delivered' | 'cancelled';

/** Reads an order's fulfilments for its detail (the fulfilments module gives it). */
export type FulfilmentReader = (orderId: number) => Promise<OrderFulfilmentDto[]>;

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

  /**
   * Makes the guest orders placed with this e-mail address (any case) the account's, inside the caller's
   * transaction (the e-mail verification). Returns how many.
   */
  abstract adoptGuestOrders(tx: Tx, userId: number, email: string): Promise<number>;
  /** Where the order's detail (GET /orders/{id}, customer, admin and guest) reads its `fulfilments`. */
  abstract showFulfilments(reader: FulfilmentReader): void;

  /** The order's items with their counted units, in id order, inside the caller's transaction. */
  abstract unitsOf(tx: Tx, orderId: number): Promise<OrderUnits[]>;

  /**
   * Changes the items' fulfilled or returned units by one conditional update each, in the caller's transaction:
   * returned ≤ fulfilled ≤ quantity, none below 0 (a fulfilment whose units are in a return cannot give them
   * back). Returns the index of the first change refused (nothing is applied after it: the caller throws and its
   * transaction rolls back), or null when all applied.
   */
  abstract moveUnits(
    tx: Tx,
    orderId: number,
    units: 'fulfilled' | 'returned',
    changes: UnitChange[],
  ): Promise<number | null>;

  /**
   * What the order's shipping cost the customer, in minor units: its price after its discount, with its tax
   * (added tax included unless prices include it).
   */
  abstract shippingChargeOf(tx: Tx, orderId: number): Promise<number>;

  /**
   * Recomputes the order's fulfillment_status from its items and moves its status, in the caller's transaction:
   * paid → shipped once every unit is fulfilled; shipped → completed once, besides, every live fulfilment is
   * delivered (`allDelivered`); shipped → paid when a cancelled fulfilment leaves units unfulfilled. Publishes
   * `order.updated` when something changed. Returns the order as its events carry it.
   */
  abstract followFulfilment(
    tx: Tx,
    orderId: number,
    change: FulfilmentChange,
    allDelivered: boolean,
    actor: TimelineActor,
  ): Promise<OrderEventPayload>;

  /** The order as its events carry it, read in the caller's transaction. */
  abstract eventPayloadOf(tx: Tx, orderId: number, actor: TimelineActor): Promise<OrderEventPayload>;
}
