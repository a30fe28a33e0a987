import type { PaymentStatus as OrderPaymentStatus } from '../orders/order-events.js';

export const PAYMENT_STATUSES = [
  'pending',
  'requires_action',
  'authorized',
  'paid',
  'failed',
  'cancelled',
  'refunded',
  'partially_refunded',
] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

const REFUNDS = ['refunded', 'partially_refunded'] as const;

/**
 * Allowed moves of a payment. Provider events may arrive in any order, so every move goes forward only: a refund
 * implies the money was taken (a charge.refunded before its payment_intent.succeeded skips paid), and a late
 * `failed` or `cancelled` after paid is ignored. A failed card payment may still be retried and succeed.
 */
const MOVES: Record<PaymentStatus, readonly PaymentStatus[]> = {
  pending: ['requires_action', 'authorized', 'paid', 'failed', 'cancelled', ...REFUNDS],
  requires_action: ['pending', 'authorized', 'paid', 'failed', 'cancelled', ...REFUNDS],
  authorized: ['paid', 'failed', 'cancelled', ...REFUNDS],
  failed: ['pending', 'requires_action', 'authorized', 'paid', 'cancelled', ...REFUNDS],
  paid: [...REFUNDS],
  partially_refunded: [...REFUNDS],
  refunded: [],
  cancelled: [],
};

export function canMove(from: PaymentStatus, to: PaymentStatus): boolean {
  return MOVES[from].includes(to);
}

/** In flight: the customer or the bank is acting; the order must not expire under it. */
export const IN_FLIGHT: readonly PaymentStatus[] = ['requires_action', 'authorized'];

/** The order's payment_status that follows a payment's status. */
export function orderPaymentStatusOf(status: PaymentStatus): OrderPaymentStatus {
  switch (status) {
    case 'paid':
    case 'failed':
    case 'refunded':
    case 'partially_refunded':
      return status;
    default:
      return 'pending';
  }
}
