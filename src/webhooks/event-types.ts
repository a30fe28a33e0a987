// The events webhooks deliver, and the only names a webhook may subscribe to. Events of the service's own
// machinery (sessions.revoked) stay inside it, also for webhooks subscribed to "*".
export const EVENT_TYPES: readonly string[] = [
  'order.created',
  'order.updated',
  'order.paid',
  'order.cancelled',
  'order.refunded',
  'product.created',
  'product.updated',
  'product.deleted',
  'user.created',
];
