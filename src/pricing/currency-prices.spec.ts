import { describe, expect, it } from '@jest/globals';
import {
  calculatedPrice,
  currencyPriceList,
  isCurrencyCode,
  pricesWrite,
  unitPriceIn,
} from './currency-prices.js';

const RANGE = { minCents: 1, maxCents: 999_999_999 };

describe('unitPriceIn', () => {
  it('gives price_cents for the default currency, whatever the map says', () => {
    expect(unitPriceIn('usd', 'usd', 1999, null)).toBe(1999);
    expect(unitPriceIn('usd', 'usd', 1999, { usd: 5 })).toBe(1999);
  });

  it("gives another currency's amount from the map, as an object or as the column's JSON text", () => {
    expect(unitPriceIn('eur', 'usd', 1999, { eur: 1850, jpy: 2900 })).toBe(1850);
    expect(unitPriceIn('jpy', 'usd', 1999, '{"eur":1850,"jpy":2900}')).toBe(2900);
    expect(unitPriceIn('eur', 'usd', 1999, { eur: 0 })).toBe(0);
  });

  it('is null when there is no price in that currency', () => {
    expect(unitPriceIn('eur', 'usd', 1999, null)).toBeNull();
    expect(unitPriceIn('gbp', 'usd', 1999, '{"eur":1850}')).toBeNull();
  });
});

describe('currencyPriceList', () => {
  it("lists the default currency first, then the others by code, in each currency's major units", () => {
    expect(currencyPriceList('usd', 1999, '{"jpy":2900,"eur":1850,"kwd":6125}')).toEqual([
      { currency_code: 'usd', amount: 19.99 },
      { currency_code: 'eur', amount: 18.5 },
      { currency_code: 'jpy', amount: 2900 },
      { currency_code: 'kwd', amount: 6.125 },
    ]);
    expect(currencyPriceList('usd', 1999, null)).toEqual([{ currency_code: 'usd', amount: 19.99 }]);
  });
});

describe('isCurrencyCode', () => {
  it('accepts lower-case ISO 4217 codes only', () => {
    expect(['eur', 'jpy', 'usd', 'kwd'].every(isCurrencyCode)).toBe(true);
    expect(['EUR', 'xyz', 'eu', 'euro', 7, null].some(isCurrencyCode)).toBe(false);
  });
});

describe('pricesWrite', () => {
  it('splits the default currency (price) from the others, in minor units', () => {
    const { write, problems } = pricesWrite(
      [
        { currency_code: 'eur', amount: 18.5 },
        { currency_code: 'usd', amount: 19.99 },
        { currency_code: 'jpy', amount: 2900 },
      ],
      'usd',
      undefined,
      RANGE,
    );
    expect(problems).toEqual([]);
    expect(write).toEqual({ defaultAmount: 1999, others: { eur: 1850, jpy: 2900 } });
    expect(pricesWrite([], 'usd', 1999, RANGE).write).toEqual({ defaultAmount: undefined, others: null });
  });

  it('refuses a currency twice, a default amount other than price, and one out of price bounds', () => {
    const twice = pricesWrite(
      [
        { currency_code: 'eur', amount: 1 },
        { currency_code: 'eur', amount: 2 },
      ],
      'usd',
      undefined,
      RANGE,
    );
    expect(twice.problems).toEqual([
      expect.objectContaining({ field: 'prices.1.currency_code', rule: 'unique' }),
    ]);
    const mismatch = pricesWrite([{ currency_code: 'usd', amount: 19.99 }], 'usd', 2000, RANGE);
    expect(mismatch.problems).toEqual([expect.objectContaining({ field: 'prices', rule: 'matchesPrice' })]);
    expect(pricesWrite([{ currency_code: 'usd', amount: 19.99 }], 'usd', 1999, RANGE).problems).toEqual([]);
    const zero = pricesWrite([{ currency_code: 'usd', amount: 0 }], 'usd', undefined, RANGE);
    expect(zero.problems).toEqual([expect.objectContaining({ field: 'prices.0.amount', rule: 'min' })]);
  });
});

describe('calculatedPrice', () => {
  it("is the price in the region's currency, or null without one", () => {
    const prices = currencyPriceList('usd', 1999, { eur: 1850 });
    expect(calculatedPrice(prices, { currencyCode: 'eur', pricesIncludeTax: true })).toEqual({
      amount: 18.5,
      original_amount: 18.5,
      currency_code: 'eur',
      price_list_id: null,
      includes_tax: true,
    });
    expect(calculatedPrice(prices, { currencyCode: 'jpy', pricesIncludeTax: false })).toBeNull();
  });
});
