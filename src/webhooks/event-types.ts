// The event types a webhook may subscribe to.
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
