import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { priceDocument, unitShares } from '../pricing/calculator.js';
import {
  OPEN_TERMS,
  PROMOTION_TYPES,
  promotionsAdjuster,
  type PromotionTerms,
  type Shopper,
  spread,
} from './promotion-rules.js';

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

const shopper: Shopper = {
  now: new Date('2026-11-28T08:00:00.000Z'),
  groups: [],
  earlierOrders: 0,
  usesOf: () => 0,
  inCategories: () => false,
};

const terms = (overrides: Partial<PromotionTerms>): PromotionTerms => ({
  id: 1,
  code: 'CODE',
  description: '',
  type: 'percentage',
  value: 10,
  currencyCode: null,
  target: 'order',
  ...OPEN_TERMS,
  usedCount: 0,
  ...overrides,
});

const promotion: fc.Arbitrary<PromotionTerms> = fc
  .record({
    type: fc.constantFrom(...PROMOTION_TYPES),
    percent: fc.integer({ min: 0, max: 1_000_000 }).map((scaled) => scaled / 10_000),
    amount: fc.integer({ min: 0, max: 100_000 }).map((cents) => cents / 100),
    target: fc.constantFrom('order' as const, 'items' as const),
    products: fc.option(fc.uniqueArray(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 3 }), {
      nil: null,
    }),
    buy: fc.integer({ min: 1, max: 3 }),
    get: fc.integer({ min: 1, max: 2 }),
    combinable: fc.boolean(),
  })
  .map((r) =>
    terms({
      type: r.type,
      value: r.type === 'percentage' ? r.percent : r.type === 'fixed' ? r.amount : null,
      currencyCode: r.type === 'fixed' ? 'usd' : null,
      target: r.target,
      productIds: r.products,
      buyQuantity: r.type === 'buy_x_get_y' ? r.buy : null,
      getQuantity: r.type === 'buy_x_get_y' ? r.get : null,
      getPercentage: r.type === 'buy_x_get_y' ? r.percent : null,
      combinable: r.combinable,
    }),
  );

const cart = fc.record({
  pricesIncludeTax: fc.boolean(),
  lines: fc.array(
    fc.record({
      productId: fc.integer({ min: 1, max: 6 }),
      price: fc.integer({ min: 0, max: 1_000_000 }),
      quantity: fc.integer({ min: 1, max: 20 }),
    }),
    { minLength: 1, maxLength: 8 },
  ),
  shipping: fc.option(fc.integer({ min: 0, max: 10_000 }), { nil: null }),
  rate: fc.integer({ min: 0, max: 250_000 }).map((scaled) => scaled / 10_000),
  promotions: fc.array(promotion, { maxLength: 5 }),
});

describe('promotion rules', () => {
  it('spreads an amount over lines exactly, in proportion, never past a line', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 10_000_000 }), { minLength: 1, maxLength: 10 }),
        fc.nat(),
        (remaining, seed) => {
          const whole = sum(remaining);
          const total = whole === 0 ? 0 : seed % (whole + 1);
          const shares = spread(total, remaining);
          expect(sum(shares)).toBe(total);
          shares.forEach((share, i) => {
            expect(share).toBeGreaterThanOrEqual(0);
            expect(share).toBeLessThanOrEqual(remaining[i]);
            // Within one minor unit of the exact share.
            if (whole > 0) expect(Math.abs(share - (total * remaining[i]) / whole)).toBeLessThan(1);
          });
        },
      ),
    );
    expect(spread(1000, [1000, 2000, 333])).toEqual([300, 600, 100]);
  });

  it('with random promotions the invariant holds, nothing is negative, and the discounts add up', () => {
    fc.assert(
      fc.property(cart, (r) => {
        const promotions = r.promotions.map((p, i) => ({ ...p, id: i + 1, code: `C${i + 1}` }));
        const priced = priceDocument({
          currency: 'usd',
          pricesIncludeTax: r.pricesIncludeTax,
          lines: r.lines.map((line, i) => ({ id: i, ...line, taxClass: 'standard' })),
          shipping: r.shipping === null ? null : { amount: r.shipping, taxClass: 'standard' },
          taxRates: () => [{ code: 'T', name: 'Tax', rate: r.rate }],
          adjusters: [promotionsAdjuster('promotions', promotions, shopper)],
        });
        const tax = priced.pricesIncludeTax ? 0 : priced.taxTotal;
        expect(priced.total).toBe(priced.subtotal - priced.discountTotal + priced.shippingTotal + tax);
        for (const line of priced.lines) {
          expect(line.discountTotal).toBeGreaterThanOrEqual(0);
          expect(line.discountTotal).toBeLessThanOrEqual(line.lineTotal);
          expect(line.total).toBeGreaterThanOrEqual(0);
          // Refunding every unit repays exactly what the line cost.
          expect(sum(unitShares(line.total, line.quantity))).toBe(line.total);
        }
        expect(priced.shipping.total).toBeGreaterThanOrEqual(0);
        expect(sum(priced.discounts.map((discount) => discount.amount))).toBe(priced.discountTotal);
        // Every code is listed once; a non-combinable one that applies applies alone.
        expect(priced.discounts.map((discount) => discount.promotionId).sort()).toEqual(
          promotions.map((p) => p.id).sort(),
        );
        const applying = priced.discounts.filter((discount) => discount.applies);
        const alone = applying.filter((discount) => !promotions[discount.promotionId - 1].combinable);
        if (alone.length > 0) expect(applying).toHaveLength(1);
      }),
    );
  });

  it('applies items first, then the order, then shipping; the best deal wins', () => {
    const adjuster = promotionsAdjuster(
      'promotions',
      [
        terms({ id: 1, code: 'FIVEOFF', type: 'fixed', value: 5, currencyCode: 'usd' }),
        terms({ id: 2, code: 'ITEMS10', target: 'items' }),
        terms({ id: 3, code: 'SOLO12', value: 12, combinable: false }),
      ],
      shopper,
    );
    const priced = priceDocument({
      currency: 'usd',
      pricesIncludeTax: false,
      lines: [{ id: 1, productId: 1, price: 5000, quantity: 2, taxClass: 'standard' }],
      shipping: null,
      taxRates: () => [],
      adjusters: [adjuster],
    });
    expect(priced.discountTotal).toBe(1500);
    expect(priced.discounts.map((d) => [d.code, d.amount, d.refusal])).toEqual([
      ['FIVEOFF', 500, null],
      ['ITEMS10', 1000, null],
      ['SOLO12', 0, 'notCombinable'],
    ]);
  });
});
