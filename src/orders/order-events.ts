/**
 * Events the orders module emits (through @nestjs/event-emitter's EventEmitter2) after the
 * transaction that changed an order has committed. The realtime gateway pushes them to the owner, and with the
 * owner attached to admins subscribed to the `orders` channel.
 */
export const ORDER_CREATED = 'order.created';
export const ORDER_UPDATED = 'order.updated';

export interface OrderEventPayload {
  /** The owner of the order: only this user's connections receive the event. */
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
}
