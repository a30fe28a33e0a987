import { describe, expect, it } from '@jest/globals';
import type { EntityManager } from 'typeorm';
import type { Tx } from '../database/transaction-runner.js';
import type { RegionInfo } from '../regions/region-directory.js';
import { type TaxQuery, TaxProvider, TaxProviderError } from '../taxes/tax-provider.js';
import type { PricingAdjuster } from './adjusters.js';
import { DocumentPricing } from './document-pricing.js';
import type { PricingTender } from './tenders.js';

const manager = {} as EntityManager;
const tx = {} as Tx;
const region: RegionInfo = {
  id: 2,
  name: 'Europe',
  currencyCode: 'eur',
  pricesIncludeTax: false,
  isDefault: false,
  countries: ['DE', 'AT'],
};

/** A provider answering 10 % for every line and the shipping, recording what it was asked. */
class TenPercent extends TaxProvider {
  readonly name = 'ten';
  readonly asked: TaxQuery[] = [];
  quote(_manager: EntityManager, query: TaxQuery) {
    this.asked.push(query);
    return Promise.resolve({
      ratesOf: () => [{ code: 'T', name: 'Ten', rate: 10 }],
      calculationId: 'calc_1',
    });
  }
  recordPaid() {
    return Promise.resolve(null);
  }
}

/** An adjuster taking 100 off every line, recording its commits and releases. */
function hundredOff(calls: string[]): PricingAdjuster {
  return {
    name: 'hundred-off',
    quote: () =>
      Promise.resolve({
        name: 'hundred-off',
        adjust: ({ lines }) => lines.map((line) => ({ lineId: line.id, amount: 100, code: 'H' })),
      }),
    commit: (_tx, order, given) => {
      calls.push(`commit ${order.id} ${given.map((adjustment) => adjustment.amount).join(',')}`);
      return Promise.resolve();
    },
    release: (_tx, orderId) => {
      calls.push(`release ${orderId}`);
      return Promise.resolve();
    },
  };
}

/** A tender offering `balance`, taking up to it at commit (or `takes` when given), recording its calls. */
function tender(name: string, balance: number, calls: string[], takes = balance): PricingTender {
  return {
    name,
    available: () => Promise.resolve(balance),
    commit: (_tx, order, upTo) => {
      const taken = Math.min(upTo, takes);
      calls.push(`${name} commit ${order.id} ${upTo} took ${taken}`);
      return Promise.resolve(taken);
    },
    release: (_tx, orderId) => {
      calls.push(`${name} release ${orderId}`);
      return Promise.resolve();
    },
  };
}

const doc = {
  region,
  address: { country: 'DE', subdivision: null },
  customerId: 7,
  cartId: null,
  lines: [
    { id: 1, price: 1000, quantity: 2, taxClass: 'standard' },
    { id: 2, price: 500, quantity: 1, taxClass: 'standard' },
  ],
  shipping: { amount: 400, taxClass: 'standard' },
};

describe('DocumentPricing', () => {
  it('runs the adjusters before the taxes, asks the provider for the amounts after discounts, and keeps its calculation', async () => {
    const taxes = new TenPercent();
    const pricing = new DocumentPricing(taxes, [hundredOff([])], []);
    const { document, taxCalculationId } = await pricing.price(manager, doc);
    expect(taxes.asked[0].lines.map((line) => line.amount)).toEqual([1900, 400]);
    expect(taxes.asked[0].shipping).toEqual({ taxClass: 'standard', amount: 400 });
    expect(document).toMatchObject({ subtotal: 2500, discountTotal: 200, taxTotal: 270, total: 2970 });
    expect(document.lines[0].adjustments).toEqual([
      { lineId: 1, amount: 100, code: 'H', source: 'hundred-off' },
    ]);
    expect(taxCalculationId).toBe('calc_1');
  });

  it("before an address, the region's first country stands in; a region without countries is untaxed", async () => {
    const taxes = new TenPercent();
    const pricing = new DocumentPricing(taxes, [], []);
    await pricing.price(manager, { ...doc, address: null });
    expect(taxes.asked[0].address).toEqual({ country: 'DE', subdivision: null });
    // Without adjusters the provider is still told each line by its id (a provider answers rates per line).
    expect(taxes.asked[0].lines).toEqual([
      { id: 1, taxClass: 'standard', amount: 2000, quantity: 2 },
      { id: 2, taxClass: 'standard', amount: 500, quantity: 1 },
    ]);
    const untaxed = await pricing.price(manager, {
      ...doc,
      address: null,
      region: { ...region, countries: [] },
    });
    expect(taxes.asked).toHaveLength(1);
    expect(untaxed.document.taxTotal).toBe(0);
  });

  it('hands each adjuster its own adjustments to commit, and lets each release', async () => {
    const calls: string[] = [];
    const pricing = new DocumentPricing(new TenPercent(), [hundredOff(calls)], []);
    const { document } = await pricing.price(manager, doc);
    await pricing.commit(tx, { id: 41, customerId: 7, email: null, cartId: null }, document);
    await pricing.release(tx, 41);
    expect(calls).toEqual(['commit 41 100,100', 'release 41']);
  });

  it("gives the tenders' balance to the calculator as a tender after taxes; commit hands each what the ones before left", async () => {
    const calls: string[] = [];
    const pricing = new DocumentPricing(
      new TenPercent(),
      [],
      [tender('a', 1000, calls), tender('b', 5000, calls)],
    );
    const { document } = await pricing.price(manager, doc);
    // 2500 + 400 shipping + 10 % tax: 3190; the tenders pay it all, the taxes stay.
    expect([document.total, document.taxTotal, document.giftCardTotal, document.amountDue]).toEqual([
      3190, 290, 3190, 0,
    ]);
    await pricing.commit(tx, { id: 41, customerId: 7, email: null, cartId: 'c' }, document);
    await pricing.release(tx, 41);
    expect(calls).toEqual([
      'a commit 41 3190 took 1000',
      'b commit 41 2190 took 2190',
      'a release 41',
      'b release 41',
    ]);
  });

  it('refuses the order (400 gift_cards, insufficientBalance) when the tenders take less than priced', async () => {
    const calls: string[] = [];
    const pricing = new DocumentPricing(new TenPercent(), [], [tender('a', 1000, calls, 600)]);
    const { document } = await pricing.price(manager, doc);
    expect(document.amountDue).toBe(2190);
    await expect(
      pricing.commit(tx, { id: 41, customerId: 7, email: null, cartId: 'c' }, document),
    ).rejects.toMatchObject({
      status: 400,
    });
  });

  it('a failing provider is a 500 whose message names it', async () => {
    class Failing extends TenPercent {
      quote(): never {
        throw new TaxProviderError('stripe', 'timed out after 5000 ms');
      }
    }
    const pricing = new DocumentPricing(new Failing(), [], []);
    await expect(pricing.price(manager, doc)).rejects.toMatchObject({
      status: 500,
      message: 'The tax provider stripe could not calculate the taxes: timed out after 5000 ms',
    });
  });
});
