import type { FieldError } from '../common/validation.js';

export const ORDER_STATUSES = ['pending', 'paid', 'shipped', 'completed', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const PAYMENT_STATUSES = ['pending', 'paid', 'failed', 'refunded', 'partially_refunded'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** Allowed moves of `status`; anything else is refused. */
const STATUS_MOVES: Record<OrderStatus, readonly OrderStatus[]> = {
  pending: ['paid', 'cancelled'],
  paid: ['shipped', 'cancelled'],
  shipped: ['completed'],
  completed: [],
  cancelled: [],
};

/** Allowed moves of `payment_status`. */
const PAYMENT_MOVES: Record<PaymentStatus, readonly PaymentStatus[]> = {
  pending: ['paid', 'failed'],
  failed: ['paid'],
  paid: ['refunded'],
  refunded: [],
  // Only a refund through POST /admin/orders/{id}/refunds makes a partial refund, and completes it.
  partially_refunded: ['refunded'],
};

export const FULFILLMENT_STATUSES = ['not_fulfilled', 'partially_fulfilled', 'fulfilled'] as const;
export type FulfillmentStatus = (typeof FULFILLMENT_STATUSES)[number];

/** An order's fulfillment_status from its units: how many it has and how many live fulfilments carry. */
export function fulfillmentStatusOf(units: number, fulfilled: number): FulfillmentStatus {
  if (fulfilled === 0) return 'not_fulfilled';
  return fulfilled >= units ? 'fulfilled' : 'partially_fulfilled';
}

export interface OrderState {
  status: OrderStatus;
  paymentStatus: PaymentStatus;
}

/**
 * Applies a requested change to an order's state, or returns the field and rule it breaks.
 * Besides each field's own moves: an order becomes paid, shipped or completed only with payment
 * `paid`, a refund needs the order cancelled or completed, and a cancelled order takes no payment (its
 * payment_status may only become refunded).
 */
export function nextOrderState(
  current: OrderState,
  change: { status?: OrderStatus; paymentStatus?: PaymentStatus },
): OrderState | FieldError {
  const next: OrderState = {
    status: change.status ?? current.status,
    paymentStatus: change.paymentStatus ?? current.paymentStatus,
  };
  const statusMoves = next.status !== current.status;
  const paymentMoves = next.paymentStatus !== current.paymentStatus;
  if (statusMoves && !STATUS_MOVES[current.status].includes(next.status)) {
    return refusal('status', 'transition', `status cannot change from ${current.status} to ${next.status}`);
  }
  if (paymentMoves && !PAYMENT_MOVES[current.paymentStatus].includes(next.paymentStatus)) {
    return refusal(
      'payment_status',
      'transition',
      `payment_status cannot change from ${current.paymentStatus} to ${next.paymentStatus}`,
    );
  }
  if (!statusMoves && !paymentMoves) {
    return refusal(
      change.status !== undefined ? 'status' : 'payment_status',
      'unchanged',
      'the order already has this status and payment_status',
    );
  }
  if (
    statusMoves &&
    ['paid', 'shipped', 'completed'].includes(next.status) &&
    next.paymentStatus !== 'paid'
  ) {
    return refusal('status', 'paymentRequired', `status ${next.status} requires payment_status paid`);
  }
  if (
    statusMoves &&
    next.status === 'cancelled' &&
    ['paid', 'partially_refunded'].includes(current.paymentStatus) &&
    next.paymentStatus !== 'refunded'
  ) {
    return refusal('status', 'refundRequired', 'a paid order is refunded before it is cancelled');
  }
  if (paymentMoves && next.status === 'cancelled' && next.paymentStatus !== 'refunded') {
    return refusal(
      'payment_status',
      'cancelledOrder',
      `payment_status cannot become ${next.paymentStatus} on a cancelled order`,
    );
  }
  if (
    paymentMoves &&
    next.paymentStatus === 'refunded' &&
    !['cancelled', 'completed'].includes(next.status)
  ) {
    return refusal(
      'payment_status',
      'refundRequiresEnd',
      'payment_status refunded requires status cancelled or completed',
    );
  }
  return next;
}

const refusal = (field: string, rule: string, message: string): FieldError => ({ field, rule, message });
