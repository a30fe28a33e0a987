import type { OrderEventPayload } from '../orders/order-events.js';
import type { ReturnResponseDto } from './dto/return.dto.js';

/** The returns module's events, published in the transaction that records the change. */
declare module '../events/domain-events.js' {
  interface DomainEvents {
    /** The customer (or a guest) requested a return. */
    'return.requested': ReturnEventPayload;
    /** Staff received a return: its refund follows. */
    'return.received': ReturnEventPayload;
    /** Staff rejected a return: its units may be returned again. */
    'return.rejected': ReturnEventPayload;
    /** A received return's refund went through. */
    'return.refunded': ReturnEventPayload;
  }
}

/** The order as its events carry it, and the return the event is about. */
export interface ReturnEventPayload extends OrderEventPayload {
  return: ReturnResponseDto;
}
