import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { text } from 'node:stream/consumers';
import type { EntityManager } from 'typeorm';
import { priceDocument } from '../src/pricing/calculator.js';
import { RateTableTaxProvider } from '../src/taxes/rate-table-tax-provider.js';
import { StripeTaxProvider } from '../src/taxes/stripe-tax-provider.js';
import { TaxProvider, TaxProviderError, type TaxQuery } from '../src/taxes/tax-provider.js';
import request from 'supertest';
import { ADMIN_ENV, loginAdmin } from './support/accounts.js';
import { eventually } from './support/eventually.js';
import { createProduct } from './support/products.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const SECRET_KEY = 'sk_test_tax_secret_key';

interface SentRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  idempotencyKey: string | undefined;
  authorization: string | undefined;
  form: URLSearchParams;
}

type Fault = 'none' | 'error500' | 'unauthorized' | 'hang' | 'trickle';

/** A tax breakdown entry as Stripe answers it. */
function breakdown(
  taxable: number,
  percent: string | null,
  jurisdiction: { country: string; state: string | null; level: string; display_name: string },
  taxType = 'vat',
  displayName = 'VAT',
) {
  return {
    amount: percent === null ? 0 : Math.floor((taxable * Number(percent)) / 100),
    jurisdiction,
    sourcing: 'destination',
    taxability_reason: percent === null ? 'not_collecting' : 'standard_rated',
    taxable_amount: percent === null ? 0 : taxable,
    tax_rate_details:
      percent === null ? null : { display_name: displayName, percentage_decimal: percent, tax_type: taxType },
  };
}

const GERMANY = { country: 'DE', state: null, level: 'country', display_name: 'Germany' };
const CALIFORNIA = { country: 'US', state: 'CA', level: 'state', display_name: 'California' };
const LOS_ANGELES = { country: 'US', state: 'CA', level: 'county', display_name: 'Los Angeles County' };
const CULVER_CITY = { country: 'US', state: 'CA', level: 'city', display_name: 'Culver City' };

/**
 * The breakdown Stripe gives an amount at the address: Germany's VAT (7 % for the reduced tax code, else 19 %),
 * California's state and county sales taxes; each with a jurisdiction that taxes nothing, as Stripe lists
 * jurisdictions where the account does not collect.
 */
function breakdownOf(form: URLSearchParams, amount: number, taxCode: string | null) {
  if (form.get('customer_details[address][country]') === 'US') {
    return [
      breakdown(amount, '6.0', CALIFORNIA, 'sales_tax', 'Sales and Use Tax'),
      breakdown(amount, '0.25', LOS_ANGELES, 'sales_tax', 'Sales and Use Tax'),
      breakdown(amount, null, CULVER_CITY),
    ];
  }
  return [
    breakdown(amount, taxCode === 'txcd_99999999' ? '7.0' : '19.0', GERMANY, 'vat', 'Umsatzsteuer (USt.)'),
    breakdown(amount, null, { ...GERMANY, country: 'AT', display_name: 'Austria' }),
  ];
}

