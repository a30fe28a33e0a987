import { describe, expect, it } from '@jest/globals';
import {
  applyLiveOrder,
  filtersFromSearch,
  NO_FILTERS,
  orderMatches,
  orderQuery,
  type AdminOrder,
} from '../src/orders';

function order(changes: Partial<AdminOrder> = {}): AdminOrder {
  return {
    id: 1,
    order_number: 'ORD-20261125-7KQ2M9XD',
    total_amount: 59.97,
    status: 'pending',
    shipping_address: '1 Main St',
    payment_method: 'bank_transfer',
    payment_status: 'pending',
    shipping_total: 0,
    email: null,
    shipping_address_details: null,
    created_at: new Date(2026, 10, 25, 10, 0).toISOString(),
    updated_at: new Date(2026, 10, 25, 10, 0).toISOString(),
    user: { id: 7, username: 'alice', email: 'alice@example.com' },
    ...changes,
  } as AdminOrder;
}

const list = (rows: AdminOrder[], changes: Partial<Parameters<typeof applyLiveOrder>[0]> = {}) => ({
  rows,
  page: 1,
  sort: '-created_at' as const,
  pageSize: 2,
  ...changes,
});

describe('orderQuery: the filters as GET /admin/orders takes them', () => {
  it('leaves out empty filters and trims the search', () => {
    expect(orderQuery(NO_FILTERS)).toEqual({});
    expect(orderQuery({ ...NO_FILTERS, status: 'paid', search: '  alice ' })).toEqual({
      status: 'paid',
      search: 'alice',
    });
  });

  it('takes the To day whole: created_to is the start of the next local day (exclusive)', () => {
    const query = orderQuery({ ...NO_FILTERS, from: '2026-11-30', to: '2026-11-30' });
    const from = new Date(query.created_from!);
    const to = new Date(query.created_to!);
    expect([from.getFullYear(), from.getMonth(), from.getDate(), from.getHours()]).toEqual([2026, 10, 30, 0]);
    expect([to.getFullYear(), to.getMonth(), to.getDate(), to.getHours()]).toEqual([2026, 11, 1, 0]);
  });
});

describe('filtersFromSearch: filters kept in the URL', () => {
  it('reads known values and drops what the API would refuse', () => {
    const filters = filtersFromSearch(
      new URLSearchParams('status=paid&payment_status=bogus&from=2026-11-01&to=nope'),
    );
    expect(filters).toEqual({ ...NO_FILTERS, status: 'paid', from: '2026-11-01' });
  });
});

describe('orderMatches: a live order against the filters shown', () => {
  it('matches status, payment status and the search in number, username or e-mail (case-insensitive)', () => {
    expect(orderMatches(order(), { ...NO_FILTERS, status: 'pending' })).toBe(true);
    expect(orderMatches(order(), { ...NO_FILTERS, status: 'paid' })).toBe(false);
    expect(orderMatches(order(), { ...NO_FILTERS, payment_status: 'failed' })).toBe(false);
    expect(orderMatches(order(), { ...NO_FILTERS, search: '7kq2' })).toBe(true);
    expect(orderMatches(order(), { ...NO_FILTERS, search: 'ALICE@' })).toBe(true);
    expect(orderMatches(order(), { ...NO_FILTERS, search: 'bob' })).toBe(false);
  });

  it("searches a guest order's e-mail", () => {
    const guest = order({ user: null, email: 'guest@example.com' } as Partial<AdminOrder>);
    expect(orderMatches(guest, { ...NO_FILTERS, search: 'guest@' })).toBe(true);
  });

  it('keeps to the dates: from inclusive, to the end of its day', () => {
    expect(orderMatches(order(), { ...NO_FILTERS, from: '2026-11-25', to: '2026-11-25' })).toBe(true);
    expect(orderMatches(order(), { ...NO_FILTERS, from: '2026-11-26' })).toBe(false);
    expect(orderMatches(order(), { ...NO_FILTERS, to: '2026-11-24' })).toBe(false);
  });
});

describe('applyLiveOrder: frames of the orders channel applied to the list', () => {
  const older = order({ id: 1 });
  const newer = order({ id: 2, order_number: 'ORD-20261125-AAAAAAAA' });

  it('puts a new matching order on top of the newest-first first page, keeping the page size', () => {
    const placed = order({ id: 3 });
    expect(applyLiveOrder(list([newer, older]), placed, true, NO_FILTERS)).toEqual({
      rows: [placed, newer],
      totalChange: 1,
    });
  });

  it('ignores a new order the filters do not show', () => {
    const placed = order({ id: 3 });
    expect(applyLiveOrder(list([newer]), placed, true, { ...NO_FILTERS, status: 'paid' })).toEqual({
      rows: [newer],
      totalChange: 0,
    });
  });

  it('replaces an order on the page by its new state', () => {
    const paid = order({ id: 1, status: 'paid', payment_status: 'paid' });
    expect(applyLiveOrder(list([newer, older]), paid, false, NO_FILTERS)).toEqual({
      rows: [newer, paid],
      totalChange: 0,
    });
  });

  it('asks for a new read where the page cannot be patched', () => {
    const paid = order({ id: 1, status: 'paid' });
    // leaves the filter: the page must be refilled from the API
    expect(applyLiveOrder(list([older]), paid, false, { ...NO_FILTERS, status: 'pending' })).toBeNull();
    // an order not on the page now matches: only the API knows where it goes
    expect(applyLiveOrder(list([newer]), paid, false, { ...NO_FILTERS, status: 'paid' })).toBeNull();
    // a new order on page 2, or in another order than newest first
    expect(applyLiveOrder(list([newer], { page: 2 }), order({ id: 3 }), true, NO_FILTERS)).toBeNull();
    expect(
      applyLiveOrder(list([newer], { sort: 'total_amount' }), order({ id: 3 }), true, NO_FILTERS),
    ).toBeNull();
  });
});
