import type { Schemas } from '@commerce/sdk';

type CurrencyPrice = Schemas['CurrencyPriceDto'];

/** A price in a currency other than the default, as the form holds it: the code upper-case, the amount as typed. */
export type PriceRow = { currency: string; amount: string };

/** The rows of a record's `prices` after the default currency's (the API lists that one first: it is `price`). */
export function otherPriceRows(prices: readonly CurrencyPrice[]): PriceRow[] {
  return prices.slice(1).map((price) => ({
    currency: price.currency_code.toUpperCase(),
    amount: String(price.amount),
  }));
}

/**
 * The `prices` of a write: the other currencies' rows in the form's order, so that the API's `prices.N.…` errors
 * name row N. An amount left empty goes as NaN (null in JSON) for the API to refuse, never as 0.
 */
export function pricesBody(rows: readonly PriceRow[]): CurrencyPrice[] {
  return rows.map((row) => ({
    currency_code: row.currency.trim().toLowerCase(),
    amount: row.amount.trim() === '' ? Number.NaN : Number(row.amount),
  }));
}

/** Whether the rows say what `prices` (the record's, default currency first) already holds. */
export function samePrices(rows: readonly PriceRow[], prices: readonly CurrencyPrice[]): boolean {
  return JSON.stringify(pricesBody(rows)) === JSON.stringify(prices.slice(1));
}
