import type { DomainEventType } from '../events/domain-events.js';
// The payload types come with the modules' event files (declaration merging into DomainEvents).
import type {} from '../orders/order-events.js';
import type {} from '../fulfilments/fulfilment-events.js';
import type {} from '../returns/return-events.js';
import type {} from '../products/product-events.js';
import type {} from '../users/user-events.js';

/**
 * The events webhooks deliver, and the only names a webhook may subscribe to; each must be a key of DomainEvents.
 * Events of the service's own machinery (sessions.revoked) stay inside it, also for webhooks subscribed to "*".
 */
export const EVENT_TYPES: readonly string[] = [
  'order.created',
  'order.updated',
  'order.paid',
  'order.cancelled',
  'order.refunded',
  'order.fulfilled',
  'order.delivered',
  'return.requested',
  'return.received',
  'return.rejected',
  'order.email_sent',
  'product.created',
  'product.updated',
  'product.deleted',
  'product.back_in_stock',
  'user.created',
] satisfies DomainEventType[];
