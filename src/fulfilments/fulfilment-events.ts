import type { OrderFulfilmentDto } from '../orders/dto/order.dto.js';
import type { OrderEventPayload } from '../orders/order-events.js';

/** The fulfilments module's events, published in the transaction that records the change. */
declare module '../events/domain-events.js' {
  interface DomainEvents {
    /** A fulfilment was created: some units of the order were shipped (one event per fulfilment). */
    'order.fulfilled': FulfilmentEventPayload;
    /** A fulfilment was delivered. */
    'order.delivered': FulfilmentEventPayload;
  }
}

/** The order as its events carry it, and the fulfilment the event is about. */
export interface FulfilmentEventPayload extends OrderEventPayload {
  fulfilment: OrderFulfilmentDto;
}
