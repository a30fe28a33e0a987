import type { WebSocketFrame } from '../events/websocket-frames.js';

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
  }
}

export interface OrderEventPayload {
  /** The owner of the order: only this user's connections receive the WebSocket frame. */
  userId: number;
  /** The order as the API shows it (without items). */
  order: {
    id: number;
    order_number: string;
    total_amount: number;
    status: string;
    shipping_address: string;
    payment_method: string;
    payment_status: string;
    created_at: string;
    updated_at: string;
  };
  /** The owner as admins see it (the account may since have been deleted). */
  user: { id: number; username: string; email: string };
  /** The order's items as GET /orders/{id} shows them. */
  items: Array<{ id: number; product_id: number; product_name: string; quantity: number; price: number }>;
}

/**
 * The WebSocket frames of `order.created` and `order.updated` (declared by OrdersModule): the order to its owner,
 * and with the owner to the admins subscribed to `orders`.
 */
export function orderFrames({ userId, order, user }: OrderEventPayload): WebSocketFrame[] {
  return [
    { to: { userId }, data: order },
    { to: { channel: 'orders' }, data: { ...order, user } },
  ];
}
