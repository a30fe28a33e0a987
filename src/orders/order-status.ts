export const ORDER_STATUSES = ['pending', 'paid', 'shipped', 'completed', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const PAYMENT_STATUSES = ['pending', 'paid', 'failed', 'refunded'] as const;
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
};

export interface OrderState {
  status: OrderStatus;
  paymentStatus: PaymentStatus;
}

/**
 * Applies a requested change to an order's state, or returns why it is not allowed.
 * Besides each field's own moves: an order becomes paid, shipped or completed only with payment
 * `paid`, and a refund needs the order cancelled or completed.
 */
export function nextOrderState(
  current: OrderState,
  change: { status?: OrderStatus; paymentStatus?: PaymentStatus },
): OrderState | string {
  const next: OrderState = {
    status: change.status ?? current.status,
    paymentStatus: change.paymentStatus ?? current.paymentStatus,
  };
  if (
    change.status !== undefined &&
    change.status !== current.status &&
    !STATUS_MOVES[current.status].includes(change.status)
  ) {
    return `status cannot change from ${current.status} to ${change.status}`;
  }
  if (
    change.paymentStatus !== undefined &&
    change.paymentStatus !== current.paymentStatus &&
    !PAYMENT_MOVES[current.paymentStatus].includes(change.paymentStatus)
  ) {
    return `payment_status cannot change from ${current.paymentStatus} to ${change.paymentStatus}`;
  }
  if (next.status === current.status && next.paymentStatus === current.paymentStatus) {
    return 'the order already has this status and payment_status';
  }
  const statusMoves = next.status !== current.status;
  if (
    statusMoves &&
    ['paid', 'shipped', 'completed'].includes(next.status) &&
    next.paymentStatus !== 'paid'
  ) {
    return `status ${next.status} requires payment_status paid`;
  }
  const paymentMoves = next.paymentStatus !== current.paymentStatus;
  if (
    paymentMoves &&
    next.paymentStatus === 'refunded' &&
    !['cancelled', 'completed'].includes(next.status)
  ) {
    return 'payment_status refunded requires status cancelled or completed';
  }
  return next;
}
