import { describe, expect, it } from '@jest/globals';
import { isoOfLocalInput, listPricesBody, localInputOf, userIdList } from '../src/price-list-rows';

describe('price list form rows', () => {
  it('a row prices a product or a variant; empty ids and amounts go as NaN for the API to refuse', () => {
    expect(
      listPricesBody([
        { target: 'product', id: '12', currency: 'EUR ', amount: '14.99' },
        { target: 'variant', id: '', currency: 'usd', amount: '' },
      ]),
    ).toEqual([
      { product_id: 12, currency_code: 'eur', amount: 14.99 },
      { variant_id: Number.NaN, currency_code: 'usd', amount: Number.NaN },
    ]);
  });

  it('dates go to the API in UTC and come back to the input as they were typed; empty is null', () => {
    expect(isoOfLocalInput('')).toBeNull();
    expect(localInputOf(null)).toBe('');
    expect(localInputOf(isoOfLocalInput('2026-11-27T09:30'))).toBe('2026-11-27T09:30');
  });

  it('user ids separated by commas or spaces', () => {
    expect(userIdList(' 7, 12  3,')).toEqual([7, 12, 3]);
    expect(userIdList('')).toEqual([]);
  });
});
