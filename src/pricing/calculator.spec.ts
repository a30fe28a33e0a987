import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  type Adjuster,
  minorUnits,
  priceDocument,
  type PricingInput,
  roundHalfEven,
  taxesOf,
  unitShares,
} from './calculator.js';

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** A percentage off every line (rounded half to even per line), as a promotion adjuster would give. */
const percentOff = (percent: number): Adjuster => ({
  name: 'percent-off',
  adjust: ({ lines }) =>
    lines.map((line) => ({
      lineId: line.id,
      amount: roundHalfEven(BigInt(line.remaining) * BigInt(percent), 100n),
      code: `P${percent}`,
    })),
});

/** A fixed amount off the shipping, as a free-shipping promotion would give (capped by the calculator). */
const shippingOff = (amount: number): Adjuster => ({
  name: 'shipping-off',
  adjust: () => [{ lineId: null, amount, code: 'SHIP' }],
});

const rate = fc.integer({ min: 0, max: 300_000 }).map((scaled) => scaled / 10_000);
const input: fc.Arbitrary<PricingInput> = fc
  .record({
    currency: fc.constantFrom('usd', 'eur', 'jpy', 'krw', 'kwd'),
    pricesIncludeTax: fc.boolean(),
    lines: fc.array(
      fc.record({
        price: fc.integer({ min: 0, max: 10_000_000 }),
        quantity: fc.integer({ min: 1, max: 100 }),
        taxClass: fc.constantFrom('standard', 'reduced', 'zero'),
      }),
      { minLength: 1, maxLength: 20 },
    ),
    shipping: fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: null }),
    standard: fc.array(rate, { minLength: 0, maxLength: 2 }),
    reduced: rate,
    percent: fc.option(fc.integer({ min: 0, max: 100 }), { nil: null }),
    shippingDiscount: fc.option(fc.integer({ min: 0, max: 200_000 }), { nil: null }),
    giftCard: fc.integer({ min: 0, max: 100_000_000 }),
  })
  .map((r) => ({
    currency: r.currency,
    pricesIncludeTax: r.pricesIncludeTax,
    lines: r.lines.map((line, i) => ({ id: i + 1, ...line })),
    shipping: r.shipping === null ? null : { amount: r.shipping, taxClass: 'standard' },
    taxRates: ({ taxClass }: { taxClass: string }) =>
      taxClass === 'zero'
        ? []
        : taxClass === 'reduced'
          ? [{ code: 'R', name: 'Reduced', rate: r.reduced }]
          : r.standard.map((value, i) => ({ code: `S${i}`, name: `Standard ${i}`, rate: value })),
    adjusters: [
      ...(r.percent === null ? [] : [percentOff(r.percent)]),
      ...(r.shippingDiscount === null ? [] : [shippingOff(r.shippingDiscount)]),
    ],
    giftCardBalance: r.giftCard,
  }));

