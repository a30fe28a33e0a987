import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isISO31661Alpha2 } from 'class-validator';
import fc from 'fast-check';
import Stripe from 'stripe';
import request from 'supertest';
import { minorUnits, unitShares } from '../src/pricing/calculator.js';
import { ADMIN_ENV, loginAdmin, type Account } from './support/accounts.js';
import { startFakeStripe, stripeEnv, WEBHOOK_SECRET } from './support/fake-stripe.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const signer = new Stripe('sk_test_signer');
/** A country per run (every ISO 3166-1 code, room for shrinking): each run's region lists its own. */
const COUNTRIES = Array.from({ length: 26 * 26 }, (_, i) =>
  String.fromCharCode(65 + Math.floor(i / 26), 65 + (i % 26)),
).filter((code) => isISO31661Alpha2(code));

interface Amounted {
  subtotal: number;
  discount_total: number;
  shipping_total: number;
  shipping_tax_total: number;
  tax_total: number;
  gift_card_total: number;
  total: number;
  amount_due: number;
  prices_include_tax: boolean;
  discounts: Array<{ amount: number }>;
  items: Array<{
    line_total: number;
    discount_total: number;
    tax_total: number;
    total: number;
    quantity: number;
  }>;
}

const shop = fc.record({
  currency: fc.constantFrom('usd', 'eur', 'jpy'),
  inclusive: fc.boolean(),
  standard: fc.integer({ min: 0, max: 270_000 }).map((scaled) => scaled / 10_000),
  reduced: fc.option(
    fc.integer({ min: 0, max: 100_000 }).map((scaled) => scaled / 10_000),
    { nil: null },
  ),
  lines: fc.array(
    fc.record({
      minor: fc.integer({ min: 1, max: 500_000 }),
      quantity: fc.integer({ min: 1, max: 4 }),
      reduced: fc.boolean(),
    }),
    { minLength: 1, maxLength: 5 },
  ),
  shipping: fc.option(fc.integer({ min: 0, max: 5_000 }), { nil: null }),
  /** A gift card's balance in minor units, applied to the cart. */
  giftCard: fc.option(fc.integer({ min: 1, max: 1_500_000 }), { nil: null }),
  /** Promotions limited to the run's products: automatic ones, and codes put on the cart. */
  promotions: fc.array(
    fc.record({
      automatic: fc.boolean(),
      combinable: fc.boolean(),
      kind: fc.oneof(
        fc.record({
          type: fc.constant('percentage' as const),
          value: fc.integer({ min: 1, max: 100 }),
          target: fc.constantFrom('order' as const, 'items' as const),
        }),
        fc.record({
          type: fc.constant('fixed' as const),
          minor: fc.integer({ min: 1, max: 800_000 }),
          target: fc.constantFrom('order' as const, 'items' as const),
        }),
        fc.record({ type: fc.constant('free_shipping' as const) }),
        fc.record({
          type: fc.constant('buy_x_get_y' as const),
          buy: fc.integer({ min: 1, max: 2 }),
          get: fc.integer({ min: 1, max: 2 }),
          percentage: fc.integer({ min: 1, max: 100 }),
        }),
      ),
      /** Which of the run's products it is limited to (at least the first). */
      products: fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }),
    }),
    { maxLength: 3 },
  ),
});

/** The rules a code may be refused with when it is put on a random cart (the cart stays as it was). */
const REFUSALS = ['notApplicable', 'notCombinable', 'minSubtotal'];

/**
 * DESIGN.md §16's invariant through the real server, over random shops and carts with random promotions (codes and
 * automatic ones of every type) and gift cards: on the cart, on the placed order (its response and its rows),
 * nothing negative and no discount beyond its base, and after refunding every unit of every line and then the shipping, one refund at
 * a time: the refunds add up to exactly what was paid. The calculator's own property test covers thousands of
 * carts without I/O; this one proves the service stores and answers what it computed.
 */
