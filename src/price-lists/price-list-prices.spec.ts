import { describe, expect, it } from '@jest/globals';
import { type ListEntry, ListPrices } from './price-list-prices.js';

const entry = (
  priceListId: number,
  type: ListEntry['type'],
  amount: number,
  target: object = {},
): ListEntry => ({
  priceListId,
  type,
  productId: 1,
  variantId: null,
  amount,
  ...target,
});
const product = { productId: 1, variantId: null };

describe('ListPrices', () => {
  it('no base, no price; no list, the base', () => {
    expect(new ListPrices([entry(1, 'sale', 5)]).of(product, null)).toBeNull();
    expect(new ListPrices([]).of(product, 2000)).toEqual({
      price: 2000,
      originalPrice: 2000,
      priceListId: null,
    });
  });

  it('sale: the lowest of the base and the sale prices; a tie keeps the base, then the lowest list id', () => {
    const lists = new ListPrices([entry(3, 'sale', 1500), entry(2, 'sale', 1200), entry(4, 'sale', 1200)]);
    expect(lists.of(product, 2000)).toEqual({ price: 1200, originalPrice: 2000, priceListId: 2 });
    expect(new ListPrices([entry(1, 'sale', 2000)]).of(product, 2000)?.priceListId).toBeNull();
    expect(new ListPrices([entry(1, 'sale', 2500)]).of(product, 2000)?.price).toBe(2000);
  });

  it('override: replaces the base (the lowest of several); a sale below it still wins', () => {
    const overrides = [entry(5, 'override', 2600), entry(6, 'override', 2400)];
    expect(new ListPrices(overrides).of(product, 2000)).toEqual({
      price: 2400,
      originalPrice: 2000,
      priceListId: 6,
    });
    expect(new ListPrices([...overrides, entry(7, 'sale', 2500)]).of(product, 2000)?.priceListId).toBe(6);
    expect(new ListPrices([...overrides, entry(8, 'sale', 2100)]).of(product, 2000)).toEqual({
      price: 2100,
      originalPrice: 2000,
      priceListId: 8,
    });
  });

  it("a variant takes its list's variant price, else the list's price of its product; other products' are ignored", () => {
    const lists = new ListPrices([
      entry(1, 'sale', 900),
      entry(1, 'sale', 950, { productId: null, variantId: 7 }),
      entry(2, 'sale', 100, { productId: 2 }),
    ]);
    expect(lists.of({ productId: 1, variantId: 7 }, 1000)?.price).toBe(950);
    expect(lists.of({ productId: 1, variantId: 8 }, 1000)?.price).toBe(900);
    expect(lists.of(product, 1000)?.price).toBe(900);
  });
});
