import type { Schemas } from '@commerce/sdk';
import { minorDigits, startOfLocalDay, startOfNextLocalDay } from './format';

export type AdminOrder = Schemas['AdminOrderResponseDto'];

export const ORDER_STATUSES = ['pending', 'paid', 'shipped', 'completed', 'cancelled'] as const;
export const ORDER_SORTS = ['-created_at', 'created_at', '-total_amount', 'total_amount'] as const;
export type OrderSort = (typeof ORDER_SORTS)[number];

export const PAYMENT_STATUSES = ['pending', 'paid', 'failed', 'refunded', 'partially_refunded'] as const;

/** The order list's filters as the form holds them: dates are local days (`2026-11-25`), '' is no filter. */
export interface OrderFilters {
  status: '' | (typeof ORDER_STATUSES)[number];
  payment_status: '' | (typeof PAYMENT_STATUSES)[number];
  search: string;
  from: string;
  to: string;
}

export const NO_FILTERS: OrderFilters = { status: '', payment_status: '', search: '', from: '', to: '' };

/** The query of `GET /admin/orders` for the filters: `to` includes its whole local day. */
export function orderQuery(filters: OrderFilters) {
  return {
    ...(filters.status !== '' && { status: filters.status }),
    ...(filters.payment_status !== '' && { payment_status: filters.payment_status }),
    ...(filters.search.trim() !== '' && { search: filters.search.trim() }),
    ...(filters.from !== '' && { created_from: startOfLocalDay(filters.from) }),
    ...(filters.to !== '' && { created_to: startOfNextLocalDay(filters.to) }),
  };
}

/** Filters from the page's URL query, ignoring values the API would not take. */
export function filtersFromSearch(search: URLSearchParams): OrderFilters {
  const pick = <T extends string>(value: string | null, allowed: readonly T[]): '' | T =>
    allowed.includes(value as T) ? (value as T) : '';
  const day = (value: string | null) => (value !== null && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : '');
  return {
    status: pick(search.get('status'), ORDER_STATUSES),
    payment_status: pick(search.get('payment_status'), PAYMENT_STATUSES),
    search: search.get('search') ?? '',
    from: day(search.get('from')),
    to: day(search.get('to')),
  };
}

/** Whether an order pushed by the `orders` channel belongs in the list the filters show (as the API would decide). */
export function orderMatches(order: AdminOrder, filters: OrderFilters): boolean {
  if (filters.status !== '' && order.status !== filters.status) return false;
  if (filters.payment_status !== '' && order.payment_status !== filters.payment_status) return false;
  const created = Date.parse(order.created_at);
  if (filters.from !== '' && created < Date.parse(startOfLocalDay(filters.from))) return false;
  if (filters.to !== '' && created >= Date.parse(startOfNextLocalDay(filters.to))) return false;
  const search = filters.search.trim().toLowerCase();
  if (search === '') return true;
  const owner = order.user as { username?: string; email?: string } | null;
  return [order.order_number, owner?.username, owner?.email ?? order.email]
    .filter((text): text is string => typeof text === 'string')
    .some((text) => text.toLowerCase().includes(search));
}

/**
 * A live frame applied to the first page of the list, newest first: a known order is replaced, or dropped when
 * it no longer matches; a new matching order goes on top. `null` when only a new read can tell (an order not on
 * the page that now matches the filters, or a page other than the newest first one).
 */
export function applyLiveOrder(
  list: { rows: AdminOrder[]; page: number; sort: OrderSort; pageSize: number },
  order: AdminOrder,
  created: boolean,
  filters: OrderFilters,
): { rows: AdminOrder[]; totalChange: number } | null {
  const matches = orderMatches(order, filters);
  const { rows } = list;
  if (rows.some((row) => row.id === order.id)) {
    if (matches) return { rows: rows.map((row) => (row.id === order.id ? order : row)), totalChange: 0 };
    return null;
  }
  if (!matches) return { rows, totalChange: 0 };
  if (!created || list.page !== 1 || list.sort !== '-created_at') return null;
  return { rows: [order, ...rows].slice(0, list.pageSize), totalChange: 1 };
}

/**
 * The sum of orders' totals per currency (orders of different regions are in different currencies, which do not
 * add up), each added in the currency's minor units: the currencies in order of first appearance.
 */
export function totalsByCurrency(
  orders: readonly { total: number; currency_code: string }[],
): { currency: string; amount: number }[] {
  const sums = new Map<string, number>();
  for (const order of orders) {
    const scale = 10 ** minorDigits(order.currency_code);
    sums.set(order.currency_code, (sums.get(order.currency_code) ?? 0) + Math.round(order.total * scale));
  }
  return [...sums].map(([currency, minor]) => ({ currency, amount: minor / 10 ** minorDigits(currency) }));
}