/** Stripe Tax's HTTP API as far as the service uses it, recording what the SDK sent. */
async function startFakeStripeTax() {
  const sent: SentRequest[] = [];
  const state = { fault: 'none' as Fault, pageSize: 100 };
  const calculations = new Map<string, Array<Record<string, unknown>>>();
  /** The answers a fault keeps open, cut when the test is over. */
  const open = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    void (async () => {
      const form = new URLSearchParams(await text(req));
      const [path, query = ''] = req.url!.split('?');
      sent.push({
        method: req.method!,
        path,
        query: new URLSearchParams(query),
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
        authorization: req.headers.authorization,
        form,
      });
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      switch (state.fault) {
        case 'hang':
          open.add(res);
          return; // never answers
        case 'trickle': {
          // Answers, one byte at a time: the socket is never idle, the answer never complete.
          open.add(res);
          res.writeHead(200, { 'content-type': 'application/json' });
          const drip = setInterval(() => res.write(' '), 50);
          res.on('close', () => clearInterval(drip));
          return;
        }
        case 'error500':
          return reply(500, { error: { type: 'api_error', message: 'Something went wrong on our end' } });
        case 'unauthorized':
          return reply(401, {
            error: { type: 'invalid_request_error', message: `Invalid API Key provided: ${SECRET_KEY}` },
          });
        default:
      }
      if (req.method === 'POST' && path === '/v1/tax/calculations') {
        const id = `taxcalc_${calculations.size + 1}`;
        const items: Array<Record<string, unknown>> = [];
        for (let i = 0; form.has(`line_items[${i}][amount]`); i++) {
          const amount = Number(form.get(`line_items[${i}][amount]`));
          items.push({
            id: `tax_li_${i + 1}`,
            object: 'tax.calculation_line_item',
            amount,
            reference: form.get(`line_items[${i}][reference]`),
            tax_behavior: form.get(`line_items[${i}][tax_behavior]`),
            tax_breakdown: breakdownOf(form, amount, form.get(`line_items[${i}][tax_code]`)),
          });
        }
        calculations.set(id, items);
        const shippingAmount = form.get('shipping_cost[amount]');
        return reply(200, {
          id,
          object: 'tax.calculation',
          currency: form.get('currency'),
          line_items: {
            object: 'list',
            data: items.slice(0, state.pageSize),
            has_more: items.length > state.pageSize,
            url: `/v1/tax/calculations/${id}/line_items`,
          },
          shipping_cost:
            shippingAmount === null
              ? null
              : {
                  amount: Number(shippingAmount),
                  tax_behavior: form.get('shipping_cost[tax_behavior]'),
                  tax_breakdown: breakdownOf(
                    form,
                    Number(shippingAmount),
                    form.get('shipping_cost[tax_code]'),
                  ),
                },
        });
      }
      const page = /^\/v1\/tax\/calculations\/([^/]+)\/line_items$/.exec(path);
      if (req.method === 'GET' && page !== null && calculations.has(page[1])) {
        const items = calculations.get(page[1])!;
        const after = items.findIndex((item) => item.id === new URLSearchParams(query).get('starting_after'));
        const data = items.slice(after + 1, after + 1 + state.pageSize);
        return reply(200, {
          object: 'list',
          data,
          has_more: after + 1 + state.pageSize < items.length,
          url: path,
        });
      }
      if (req.method === 'POST' && path === '/v1/tax/transactions/create_from_calculation') {
        return reply(200, {
          id: `tax_${form.get('calculation')!.replace('taxcalc_', '')}`,
          object: 'tax.transaction',
          reference: form.get('reference'),
          type: 'transaction',
        });
      }
      reply(404, { error: { type: 'invalid_request_error', message: 'not found' } });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    sent,
    state,
    reset() {
      sent.length = 0;
      state.fault = 'none';
      state.pageSize = 100;
      calculations.clear();
      for (const res of open) res.destroy();
      open.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const NO_MANAGER = {} as EntityManager;

/** A document of two lines (the second of the reduced class) and a shipping, after discounts, in cents. */
const germanQuery: TaxQuery = {
  currency: 'eur',
  pricesIncludeTax: true,
  address: {
    country: 'DE',
    subdivision: null,
    postalCode: '10115',
    city: 'Berlin',
    line1: 'Invalidenstr. 1',
  },
  lines: [
    { id: 11, taxClass: 'standard', amount: 2999, quantity: 1 },
    { id: 12, taxClass: 'reduced', amount: 1998, quantity: 2 },
  ],
  shipping: { taxClass: 'standard', amount: 499 },
};

async function failureOf(promise: Promise<unknown>): Promise<TaxProviderError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(TaxProviderError);
    return error as TaxProviderError;
  }
  throw new Error('expected a TaxProviderError');
}

describe('Stripe Tax provider (TAX_PROVIDER=stripe) against a fake Stripe API', () => {
  let stripe: Awaited<ReturnType<typeof startFakeStripeTax>>;
  const provider = (timeoutMs = 5000) =>
    new StripeTaxProvider({
      secretKey: SECRET_KEY,
      apiUrl: stripe.url,
      timeoutMs,
      taxCodes: { reduced: 'txcd_99999999' },
    });

  beforeAll(async () => {
    stripe = await startFakeStripeTax();
  });
  beforeEach(() => stripe.reset());
  afterAll(() => stripe.close());

  it('asks for a calculation with the currency, each line amount, its tax behaviour and code, the shipping and the address', async () => {
    await provider().quote(NO_MANAGER, germanQuery);
    expect(stripe.sent).toHaveLength(1);
    const [{ method, path, form, authorization }] = stripe.sent;
    expect([method, path]).toEqual(['POST', '/v1/tax/calculations']);
    expect(authorization).toBe(`Bearer ${SECRET_KEY}`);
    expect(Object.fromEntries(form)).toEqual({
      currency: 'eur',
      'line_items[0][amount]': '2999',
      'line_items[0][quantity]': '1',
      'line_items[0][reference]': '11',
      'line_items[0][tax_behavior]': 'inclusive',
      'line_items[1][amount]': '1998',
      'line_items[1][quantity]': '2',
      'line_items[1][reference]': '12',
      'line_items[1][tax_behavior]': 'inclusive',
      // TAX_STRIPE_TAX_CODES names the reduced class only: the standard one takes the account's default.
      'line_items[1][tax_code]': 'txcd_99999999',
      'shipping_cost[amount]': '499',
      'shipping_cost[tax_behavior]': 'inclusive',
      'customer_details[address][country]': 'DE',
      'customer_details[address][postal_code]': '10115',
      'customer_details[address][city]': 'Berlin',
      'customer_details[address][line1]': 'Invalidenstr. 1',
      'customer_details[address_source]': 'shipping',
      'expand[0]': 'line_items.data.tax_breakdown',
      'expand[1]': 'shipping_cost.tax_breakdown',
    });
  });

  it("reads the rates of each line and of the shipping from Stripe's breakdown, leaving out jurisdictions that tax nothing; the calculation id is kept", async () => {
    const quote = await provider().quote(NO_MANAGER, germanQuery);
    const vat = (rate: number) => [{ code: 'DE-vat', name: 'Umsatzsteuer (USt.)', rate }];
    expect(quote.calculationId).toBe('taxcalc_1');
    expect(quote.ratesOf({ lineId: 11, taxClass: 'standard' })).toEqual(vat(19));
    expect(quote.ratesOf({ lineId: 12, taxClass: 'reduced' })).toEqual(vat(7));
    expect(quote.ratesOf({ lineId: null, taxClass: 'standard' })).toEqual(vat(19));

    // The calculator computes the amounts from the rates, rounding half to even: 2999 × 19 / 119 = 478.83 → 479,
    // where the fake Stripe's own figure (rounded down) is 478.
    const priced = priceDocument({
      currency: 'eur',
      pricesIncludeTax: true,
      lines: [
        { id: 11, price: 2999, quantity: 1, taxClass: 'standard' },
        { id: 12, price: 999, quantity: 2, taxClass: 'reduced' },
      ],
      shipping: { amount: 499, taxClass: 'standard' },
      taxRates: (target) => quote.ratesOf(target),
    });
    expect(priced.lines.map((line) => line.taxTotal)).toEqual([479, 131]);
    expect(priced.shipping.taxTotal).toBe(80);
    expect(priced.taxTotal).toBe(690);
  });

  it('sends tax-exclusive amounts as exclusive and the subdivision as the state; every jurisdiction that taxes is a rate', async () => {
    const quote = await provider().quote(NO_MANAGER, {
      currency: 'usd',
      pricesIncludeTax: false,
      address: { country: 'US', subdivision: 'CA', postalCode: '90232' },
      lines: [{ id: 'a', taxClass: 'standard', amount: 10000, quantity: 1 }],
      shipping: null,
    });
    const { form } = stripe.sent[0];
    expect(form.get('line_items[0][tax_behavior]')).toBe('exclusive');
    expect(form.get('customer_details[address][state]')).toBe('CA');
    expect(form.get('customer_details[address][postal_code]')).toBe('90232');
    expect(form.has('customer_details[address][city]')).toBe(false);
    expect(form.has('shipping_cost[amount]')).toBe(false);
    expect(quote.ratesOf({ lineId: 'a', taxClass: 'standard' })).toEqual([
      { code: 'US-CA-sales_tax', name: 'Sales and Use Tax (California)', rate: 6 },
      { code: 'US-CA-county-sales_tax', name: 'Sales and Use Tax (Los Angeles County)', rate: 0.25 },
    ]);
    expect(quote.ratesOf({ lineId: null, taxClass: 'standard' })).toEqual([]);
  });

  it('reads the further pages of line items when the calculation has more than its answer lists', async () => {
    stripe.state.pageSize = 2;
    const lines = [1, 2, 3, 4, 5].map((id) => ({ id, taxClass: 'standard', amount: 100 * id, quantity: 1 }));
    const quote = await provider().quote(NO_MANAGER, { ...germanQuery, lines, shipping: null });
    for (const { id } of lines) {
      expect(quote.ratesOf({ lineId: id, taxClass: 'standard' })).toEqual([
        { code: 'DE-vat', name: 'Umsatzsteuer (USt.)', rate: 19 },
      ]);
    }
    const pages = stripe.sent.filter((sent) => sent.method === 'GET');
    expect(pages.map((sent) => [sent.path, sent.query.get('starting_after')])).toEqual([
      ['/v1/tax/calculations/taxcalc_1/line_items', 'tax_li_2'],
      ['/v1/tax/calculations/taxcalc_1/line_items', 'tax_li_4'],
    ]);
    expect(pages[0].query.get('expand[0]')).toBe('data.tax_breakdown');
  });

  it('does not call Stripe for a document without lines', async () => {
    const quote = await provider().quote(NO_MANAGER, { ...germanQuery, lines: [] });
    expect(stripe.sent).toHaveLength(0);
    expect(quote.calculationId).toBeNull();
    expect(quote.ratesOf({ lineId: null, taxClass: 'standard' })).toEqual([]);
  });

  it('records a paid order: a transaction from the calculation with the reference, once per reference; gives its id', async () => {
    const transactionId = await provider().recordPaid('taxcalc_7', 'order-42');
    expect(transactionId).toBe('tax_7');
    expect(stripe.sent).toHaveLength(1);
    const [{ method, path, form, idempotencyKey }] = stripe.sent;
    expect([method, path]).toEqual(['POST', '/v1/tax/transactions/create_from_calculation']);
    expect(Object.fromEntries(form)).toEqual({ calculation: 'taxcalc_7', reference: 'order-42' });
    expect(idempotencyKey).toBe('tax-transaction-order-42');
  });

  it('a 500 answer is a TaxProviderError naming stripe; nothing is retried', async () => {
    stripe.state.fault = 'error500';
    const error = await failureOf(provider().quote(NO_MANAGER, germanQuery));
    expect(error.provider).toBe('stripe');
    expect(error.message).toContain('The tax provider stripe could not calculate the taxes');
    expect(error.message).toContain('500');
    expect(stripe.sent).toHaveLength(1);
    expect((await failureOf(provider().recordPaid('taxcalc_1', 'order-1'))).provider).toBe('stripe');
  });

  it('a failure never shows the secret key, even when the answer quotes it', async () => {
    stripe.state.fault = 'unauthorized';
    const error = await failureOf(provider().quote(NO_MANAGER, germanQuery));
    expect(error.message).toContain('401');
    expect(error.message).toContain('[secret key]');
    expect(error.message).not.toContain(SECRET_KEY);
  });

  it('an unreachable Stripe is a TaxProviderError naming stripe', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = new StripeTaxProvider({
      secretKey: SECRET_KEY,
      apiUrl: `http://127.0.0.1:${port}`,
      timeoutMs: 5000,
      taxCodes: {},
    });
    const error = await failureOf(unreachable.quote(NO_MANAGER, germanQuery));
    expect(error.provider).toBe('stripe');
    expect(error.message).toContain('could not be reached');
  });

  it.each<[Fault, string]>([
    ['hang', 'a server that never answers'],
    ['trickle', 'a server that answers one byte at a time'],
  ])('%s: %s is a TaxProviderError within TAX_PROVIDER_TIMEOUT_MS', async (fault) => {
    // A server of its own: the SDK retries a connection closed under it once, even after the quote gave up, and
    // that retry must not reach the other tests' server.
    const slow = await startFakeStripeTax();
    slow.state.fault = fault;
    try {
      const started = Date.now();
      const error = await failureOf(
        new StripeTaxProvider({
          secretKey: SECRET_KEY,
          apiUrl: slow.url,
          timeoutMs: 400,
          taxCodes: {},
        }).quote(NO_MANAGER, germanQuery),
      );
      const elapsed = Date.now() - started;
      expect(error.provider).toBe('stripe');
      expect(error.message).toMatch(/400 ?ms/);
      expect(elapsed).toBeGreaterThanOrEqual(350);
      expect(elapsed).toBeLessThan(1500);
      expect(slow.sent).toHaveLength(1);
    } finally {
      await slow.close();
    }
  });

  it('the service binds TaxProvider to Stripe Tax when TAX_PROVIDER=stripe, and to the rate table by default', async () => {
    const withStripe = await startTestApp({
      TAX_PROVIDER: 'stripe',
      STRIPE_SECRET_KEY: SECRET_KEY,
      STRIPE_API_URL: stripe.url,
      TAX_STRIPE_TAX_CODES: 'reduced:txcd_99999999',
    });
    try {
      const taxes = withStripe.app.get(TaxProvider);
      expect(taxes).toBeInstanceOf(StripeTaxProvider);
      expect(taxes.name).toBe('stripe');
      const quote = await taxes.quote(withStripe.dataSource.manager, germanQuery);
      expect(quote.calculationId).toBe('taxcalc_1');
      expect(stripe.sent[0].form.get('line_items[1][tax_code]')).toBe('txcd_99999999');
    } finally {
      await withStripe.close();
    }
    const byDefault = await startTestApp();
    try {
      expect(byDefault.app.get(TaxProvider)).toBeInstanceOf(RateTableTaxProvider);
    } finally {
      await byDefault.close();
    }
  });

  describe('checkout with TAX_PROVIDER=stripe', () => {
    let t: TestApp;
    let adminToken: string;
    let cartNumber = 0;
    let euro: { id: number };
    const products = { standard: 0, reduced: 0 };
    const api = () => request(t.url);

    beforeAll(async () => {
      t = await startTestApp({
        ...ADMIN_ENV,
        PAYMENT_METHODS: 'bank_transfer',
        TAX_PROVIDER: 'stripe',
        STRIPE_SECRET_KEY: SECRET_KEY,
        STRIPE_API_URL: stripe.url,
        TAX_PROVIDER_TIMEOUT_MS: '1000',
        TAX_STRIPE_TAX_CODES: 'reduced:txcd_99999999',
      });
      adminToken = (await loginAdmin(t)).token;
      const created = await request(t.url)
        .post('/api/v1/regions')
        .auth(adminToken, { type: 'bearer' })
        .send({ name: 'Europe', currency_code: 'eur', countries: ['DE'], prices_include_tax: true })
        .expect(201);
      euro = created.body.data;
      products.standard = (
        await createProduct(t, adminToken, {
          price: 10,
          stock: 50,
          prices: [{ currency_code: 'eur', amount: 29.99 }],
        } as object)
      ).id;
      products.reduced = (
        await createProduct(t, adminToken, {
          price: 9,
          stock: 50,
          tax_class: 'reduced',
          prices: [{ currency_code: 'eur', amount: 9.99 }],
        } as object)
      ).id;
    });
    afterAll(() => t.close());

    /** A guest cart in the tax-inclusive euro region: 29.99 standard, 2 × 9.99 reduced, shipping to Berlin. */
    async function germanCart() {
      const suffix = ++cartNumber;
      const created = await api().post('/api/v1/carts').send({ region_id: euro.id }).expect(201);
      const { id, cart_token: token } = created.body.data as { id: string; cart_token: string };
      for (const [productId, quantity] of [
        [products.standard, 1],
        [products.reduced, 2],
      ]) {
        await api()
          .post(`/api/v1/carts/${id}/items`)
          .set('X-Cart-Token', token)
          .send({ product_id: productId, quantity })
          .expect(201);
      }
      await api()
        .put(`/api/v1/carts/${id}`)
        .set('X-Cart-Token', token)
        .send({
          email: `guest-${suffix}@example.com`,
          shipping_address: {
            name: 'Erika Muster',
            line1: 'Hauptstr. 1',
            city: 'Berlin',
            postal_code: '10115',
            country: 'DE',
          },
        })
        .expect(200);
      return { id, token };
    }

    it("an order's taxes are the calculator's amounts at Stripe's rates; it keeps the calculation, and once paid, Stripe's transaction", async () => {
      const cart = await germanCart();
      const checkout = await api()
        .post(`/api/v1/carts/${cart.id}/checkout`)
        .set('X-Cart-Token', cart.token)
        .send({ payment_method: 'bank_transfer' })
        .expect(201);
      const order = checkout.body.data;
      // 29.99 × 19 / 119 = 4.788… → 4.79; 19.98 × 7 / 107 = 1.307… → 1.31.
      expect(order).toMatchObject({ currency_code: 'eur', tax_total: 6.1, total: 49.97 });
      expect(order.items.map((item: { tax_lines: unknown }) => item.tax_lines)).toEqual([
        [{ code: 'DE-vat', name: 'Umsatzsteuer (USt.)', rate: 19, amount: 4.79 }],
        [{ code: 'DE-vat', name: 'Umsatzsteuer (USt.)', rate: 7, amount: 1.31 }],
      ]);
      const calculation = stripe.sent.filter((sent) => sent.path === '/v1/tax/calculations').at(-1)!;
      expect(calculation.form.get('currency')).toBe('eur');
      expect(calculation.form.get('customer_details[address][postal_code]')).toBe('10115');
      expect(calculation.form.get('line_items[0][tax_behavior]')).toBe('inclusive');
      const [row] = await t.dataSource.query(
        'SELECT order_number, tax_calculation_id, tax_transaction_id FROM orders WHERE id = ?',
        [order.id],
      );
      expect(row.tax_calculation_id).toMatch(/^taxcalc_\d+$/);
      expect(row.tax_transaction_id).toBeNull();

      await api()
        .patch(`/api/v1/orders/${order.id}/status`)
        .auth(adminToken, { type: 'bearer' })
        .send({ status: 'paid', payment_status: 'paid' })
        .expect(200);
      const transactionOf = async () =>
        (await t.dataSource.query('SELECT tax_transaction_id FROM orders WHERE id = ?', [order.id]))[0]
          .tax_transaction_id as string | null;
      await eventually(async () => (await transactionOf()) !== null);
      expect(await transactionOf()).toBe(row.tax_calculation_id.replace('taxcalc_', 'tax_'));
      const recorded = stripe.sent.find(
        (sent) => sent.path === '/v1/tax/transactions/create_from_calculation',
      )!;
      expect(Object.fromEntries(recorded.form)).toEqual({
        calculation: row.tax_calculation_id,
        reference: row.order_number,
      });
    });

    it('Stripe Tax failing at checkout refuses it, naming stripe, and no order is placed', async () => {
      const cart = await germanCart();
      const [{ count: before }] = await t.dataSource.query('SELECT COUNT(*) AS count FROM orders');
      stripe.state.fault = 'error500';
      const refused = await api()
        .post(`/api/v1/carts/${cart.id}/checkout`)
        .set('X-Cart-Token', cart.token)
        .send({ payment_method: 'bank_transfer' });
      // Pricing refuses with a 500 naming the provider (the API's code set has no 503).
      expect(refused.status).toBe(500);
      expect(refused.body.data.details).toContain('The tax provider stripe could not calculate the taxes');
      expect(refused.body.data.details).toContain('500');
      expect(JSON.stringify(refused.body)).not.toContain(SECRET_KEY);
      const [{ count: after }] = await t.dataSource.query('SELECT COUNT(*) AS count FROM orders');
      expect(Number(after)).toBe(Number(before));
    });
  });
});