describe('pricing properties through the HTTP API', () => {
  let stripe: Awaited<ReturnType<typeof startFakeStripe>>;
  let t: TestApp;
  let admin: Account;
  const api = () => request(t.url);
  const asAdmin = <T extends request.Test>(call: T) => call.auth(admin.token, { type: 'bearer' });
  let run = 0;

  beforeAll(async () => {
    stripe = await startFakeStripe();
    t = await startTestApp({
      ...ADMIN_ENV,
      ...stripeEnv(stripe.url),
      THROTTLE_LIMIT: '100000',
      THROTTLE_CART_LIMIT: '100000',
    });
    admin = await loginAdmin(t);
  });

  afterAll(async () => {
    await t.close();
    await stripe.close();
  });

  /** Amounts in minor units of the currency, as the calculator keeps them. */
  function minor(amount: number, currency: string): number {
    return Math.round(amount * 10 ** minorUnits(currency));
  }

  function assertInvariant(doc: Amounted, currency: string): void {
    const m = (amount: number) => minor(amount, currency);
    const tax = doc.prices_include_tax ? 0 : m(doc.tax_total);
    expect(m(doc.total)).toBe(m(doc.subtotal) - m(doc.discount_total) + m(doc.shipping_total) + tax);
    expect(m(doc.amount_due)).toBe(m(doc.total) - m(doc.gift_card_total));
    const sum = (pick: (line: Amounted['items'][number]) => number) =>
      doc.items.reduce((total, line) => total + m(pick(line)), 0);
    expect(sum((line) => line.line_total)).toBe(m(doc.subtotal));
    expect(sum((line) => line.tax_total) + m(doc.shipping_tax_total)).toBe(m(doc.tax_total));
    // The shipping's part: its price less its discount (what the lines' discounts leave of the document's).
    const shippingDiscount = m(doc.discount_total) - sum((line) => line.discount_total);
    expect(shippingDiscount).toBeGreaterThanOrEqual(0);
    expect(shippingDiscount).toBeLessThanOrEqual(m(doc.shipping_total));
    const shippingTotal =
      m(doc.shipping_total) - shippingDiscount + (doc.prices_include_tax ? 0 : m(doc.shipping_tax_total));
    expect(sum((line) => line.total) + shippingTotal).toBe(m(doc.total));
    // Nothing is negative; no discount exceeds what it applies to; the listed discounts add up.
    for (const line of doc.items) {
      expect(m(line.discount_total)).toBeGreaterThanOrEqual(0);
      expect(m(line.discount_total)).toBeLessThanOrEqual(m(line.line_total));
      expect(m(line.total)).toBeGreaterThanOrEqual(0);
    }
    expect(m(doc.total)).toBeGreaterThanOrEqual(0);
    expect(m(doc.amount_due)).toBeGreaterThanOrEqual(0);
    expect(doc.discounts.reduce((total, discount) => total + m(discount.amount), 0)).toBe(
      m(doc.discount_total),
    );
  }

  it('holds on random carts, their orders and their unit-by-unit refunds', async () => {
    await fc.assert(
      fc.asyncProperty(shop, async (s) => {
        const country = COUNTRIES[run++ % COUNTRIES.length];
        const amount = (value: number) => value / 10 ** minorUnits(s.currency);
        const region = (
          await asAdmin(api().post('/api/v1/regions'))
            .send({
              name: `Run ${run}`,
              currency_code: s.currency,
              countries: [country],
              prices_include_tax: s.inclusive,
            })
            .expect(201)
        ).body.data;
        const rates = [
          ['standard', s.standard] as const,
          ...(s.reduced === null ? [] : [['reduced', s.reduced] as const]),
        ];
        for (const [taxClass, rate] of rates) {
          await asAdmin(api().post('/api/v1/tax-rates'))
            .send({
              country,
              tax_class: taxClass,
              rate,
              name: `${taxClass} ${rate}`,
              code: `${country}-${taxClass}`,
            })
            .expect(201);
        }
        const priced = (value: number) =>
          s.currency === 'usd'
            ? { price: amount(value) }
            : { price: 1, prices: [{ currency_code: s.currency, amount: amount(value) }] };
        const products = [];
        for (const line of s.lines) {
          products.push(
            (
              await asAdmin(api().post('/api/v1/products'))
                .send({
                  name: `P${run}-${products.length}`,
                  description: 'x',
                  stock: 100,
                  category_id: 1,
                  tax_class: line.reduced ? 'reduced' : 'standard',
                  ...priced(line.minor),
                })
                .expect(201)
            ).body.data.id as number,
          );
        }
        const option =
          s.shipping === null
            ? null
            : (
                await asAdmin(api().post('/api/v1/shipping-options'))
                  .send({ name: `Ship ${run}`, countries: [country], ...priced(s.shipping) })
                  .expect(201)
              ).body.data.id;

        const codes: string[] = [];
        for (const [i, promotion] of s.promotions.entries()) {
          const { kind } = promotion;
          const code = promotion.automatic ? null : `RUN${run}P${i}`;
          await asAdmin(api().post('/api/v1/promotions'))
            .send({
              code,
              description: `${kind.type} ${i}`,
              type: kind.type,
              combinable: promotion.combinable,
              conditions: {
                product_ids: products.filter((_, p) => p === 0 || promotion.products[p]),
              },
              ...(kind.type === 'percentage' ? { value: kind.value, target: kind.target } : {}),
              ...(kind.type === 'fixed'
                ? { value: amount(kind.minor), currency_code: s.currency, target: kind.target }
                : {}),
              ...(kind.type === 'buy_x_get_y'
                ? {
                    buy_x_get_y: {
                      buy_quantity: kind.buy,
                      get_quantity: kind.get,
                      get_percentage: kind.percentage,
                    },
                  }
                : {}),
            })
            .expect(201);
          if (code !== null) codes.push(code);
        }

        const created = await api().post('/api/v1/carts').send({ region_id: region.id }).expect(201);
        const { id: cartId, cart_token: token } = created.body.data;
        for (const [i, line] of s.lines.entries()) {
          await api()
            .post(`/api/v1/carts/${cartId}/items`)
            .set('X-Cart-Token', token)
            .send({ product_id: products[i], quantity: line.quantity })
            .expect(201);
        }
        const cart = (
          await api()
            .put(`/api/v1/carts/${cartId}`)
            .set('X-Cart-Token', token)
            .send({
              email: `run${run}@example.com`,
              shipping_address: { name: 'A', line1: '1 St', city: 'C', country },
              ...(option === null ? {} : { shipping_option_id: option }),
            })
            .expect(200)
        ).body.data;
        assertInvariant(cart, s.currency);
        let shown = cart;
        for (const code of codes) {
          const answer = await api()
            .post(`/api/v1/carts/${cartId}/discount-codes`)
            .set('X-Cart-Token', token)
            .send({ code: code.toLowerCase() });
          if (answer.status === 201) {
            shown = answer.body.data;
            assertInvariant(shown, s.currency);
          } else {
            expect([answer.status, answer.body.data.errors[0].field]).toEqual([400, 'code']);
            expect(REFUSALS).toContain(answer.body.data.errors[0].rule);
          }
        }
        let card: { id: number } | null = null;
        if (s.giftCard !== null) {
          card = (
            await asAdmin(api().post('/api/v1/gift-cards'))
              .send({ initial_balance: amount(s.giftCard), currency_code: s.currency })
              .expect(201)
          ).body.data;
          shown = (
            await api()
              .post(`/api/v1/carts/${cartId}/gift-cards`)
              .set('X-Cart-Token', token)
              .send({ code: (card as unknown as { code: string }).code })
              .expect(201)
          ).body.data;
          assertInvariant(shown, s.currency);
          expect(minor(shown.gift_card_total, s.currency)).toBe(
            Math.min(s.giftCard, minor(shown.total, s.currency)),
          );
        }

        const order = (
          await api()
            .post(`/api/v1/carts/${cartId}/checkout`)
            .set('X-Cart-Token', token)
            .send({ payment_method: 'credit_card' })
            .expect(201)
        ).body.data;
        assertInvariant(order, s.currency);
        // The order is what the cart showed (a discount that rounds to nothing is not stored), and its rows hold
        // the same minor units.
        expect(order.discounts.map((discount: { amount: number }) => discount.amount)).toEqual(
          shown.discounts
            .filter(
              (discount: { applies: boolean; amount: number }) => discount.applies && discount.amount > 0,
            )
            .map((discount: { amount: number }) => discount.amount),
        );
        expect([
          order.total,
          order.tax_total,
          order.gift_card_total,
          order.amount_due,
          order.currency_code,
        ]).toEqual([shown.total, shown.tax_total, shown.gift_card_total, shown.amount_due, s.currency]);
        const [row] = await t.dataSource.query(
          'SELECT total_cents, subtotal_minor, tax_total_minor, shipping_total_cents, shipping_tax_total_minor FROM orders WHERE id = ?',
          [order.id],
        );
        expect(Object.values(row).map(Number)).toEqual(
          [order.total, order.subtotal, order.tax_total, order.shipping_total, order.shipping_tax_total].map(
            (value) => minor(value, s.currency),
          ),
        );
        const [{ taxes }] = await t.dataSource.query(
          'SELECT COALESCE(SUM(amount_minor), 0) AS taxes FROM order_tax_lines WHERE order_id = ?',
          [order.id],
        );
        expect(Number(taxes)).toBe(minor(order.tax_total, s.currency));

        if (minor(order.total, s.currency) === 0) return;
        if (minor(order.amount_due, s.currency) > 0) {
          await api()
            .post(`/api/v1/orders/${order.id}/payments`)
            .set('X-Order-Token', order.order_token)
            .send({})
            .expect(201);
          const intent = [...stripe.intents.values()].at(-1)!;
          expect(intent.amount).toBe(minor(order.amount_due, s.currency));
          const event = JSON.stringify({
            id: `evt_prop_${order.id}`,
            object: 'event',
            type: 'payment_intent.succeeded',
            data: { object: { ...intent, status: 'succeeded', amount_received: intent.amount } },
          });
          await api()
            .post('/api/v1/payments/stripe/webhook')
            .set('content-type', 'application/json')
            .set(
              'stripe-signature',
              signer.webhooks.generateTestHeaderString({ payload: event, secret: WEBHOOK_SECRET }),
            )
            .send(event)
            .expect(200);
        } else {
          expect([order.status, order.payment_status]).toEqual(['paid', 'paid']);
        }

        // Every unit of every line, then the shipping: what each cost, one refund at a time.
        const shares = [
          ...order.items.flatMap((item: Amounted['items'][number]) =>
            unitShares(minor(item.total, s.currency), item.quantity),
          ),
          minor(order.total, s.currency) -
            order.items.reduce(
              (sum: number, item: Amounted['items'][number]) => sum + minor(item.total, s.currency),
              0,
            ),
        ].filter((share) => share > 0);
        for (const share of shares) {
          await asAdmin(api().post(`/api/v1/admin/orders/${order.id}/refunds`))
            .send({ amount: amount(share) })
            .expect(201);
        }
        // The provider's payment and the gift cards' together repay exactly the total, each all it took.
        const payments: Array<{ status: string; amount_cents: number; refunded_cents: number }> =
          await t.dataSource.query(
            'SELECT status, amount_cents, refunded_cents FROM payments WHERE order_id = ?',
            [order.id],
          );
        for (const payment of payments) {
          expect([payment.status, Number(payment.refunded_cents)]).toEqual([
            'refunded',
            Number(payment.amount_cents),
          ]);
        }
        expect(payments.reduce((sum, payment) => sum + Number(payment.refunded_cents), 0)).toBe(
          minor(order.total, s.currency),
        );
        if (card !== null) {
          const [{ balance_minor: balance }] = await t.dataSource.query(
            'SELECT balance_minor FROM gift_cards WHERE id = ?',
            [card.id],
          );
          expect(Number(balance)).toBe(s.giftCard);
        }
      }),
      { numRuns: 12 },
    );
  });
});
