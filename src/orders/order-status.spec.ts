import { describe, expect, it } from '@jest/globals';
import { fulfillmentStatusOf, nextOrderState } from './order-status.js';
import { newOrderNumber } from './order-number.js';

describe('nextOrderState', () => {
  const pending = { status: 'pending', paymentStatus: 'pending' } as const;
  const paid = { status: 'paid', paymentStatus: 'paid' } as const;

  it.each([
    [pending, { paymentStatus: 'paid' }, { status: 'pending', paymentStatus: 'paid' }],
    [pending, { status: 'paid', paymentStatus: 'paid' }, paid],
    [pending, { status: 'cancelled' }, { status: 'cancelled', paymentStatus: 'pending' }],
    [paid, { status: 'shipped' }, { status: 'shipped', paymentStatus: 'paid' }],
    [
      paid,
      { status: 'cancelled', paymentStatus: 'refunded' },
      { status: 'cancelled', paymentStatus: 'refunded' },
    ],
    [
      { status: 'shipped', paymentStatus: 'paid' },
      { status: 'completed' },
      { status: 'completed', paymentStatus: 'paid' },
    ],
    [
      { status: 'completed', paymentStatus: 'paid' },
      { paymentStatus: 'refunded' },
      { status: 'completed', paymentStatus: 'refunded' },
    ],
    [
      { status: 'cancelled', paymentStatus: 'paid' },
      { paymentStatus: 'refunded' },
      { status: 'cancelled', paymentStatus: 'refunded' },
    ],
    [pending, { paymentStatus: 'failed' }, { status: 'pending', paymentStatus: 'failed' }],
    [
      { status: 'pending', paymentStatus: 'failed' },
      { paymentStatus: 'paid' },
      { status: 'pending', paymentStatus: 'paid' },
    ],
  ] as const)('allows %j + %j', (current, change, expected) => {
    expect(nextOrderState(current, change)).toEqual(expected);
  });

  it('refuses to cancel an order whose payment is taken before it is refunded', () => {
    expect(nextOrderState(paid, { status: 'cancelled' })).toEqual({
      field: 'status',
      rule: 'refundRequired',
      message: 'a paid order is refunded before it is cancelled',
    });
  });

  const cancelled = (paymentStatus: 'pending' | 'failed' | 'paid') =>
    ({ status: 'cancelled', paymentStatus }) as const;

  it.each([
    [pending, { status: 'shipped' }, 'status', 'transition', 'status cannot change from pending to shipped'],
    [pending, { status: 'paid' }, 'status', 'paymentRequired', 'status paid requires payment_status paid'],
    [paid, { status: 'pending' }, 'status', 'transition', 'status cannot change from paid to pending'],
    [
      cancelled('pending'),
      { status: 'paid' },
      'status',
      'transition',
      'status cannot change from cancelled to paid',
    ],
    [
      { status: 'completed', paymentStatus: 'paid' },
      { status: 'cancelled' },
      'status',
      'transition',
      'status cannot change from completed to cancelled',
    ],
    [
      paid,
      { paymentStatus: 'refunded' },
      'payment_status',
      'refundRequiresEnd',
      'payment_status refunded requires status cancelled or completed',
    ],
    [
      pending,
      { paymentStatus: 'refunded' },
      'payment_status',
      'transition',
      'payment_status cannot change from pending to refunded',
    ],
    [
      { status: 'cancelled', paymentStatus: 'refunded' },
      { paymentStatus: 'paid' },
      'payment_status',
      'transition',
      'payment_status cannot change from refunded to paid',
    ],
    // A cancelled order takes no payment: only a refund of what was paid.
    ...(['pending', 'failed'] as const).map(
      (from) =>
        [
          cancelled(from),
          { paymentStatus: 'paid' },
          'payment_status',
          'cancelledOrder',
          'payment_status cannot become paid on a cancelled order',
        ] as const,
    ),
    [
      cancelled('pending'),
      { paymentStatus: 'failed' },
      'payment_status',
      'cancelledOrder',
      'payment_status cannot become failed on a cancelled order',
    ],
    [
      pending,
      { status: 'cancelled', paymentStatus: 'paid' },
      'payment_status',
      'cancelledOrder',
      'payment_status cannot become paid on a cancelled order',
    ],
    [
      { status: 'pending', paymentStatus: 'failed' },
      { status: 'cancelled', paymentStatus: 'paid' },
      'payment_status',
      'cancelledOrder',
      'payment_status cannot become paid on a cancelled order',
    ],
    [
      pending,
      { status: 'pending' },
      'status',
      'unchanged',
      'the order already has this status and payment_status',
    ],
    [
      pending,
      { paymentStatus: 'pending' },
      'payment_status',
      'unchanged',
      'the order already has this status and payment_status',
    ],
  ] as const)('refuses %j + %j: %s %s', (current, change, field, rule, message) => {
    expect(nextOrderState(current, change)).toEqual({ field, rule, message });
  });

  it.each([
    [cancelled('paid'), { paymentStatus: 'refunded' }, { status: 'cancelled', paymentStatus: 'refunded' }],
    [
      paid,
      { status: 'cancelled', paymentStatus: 'refunded' },
      { status: 'cancelled', paymentStatus: 'refunded' },
    ],
    [pending, { status: 'cancelled' }, { status: 'cancelled', paymentStatus: 'pending' }],
  ] as const)(
    'lets a cancelled order be refunded, and cancelling keep the payment: %j + %j',
    (current, change, expected) => {
      expect(nextOrderState(current, change)).toEqual(expected);
    },
  );
});

describe('newOrderNumber', () => {
  it('is ORD-<UTC date>-<8 Crockford base-32 characters> and random', () => {
    const at = new Date('2026-11-22T23:59:59Z');
    const numbers = new Set(Array.from({ length: 1000 }, () => newOrderNumber(at)));
    expect(numbers.size).toBe(1000);
    for (const n of numbers) expect(n).toMatch(/^ORD-20261122-[0-9A-HJKMNP-TV-Z]{8}$/);
  });
});

describe('fulfillmentStatusOf', () => {
  it('is not_fulfilled with no unit shipped, partially_fulfilled with some, fulfilled with all', () => {
    expect(fulfillmentStatusOf(3, 0)).toBe('not_fulfilled');
    expect(fulfillmentStatusOf(3, 1)).toBe('partially_fulfilled');
    expect(fulfillmentStatusOf(3, 2)).toBe('partially_fulfilled');
    expect(fulfillmentStatusOf(3, 3)).toBe('fulfilled');
  });
});
