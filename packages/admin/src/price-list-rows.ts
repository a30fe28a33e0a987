import type { Schemas } from '@commerce/sdk';

type ListPrice = Schemas['PriceListPriceDto'];

/** A price of a price list as the form holds it: what it prices (a product or a variant, by id), as typed. */
export type PriceRow = { target: 'product' | 'variant'; id: string; currency: string; amount: string };

/** An API date-time as a datetime-local input shows it (the browser's time zone), '' for none. */
export function localInputOf(iso: string | null): string {
  if (iso === null) return '';
  const date = new Date(iso);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** A datetime-local input's value as the API takes it (UTC, with its zone); null when empty. */
export function isoOfLocalInput(value: string): string | null {
  return value === '' ? null : new Date(value).toISOString();
}

/**
 * The `prices` of a write, in the form's order so that the API's `prices.N.…` errors name row N. An empty
 * amount or id goes as NaN (null in JSON) for the API to refuse.
 */
export function listPricesBody(rows: readonly PriceRow[]): ListPrice[] {
  const number = (text: string) => (text.trim() === '' ? Number.NaN : Number(text));
  return rows.map((row) => ({
    ...(row.target === 'product' ? { product_id: number(row.id) } : { variant_id: number(row.id) }),
    currency_code: row.currency.trim().toLowerCase(),
    amount: number(row.amount),
  }));
}

/** The user ids typed in a field: numbers separated by commas or spaces (anything else goes to the API as is). */
export function userIdList(text: string): number[] {
  return text
    .split(/[\s,]+/)
    .filter((part) => part !== '')
    .map(Number);
}
