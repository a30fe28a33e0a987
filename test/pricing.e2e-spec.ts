import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Stripe from 'stripe';
import request from 'supertest';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { startFakeStripe, stripeEnv, WEBHOOK_SECRET } from './support/fake-stripe.js';
import { placeOrder } from './support/orders.js';
import { createProduct } from './support/products.js';
import { TestSmtpServer } from './support/smtp-server.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const GERMAN_ADDRESS = {
  name: 'Erika Muster',
  line1: 'Hauptstr. 1',
  city: 'Berlin',
  postal_code: '10115',
  country: 'DE',
};
const CALIFORNIAN_ADDRESS = {
  name: 'Jane Doe',
  line1: '1 Market St',
  city: 'San Francisco',
  region: 'CA',
  postal_code: '94105',
  country: 'US',
};
const signer = new Stripe('sk_test_signer');
const JAPANESE_ADDRESS = { name: 'Taro', line1: '1-1 Chiyoda', city: 'Tokyo', country: 'JP' };

/**
 * DESIGN.md §16 end to end: carts and orders priced by the one calculator in their region's currency and taxes,
 * through checkout, the payment at Stripe, the e-mail, the order's events and a refund.
 */
describe('pricing: regions, currencies and taxes', () => {
  let stripe: Awaited<ReturnType<typeof startFakeStripe>>;
  let smtp: TestSmtpServer;
  let t: TestApp;
  let admin: Account;
  let buyer: Account;
  const api = () => request(t.url);
  const asAdmin = <T extends request.Test>(call: T) => call.auth(admin.token, { type: 'bearer' });

  beforeAll(async () => {
    stripe = await startFakeStripe();
    smtp = await TestSmtpServer.create();
    t = await startTestApp({
      ...ADMIN_ENV,
      ...stripeEnv(stripe.url),
      PAYMENT_METHODS: 'credit_card,bank_transfer',
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Shop <shop@example.com>',
    });
    admin = await loginAdmin(t);
    buyer = await createAccount(t);
  });

  afterAll(async () => {
    await t.close();
    await stripe.close();
    await smtp.stop();
  });

  const createRegion = async (body: object) =>
    (await asAdmin(api().post('/api/v1/regions')).send(body).expect(201)).body.data as { id: number };
  const createTaxRate = (body: object) => asAdmin(api().post('/api/v1/tax-rates')).send(body).expect(201);
  const createShipping = async (body: object) =>
    (await asAdmin(api().post('/api/v1/shipping-options')).send(body).expect(201)).body.data as {
      id: number;
    };

  let guests = 0;
  /** A guest cart in a region with lines and an address (and a shipping option when given). */
  async function guestCart(
    regionId: number | undefined,
    lines: Array<[number, number]>,
    address: object,
    shippingOptionId?: number,
  ) {
    const email = `guest-${++guests}@example.com`;
    const created = await api()
      .post('/api/v1/carts')
      .send(regionId === undefined ? {} : { region_id: regionId })
      .expect(201);
    const { id, cart_token: token } = created.body.data as { id: string; cart_token: string };
    for (const [productId, quantity] of lines) {
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
        email,
        shipping_address: address,
        ...(shippingOptionId === undefined ? {} : { shipping_option_id: shippingOptionId }),
      })
      .expect(200);
    const cart = await api().get(`/api/v1/carts/${id}`).set('X-Cart-Token', token).expect(200);
    return { id, token, email, cart: cart.body.data };
  }

  it('a seed caller with nothing configured sees the amounts of before, in the default currency, untaxed', async () => {
    const product = await createProduct(t, admin.token, { price: 12.5, stock: 10 });
    const placed = await placeOrder(t, buyer.token, [[product.id, 2]]).expect(201);
    expect(placed.body.data).toMatchObject({
      total_amount: 25,
      total: 25,
      subtotal: 25,
      shipping_total: 0,
      tax_total: 0,
      discount_total: 0,
      gift_card_total: 0,
      amount_due: 25,
      currency_code: 'usd',
      prices_include_tax: false,
    });
    const [row] = await t.dataSource.query(
      'SELECT total_cents, subtotal_minor, tax_total_minor, currency_code FROM orders WHERE id = ?',
      [placed.body.data.id],
    );
    expect({
      ...row,
      total_cents: Number(row.total_cents),
      subtotal_minor: Number(row.subtotal_minor),
    }).toEqual({
      total_cents: 2500,
      subtotal_minor: 2500,
      tax_total_minor: row.tax_total_minor,
      currency_code: 'usd',
    });
    expect(Number(row.tax_total_minor)).toBe(0);
    const detail = await api()
      .get(`/api/v1/orders/${placed.body.data.id}`)
      .auth(buyer.token, { type: 'bearer' })
      .expect(200);
    expect(detail.body.data.items).toEqual([
      expect.objectContaining({
        price: 12.5,
        line_total: 25,
        discount_total: 0,
        tax_total: 0,
        total: 25,
        tax_lines: [],
        adjustments: [],
      }),
    ]);
  });

  describe('an EU region with tax-inclusive prices (DE 19 %, reduced 7 %)', () => {
    let eu: { id: number };
    let standard: { id: number };
    let reduced: { id: number };
    let shipping: { id: number };

    beforeAll(async () => {
      eu = await createRegion({
        name: 'Europe',
        currency_code: 'eur',
        countries: ['DE', 'FR', 'AT'],
        prices_include_tax: true,
      });
      await createTaxRate({
        country: 'DE',
        tax_class: 'standard',
        rate: 19,
        name: 'MwSt. 19 %',
        code: 'DE-VAT',
      });
      await createTaxRate({
        country: 'DE',
        tax_class: 'reduced',
        rate: 7,
        name: 'MwSt. 7 %',
        code: 'DE-VAT-R',
      });
      standard = await createProduct(t, admin.token, {
        price: 10,
        stock: 50,
        prices: [{ currency_code: 'eur', amount: 11.9 }],
      } as object);
      reduced = await createProduct(t, admin.token, {
        price: 9,
        stock: 50,
        tax_class: 'reduced',
        prices: [{ currency_code: 'eur', amount: 10.7 }],
      } as object);
      shipping = await createShipping({
        name: 'DHL',
        price: 5,
        prices: [{ currency_code: 'eur', amount: 5.95 }],
        countries: ['DE', 'AT'],
      });
    });

    it('prices the cart in euros, taking each line’s and the shipping’s tax out of the gross amounts', async () => {
      const { cart } = await guestCart(
        eu.id,
        [
          [standard.id, 2],
          [reduced.id, 1],
        ],
        GERMAN_ADDRESS,
        shipping.id,
      );
      expect(cart).toMatchObject({
        region_id: eu.id,
        currency_code: 'eur',
        prices_include_tax: true,
        subtotal: 34.5,
        shipping_total: 5.95,
        shipping_tax_total: 0.95,
        tax_total: 5.45,
        discount_total: 0,
        total: 40.45,
        amount_due: 40.45,
        shipping_tax_lines: [{ code: 'DE-VAT', name: 'MwSt. 19 %', rate: 19, amount: 0.95 }],
      });
      expect(cart.items).toEqual([
        expect.objectContaining({
          price: 11.9,
          line_total: 23.8,
          tax_total: 3.8,
          total: 23.8,
          tax_lines: [{ code: 'DE-VAT', name: 'MwSt. 19 %', rate: 19, amount: 3.8 }],
        }),
        expect.objectContaining({
          price: 10.7,
          line_total: 10.7,
          tax_total: 0.7,
          total: 10.7,
          tax_lines: [{ code: 'DE-VAT-R', name: 'MwSt. 7 %', rate: 7, amount: 0.7 }],
        }),
      ]);
    });

    it('checkout stores the calculation; Stripe is asked for the amount due in euro cents; the e-mail shows euros; a refund of one unit repays its share', async () => {
      const { id, token, email } = await guestCart(
        eu.id,
        [
          [standard.id, 2],
          [reduced.id, 1],
        ],
        GERMAN_ADDRESS,
        shipping.id,
      );
      const checkout = await api()
        .post(`/api/v1/carts/${id}/checkout`)
        .set('X-Cart-Token', token)
        .send({ payment_method: 'credit_card' })
        .expect(201);
      const order = checkout.body.data;
      expect(order).toMatchObject({
        currency_code: 'eur',
        total: 40.45,
        total_amount: 40.45,
        tax_total: 5.45,
      });
      expect(order.items.map((item: { tax_total: number }) => item.tax_total)).toEqual([3.8, 0.7]);
      expect(order.shipping_tax_lines).toEqual([
        { code: 'DE-VAT', name: 'MwSt. 19 %', rate: 19, amount: 0.95 },
      ]);
      const taxRows = await t.dataSource.query(
        'SELECT order_item_id, code, amount_minor FROM order_tax_lines WHERE order_id = ? ORDER BY id',
        [order.id],
      );
      expect(
        taxRows.map((row: { code: string; amount_minor: unknown }) => [row.code, Number(row.amount_minor)]),
      ).toEqual([
        ['DE-VAT', 380],
        ['DE-VAT-R', 70],
        ['DE-VAT', 95],
      ]);
      expect(taxRows[2].order_item_id).toBeNull();

      const [created] = await t.dataSource.query(
        "SELECT data FROM outbox_events WHERE type = 'order.created' ORDER BY created_at DESC LIMIT 1",
      );
      const payload = JSON.parse(created.data);
      expect(payload.order).toMatchObject({ currency_code: 'eur', tax_total: 5.45, total: 40.45 });
      expect(payload.items[0].tax_lines).toEqual([
        { code: 'DE-VAT', name: 'MwSt. 19 %', rate: 19, amount: 3.8 },
      ]);

      const [mail] = await smtp.waitFor(email);
      expect(mail.text).toContain('2 × €11.90 = €23.80');
      expect(mail.text).toContain('Included tax: €5.45');
      expect(mail.text).toContain('Total: €40.45');

      const payment = await api()
        .post(`/api/v1/orders/${order.id}/payments`)
        .set('X-Order-Token', order.order_token)
        .send({})
        .expect(201);
      expect(payment.body.data).toMatchObject({ amount: 40.45, currency: 'eur' });
      const sent = stripe.sent.filter((call) => call.path === '/v1/payment_intents').at(-1)!;
      expect([sent.form.get('amount'), sent.form.get('currency')]).toEqual(['4045', 'eur']);

      // Stripe reports the payment; then one unit of the first line is refunded: 11.90 of the 40.45.
      const intent = [...stripe.intents.values()].at(-1)!;
      const event = JSON.stringify({
        id: `evt_eu_${order.id}`,
        object: 'event',
        type: 'payment_intent.succeeded',
        data: { object: { ...intent, status: 'succeeded', amount_received: 4045 } },
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
      const [paid] = await t.dataSource.query('SELECT payment_status FROM orders WHERE id = ?', [order.id]);
      expect(paid.payment_status).toBe('paid');
      const refund = await asAdmin(api().post(`/api/v1/admin/orders/${order.id}/refunds`))
        .send({ amount: order.items[0].total / order.items[0].quantity })
        .expect(201);
      expect(refund.body.data.amount).toBe(11.9);
      expect(
        stripe.sent
          .filter((call) => call.path === '/v1/refunds')
          .at(-1)!
          .form.get('amount'),
      ).toBe('1190');
    });

    it('an address in a country outside the cart’s region is refused, naming the region that serves it; the cart keeps its address', async () => {
      const { id, token } = await guestCart(eu.id, [[standard.id, 1]], GERMAN_ADDRESS);
      const res = await api()
        .put(`/api/v1/carts/${id}`)
        .set('X-Cart-Token', token)
        .send({ shipping_address: CALIFORNIAN_ADDRESS })
        .expect(400);
      expect(res.body.data.errors).toEqual([
        expect.objectContaining({ field: 'shipping_address.country', rule: 'notInRegion' }),
      ]);
      expect(res.body.data.errors[0].message).toContain('Default');
      const [row] = await t.dataSource.query('SELECT shipping_address FROM carts WHERE id = ?', [id]);
      expect(JSON.parse(row.shipping_address).country).toBe('DE');
    });

    it('a guest cart claimed into a customer’s cart of another region takes that region’s currency for its lines', async () => {
      const customer = await createAccount(t);
      const mine = await api()
        .post('/api/v1/carts')
        .auth(customer.token, { type: 'bearer' })
        .send({ region_id: eu.id })
        .expect(201);
      await api()
        .post(`/api/v1/carts/${mine.body.data.id}/items`)
        .auth(customer.token, { type: 'bearer' })
        .send({ product_id: reduced.id, quantity: 1 })
        .expect(201);
      const guest = await api().post('/api/v1/carts').send({}).expect(201);
      await api()
        .post(`/api/v1/carts/${guest.body.data.id}/items`)
        .set('X-Cart-Token', guest.body.data.cart_token)
        .send({ product_id: standard.id, quantity: 2 })
        .expect(201);
      const claimed = await api()
        .post(`/api/v1/carts/${guest.body.data.id}/claim`)
        .auth(customer.token, { type: 'bearer' })
        .set('X-Cart-Token', guest.body.data.cart_token)
        .expect(200);
      expect(claimed.body.data).toMatchObject({
        id: mine.body.data.id,
        currency_code: 'eur',
        subtotal: 34.5,
      });
      const moved = claimed.body.data.items.find(
        (item: { product_id: number }) => item.product_id === standard.id,
      );
      expect(moved).toMatchObject({ price: 11.9, added_price: 11.9, problems: [] });
      const [row] = await t.dataSource.query('SELECT added_price_cents FROM cart_items WHERE id = ?', [
        moved.id,
      ]);
      expect(Number(row.added_price_cents)).toBe(1190);
    });

    it('a line with no price in the cart’s currency shows no_price, and checkout refuses it and places nothing', async () => {
      const unpriced = await createProduct(t, admin.token, { price: 3, stock: 5 });
      const { id, token, cart } = await guestCart(eu.id, [[unpriced.id, 1]], GERMAN_ADDRESS, shipping.id);
      expect(cart.items[0]).toMatchObject({ price: null, line_total: 0, total: 0 });
      expect(cart.items[0].problems).toEqual([expect.objectContaining({ code: 'no_price' })]);
      const res = await api()
        .post(`/api/v1/carts/${id}/checkout`)
        .set('X-Cart-Token', token)
        .send({ payment_method: 'bank_transfer' })
        .expect(400);
      expect(res.body.data.errors).toEqual([
        expect.objectContaining({ field: `items.${cart.items[0].id}`, rule: 'noPrice' }),
      ]);
      const [state] = await t.dataSource.query('SELECT status FROM carts WHERE id = ?', [id]);
      expect(state.status).toBe('open');
      const [{ stock }] = await t.dataSource.query('SELECT stock FROM products WHERE id = ?', [unpriced.id]);
      expect(Number(stock)).toBe(5);
    });
  });

  it('a US region with tax on top: California’s 7.25 % by subdivision, rounded half to even per line and on shipping', async () => {
    const us = await createRegion({ name: 'United States', currency_code: 'usd', countries: ['US'] });
    await createTaxRate({
      country: 'US',
      subdivision: 'CA',
      tax_class: 'standard',
      rate: 7.25,
      name: 'CA sales tax',
      code: 'US-CA',
    });
    const product = await createProduct(t, admin.token, { price: 10, stock: 20 });
    const option = await createShipping({ name: 'UPS', price: 5, countries: ['US'] });
    const { id, token, cart } = await guestCart(us.id, [[product.id, 3]], CALIFORNIAN_ADDRESS, option.id);
    // 30.00 × 7.25 % = 2.175 → 2.18 (half to even: 217.5 → 218); 5.00 × 7.25 % = 0.3625 → 0.36.
    expect(cart).toMatchObject({
      currency_code: 'usd',
      prices_include_tax: false,
      subtotal: 30,
      shipping_total: 5,
      shipping_tax_total: 0.36,
      tax_total: 2.54,
      total: 37.54,
    });
    expect(cart.items[0]).toMatchObject({ tax_total: 2.18, total: 32.18 });
    const order = (
      await api()
        .post(`/api/v1/carts/${id}/checkout`)
        .set('X-Cart-Token', token)
        .send({ payment_method: 'credit_card' })
        .expect(201)
    ).body.data;
    expect(order).toMatchObject({ total: 37.54, tax_total: 2.54 });
    await api()
      .post(`/api/v1/orders/${order.id}/payments`)
      .set('X-Order-Token', order.order_token)
      .send({})
      .expect(201);
    const sent = stripe.sent.filter((call) => call.path === '/v1/payment_intents').at(-1)!;
    expect([sent.form.get('amount'), sent.form.get('currency')]).toEqual(['3754', 'usd']);
  });

  it('a jpy region prices in whole yen, and Stripe is asked for whole yen', async () => {
    const japan = await createRegion({ name: 'Japan', currency_code: 'jpy', countries: ['JP'] });
    const product = await createProduct(t, admin.token, {
      price: 13,
      stock: 20,
      prices: [{ currency_code: 'jpy', amount: 1999 }],
    } as object);
    const option = await createShipping({
      name: 'Yamato',
      price: 4,
      prices: [{ currency_code: 'jpy', amount: 500 }],
      countries: ['JP'],
    });
    const { id, token, cart } = await guestCart(japan.id, [[product.id, 2]], JAPANESE_ADDRESS, option.id);
    expect(cart).toMatchObject({
      currency_code: 'jpy',
      subtotal: 3998,
      shipping_total: 500,
      tax_total: 0,
      total: 4498,
    });
    const order = (
      await api()
        .post(`/api/v1/carts/${id}/checkout`)
        .set('X-Cart-Token', token)
        .send({ payment_method: 'credit_card' })
        .expect(201)
    ).body.data;
    const payment = await api()
      .post(`/api/v1/orders/${order.id}/payments`)
      .set('X-Order-Token', order.order_token)
      .send({})
      .expect(201);
    expect(payment.body.data).toMatchObject({ amount: 4498, currency: 'jpy' });
    const sent = stripe.sent.filter((call) => call.path === '/v1/payment_intents').at(-1)!;
    expect([sent.form.get('amount'), sent.form.get('currency')]).toEqual(['4498', 'jpy']);
  });
});
