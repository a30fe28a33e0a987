import type { WebSocketFrame } from '../events/websocket-frames.js';
import type { OrderItemResponseDto, OrderResponseDto } from './dto/order.dto.js';
import type { DiscountDto } from '../pricing/dto/priced.dto.js';
import type { TimelineActor } from './order-timeline.js';

export type { PaymentStatus } from './order-status.js';

/**
 * The orders module's events, published in the transaction that changes the order (EventBus) and dispatched
 * after its commit. Every change is `order.updated`; some are also announced by what they mean.
 */
declare module '../events/domain-events.js' {
  interface DomainEvents {
    /** An order was placed. */
    'order.created': OrderEventPayload;
    /** Any change of an order's status or payment status (cancellation and expiry included). */
    'order.updated': OrderEventPayload;
    /** payment_status became `paid`. */
    'order.paid': OrderEventPayload;
    /** The order was cancelled: by its owner, an admin, the expiry of pending orders or an account deletion. */
    'order.cancelled': OrderEventPayload;
    /** payment_status became `refunded` or `partially_refunded`. */
    'order.refunded': OrderEventPayload;
    /** An e-mail about the order was sent (the SMTP server accepted it); published by the mail job after it. */
    'order.email_sent': OrderEmailSentPayload;
  }
}

export interface OrderEventPayload {
  /** The owner of the order: only this user's connections receive the WebSocket frame; null for a guest's order. */
  userId: number | null;
  /** The order as the API shows it (without items), its totals and currency included. */
  order: OrderResponseDto;
  /** The owner as admins see it (the account may since have been deleted); null for a guest's order. */
  user: { id: number; username: string; email: string } | null;
  /** Where the order's e-mail goes: the guest's address, or the order's or else the owner's account address. */
  email: string | null;
  /** The order's items as GET /orders/{id} shows them, with their tax lines and adjustments. */
  items: OrderItemResponseDto[];
  /** The order's promotions as GET /orders/{id} shows them (absent in events stored before promotions). */
  discounts?: DiscountDto[];
  /** Who made the change (absent in events stored before actors were recorded). */
  actor?: TimelineActor;
  /** `order.updated` and what it means: the order's status and payment_status before the change. */
  previous?: { status: string; payment_status: string };
}

/** `order.email_sent`: which e-mail about which order went to whom. */
export interface OrderEmailSentPayload {
  /** The order's id and number (the outbox indexes events about an order by `order.id`). */
  order: { id: number; order_number: string };
  /** What the e-mail is: order-confirmation, payment-received (other modules add theirs). */
  kind: string;
  to: string;
  actor: TimelineActor;
}

/**
 * The WebSocket frames of `order.created` and `order.updated` (declared by OrdersModule): the order to its owner,
 * and with the owner to the admins subscribed to `orders` (a guest's order: to the admins only).
 */
export function orderFrames({ userId, order, user }: OrderEventPayload): WebSocketFrame[] {
  const admins: WebSocketFrame = { to: { channel: 'orders' }, data: { ...order, user } };
  return userId === null ? [admins] : [{ to: { userId }, data: order }, admins];
}