describe('the calculator', () => {
  it('holds the totals invariant to the minor unit on thousands of random carts', () => {
    fc.assert(
      fc.property(input, (cart) => {
        const priced = priceDocument(cart);
        const tax = priced.pricesIncludeTax ? 0 : priced.taxTotal;
        expect(priced.total).toBe(priced.subtotal - priced.discountTotal + priced.shippingTotal + tax);
        expect(priced.amountDue).toBe(priced.total - priced.giftCardTotal);
        expect(priced.amountDue).toBeGreaterThanOrEqual(0);
        // The lines and the shipping add up to the document.
        expect(sum(priced.lines.map((l) => l.lineTotal))).toBe(priced.subtotal);
        expect(sum(priced.lines.map((l) => l.discountTotal)) + priced.shipping.discountTotal).toBe(
          priced.discountTotal,
        );
        expect(sum(priced.lines.map((l) => l.taxTotal)) + priced.shipping.taxTotal).toBe(priced.taxTotal);
        expect(sum(priced.lines.map((l) => l.total)) + priced.shipping.total).toBe(priced.total);
        for (const line of priced.lines) {
          expect(line.lineTotal).toBe(line.price * line.quantity);
          expect(line.discountTotal).toBeGreaterThanOrEqual(0);
          expect(line.discountTotal).toBeLessThanOrEqual(line.lineTotal);
          expect(sum(line.adjustments.map((a) => a.amount))).toBe(line.discountTotal);
          expect(sum(line.taxLines.map((t) => t.amount))).toBe(line.taxTotal);
          expect(line.taxTotal).toBeGreaterThanOrEqual(0);
          // Tax taken out of a gross amount never exceeds it.
          if (priced.pricesIncludeTax) expect(line.taxTotal).toBeLessThanOrEqual(line.total);
          for (const value of [line.total, line.taxTotal, line.discountTotal]) {
            expect(Number.isSafeInteger(value)).toBe(true);
          }
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("refunding each line one unit at a time repays exactly the line's total", () => {
    fc.assert(
      fc.property(input, (cart) => {
        const priced = priceDocument(cart);
        for (const line of priced.lines) {
          const units = unitShares(line.total, line.quantity);
          expect(units).toHaveLength(line.quantity);
          expect(sum(units)).toBe(line.total);
          // Units differ by at most one minor unit.
          expect(Math.max(...units) - Math.min(...units)).toBeLessThanOrEqual(1);
          expect(sum(unitShares(line.taxTotal, line.quantity))).toBe(line.taxTotal);
        }
        expect(
          sum(priced.lines.flatMap((l) => unitShares(l.total, l.quantity))) + priced.shipping.total,
        ).toBe(priced.total);
      }),
      { numRuns: 1000 },
    );
  });

  it('rounds half to even in one place', () => {
    expect([
      roundHalfEven(5n, 2n),
      roundHalfEven(7n, 2n),
      roundHalfEven(1n, 3n),
      roundHalfEven(2n, 3n),
    ]).toEqual([2, 4, 0, 1]);
  });

  it('takes tax out of an inclusive price and adds it on top of an exclusive one (DE 19 %, CA 7.25 %)', () => {
    // 119.00 gross at 19 %: 19.00 of tax inside.
    expect(taxesOf(11900, [{ code: 'DE', name: 'MwSt.', rate: 19 }], true)).toEqual([
      { code: 'DE', name: 'MwSt.', rate: 19, amount: 1900 },
    ]);
    // 10.00 net at 7.25 %: 0.725 rounds to the even 0.72.
    expect(taxesOf(1000, [{ code: 'CA', name: 'Sales tax', rate: 7.25 }], false)[0].amount).toBe(72);
    const priced = priceDocument({
      currency: 'eur',
      pricesIncludeTax: true,
      lines: [
        { id: 1, price: 1190, quantity: 2, taxClass: 'standard' },
        { id: 2, price: 1070, quantity: 1, taxClass: 'reduced' },
      ],
      shipping: { amount: 595, taxClass: 'standard' },
      taxRates: ({ taxClass }) =>
        taxClass === 'reduced'
          ? [{ code: 'DE-R', name: 'MwSt. 7 %', rate: 7 }]
          : [{ code: 'DE', name: 'MwSt. 19 %', rate: 19 }],
    });
    expect(priced).toMatchObject({
      subtotal: 3450,
      shippingTotal: 595,
      taxTotal: 380 + 70 + 95,
      discountTotal: 0,
      total: 4045,
      amountDue: 4045,
    });
  });

  it('a seed cart (no region, rate or adjuster) costs what it did: items plus shipping', () => {
    const priced = priceDocument({
      currency: 'usd',
      pricesIncludeTax: false,
      lines: [{ id: 1, price: 1250, quantity: 2, taxClass: 'standard' }],
      shipping: { amount: 499, taxClass: 'standard' },
      taxRates: () => [],
    });
    expect(priced).toMatchObject({ subtotal: 2500, taxTotal: 0, total: 2999, amountDue: 2999 });
  });

  it('knows the minor units of ISO 4217 currencies', () => {
    expect(['usd', 'eur', 'jpy', 'krw', 'kwd'].map(minorUnits)).toEqual([2, 2, 0, 0, 3]);
  });
});
