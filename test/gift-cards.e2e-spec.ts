import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Stripe from 'stripe';
import request from 'supertest';
import { OrdersService } from '../src/orders/orders.service.js';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { eventually } from './support/eventually.js';
import { startFakeStripe, stripeEnv, WEBHOOK_SECRET } from './support/fake-stripe.js';
import { createProduct } from './support/products.js';
import { TestSmtpServer } from './support/smtp-server.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const ADDRESS = {
  name: 'Jane Doe',
  line1: '1 Main St',
  city: 'Springfield',
  region: 'IL',
  postal_code: '62701',
  country: 'US',
};
const signer = new Stripe('sk_test_signer');

describe('gift cards', () => {
  let stripe: Awaited<ReturnType<typeof startFakeStripe>>;
  let smtp: TestSmtpServer;
  let t: TestApp;
  let admin: Account;
  let buyer: Account;
  let productId: number;

  const api = () => request(t.url);
  const asAdmin = (test: request.Test) => test.auth(admin.token, { type: 'bearer' });
  const asBuyer = (test: request.Test) => test.auth(buyer.token, { type: 'bearer' });
  const createCard = async (body: object = {}) =>
    (
      await asAdmin(api().post('/api/v1/gift-cards'))
        .send({ initial_balance: 50, currency_code: 'usd', ...body })
        .expect(201)
    ).body.data as { id: number; code: string; code_last4: string };
  const balanceOf = async (id: number) =>
    Number(
      (await t.dataSource.query('SELECT balance_minor FROM gift_cards WHERE id = ?', [id]))[0].balance_minor,
    );
  const ledgerOf = async (id: number) =>
    (
      await t.dataSource.query(
        'SELECT order_id, kind, amount_minor FROM gift_card_transactions WHERE gift_card_id = ? ORDER BY id',
        [id],
      )
    ).map((row: { order_id: number; kind: string; amount_minor: number }) => ({
      order_id: Number(row.order_id),
      kind: row.kind,
      amount: Number(row.amount_minor),
    }));
  const orderRow = async (id: number) =>
    (await t.dataSource.query('SELECT status, payment_status FROM orders WHERE id = ?', [id]))[0];
  const paymentsOf = async (orderId: number) =>
    (
      await t.dataSource.query(
        'SELECT provider, status, amount_cents, refunded_cents FROM payments WHERE order_id = ? ORDER BY id',
        [orderId],
      )
    ).map((row: { provider: string; status: string; amount_cents: number; refunded_cents: number }) => ({
      provider: row.provider,
      status: row.status,
      amount: Number(row.amount_cents),
      refunded: Number(row.refunded_cents),
    }));

  /** A customer's cart with `quantity` units of the 25.00 product and an address. */
  async function cartOf(account: Account, quantity = 1): Promise<string> {
    const auth = (test: request.Test) => test.auth(account.token, { type: 'bearer' });
    const id = (await auth(api().post('/api/v1/carts')).expect(201)).body.data.id as string;
    await auth(api().post(`/api/v1/carts/${id}/items`))
      .send({ product_id: productId, quantity })
      .expect(201);
    await auth(api().put(`/api/v1/carts/${id}`))
      .send({ shipping_address: ADDRESS })
      .expect(200);
    return id;
  }
  const apply = (cartId: string, code: string, account = buyer) =>
    api().post(`/api/v1/carts/${cartId}/gift-cards`).auth(account.token, { type: 'bearer' }).send({ code });
  const checkout = (cartId: string, account = buyer) =>
    api()
      .post(`/api/v1/carts/${cartId}/checkout`)
      .auth(account.token, { type: 'bearer' })
      .send({ payment_method: 'credit_card' });
  const refund = (orderId: number, body: object) =>
    asAdmin(api().post(`/api/v1/admin/orders/${orderId}/refunds`)).send(body);

  beforeAll(async () => {
    stripe = await startFakeStripe();
    smtp = await TestSmtpServer.create();
    t = await startTestApp({
      ...ADMIN_ENV,
      ...stripeEnv(stripe.url),
      SMTP_URL: smtp.url,
      JOBS_POLL_INTERVAL_MS: '100',
      THROTTLE_LIMIT: '100000',
      THROTTLE_CART_LIMIT: '100000',
      THROTTLE_AUTH_LIMIT: '100000',
      ORDER_MAX_PENDING_PER_USER: '1000',
      DATABASE_ACQUIRE_TIMEOUT_MS: '60000',
      DATABASE_QUERY_TIMEOUT_MS: '60000',
    });
    admin = await loginAdmin(t);
    buyer = await createAccount(t);
    productId = (await createProduct(t, admin.token, { stock: 1000, price: 25 })).id;
  });

  afterAll(async () => {
    await t.close();
    await stripe.close();
    await smtp.stop();
  });

  it('creates a card whose code (16+ characters) is shown once; lists and reads show its last four; only a hash is stored', async () => {
    const created = await createCard({ initial_balance: 40.5, expires_at: '2030-01-01T00:00:00.000Z' });
    expect(created.code).toMatch(/^[A-Z2-9]{16,}$/);
    expect(created).toMatchObject({
      code_last4: created.code.slice(-4),
      initial_balance: 40.5,
      balance: 40.5,
      currency_code: 'usd',
      expires_at: '2030-01-01T00:00:00.000Z',
      is_active: true,
    });
    const read = (await asAdmin(api().get(`/api/v1/gift-cards/${created.id}`)).expect(200)).body.data;
    expect(read).not.toHaveProperty('code');
    expect(read.code_last4).toBe(created.code.slice(-4));
    const listed = (await asAdmin(api().get('/api/v1/gift-cards')).expect(200)).body.data;
    expect(listed.find((card: { id: number }) => card.id === created.id)).not.toHaveProperty('code');
    expect(JSON.stringify(listed)).not.toContain(created.code);
    const [row] = await t.dataSource.query('SELECT * FROM gift_cards WHERE id = ?', [created.id]);
    expect(JSON.stringify(row)).not.toContain(created.code);
    expect(row.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(Number(row.balance_minor)).toBe(4050);

    const updated = await asAdmin(api().put(`/api/v1/gift-cards/${created.id}`))
      .send({ balance: 12.25, is_active: false, expires_at: null })
      .expect(200);
    expect(updated.body.data).toMatchObject({
      balance: 12.25,
      is_active: false,
      expires_at: null,
      initial_balance: 40.5,
    });
    await api().get('/api/v1/gift-cards').auth(buyer.token, { type: 'bearer' }).expect(403);
    await asAdmin(api().delete(`/api/v1/gift-cards/${created.id}`)).expect(200);
    await asAdmin(api().get(`/api/v1/gift-cards/${created.id}`)).expect(404);
  });

  it('refuses amounts that are not in the currency and unknown fields, naming field and rule; nothing is written', async () => {
    const before = (await t.dataSource.query('SELECT COUNT(*) AS n FROM gift_cards'))[0].n;
    const refusals: Array<[object, string, string]> = [
      [{ initial_balance: 10.001, currency_code: 'usd' }, 'initial_balance', 'isAmountIn'],
      [{ initial_balance: 10.5, currency_code: 'jpy' }, 'initial_balance', 'isAmountIn'],
      [{ initial_balance: -1, currency_code: 'usd' }, 'initial_balance', 'isAmountIn'],
      [{ initial_balance: 0, currency_code: 'usd' }, 'initial_balance', 'min'],
      [{ initial_balance: 10, currency_code: 'USD' }, 'currency_code', 'isCurrencyCode'],
      [{ initial_balance: 10, currency_code: 'usd', code: 'MINE' }, 'code', 'whitelistValidation'],
    ];
    for (const [body, field, rule] of refusals) {
      const res = await asAdmin(api().post('/api/v1/gift-cards')).send(body).expect(400);
      expect(res.body.data.errors).toContainEqual(expect.objectContaining({ field, rule }));
    }
    const card = await createCard({ currency_code: 'jpy', initial_balance: 5000 });
    const res = await asAdmin(api().put(`/api/v1/gift-cards/${card.id}`))
      .send({ balance: 10.5 })
      .expect(400);
    expect(res.body.data.errors[0]).toMatchObject({ field: 'balance', rule: 'isAmountIn' });
    expect(await balanceOf(card.id)).toBe(5000);
    expect(Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM gift_cards'))[0].n)).toBe(
      Number(before) + 1,
    );
  });

  it('apply refuses unknown, inactive, expired, other-currency and empty cards on `code`; the cart shows an applied card and amount_due; remove takes it off', async () => {
    const cartId = await cartOf(buyer, 2);
    const inactive = await createCard({ is_active: false });
    const expired = await createCard({ expires_at: '2020-01-01T00:00:00.000Z' });
    const euro = await createCard({ currency_code: 'eur' });
    const empty = await createCard();
    await asAdmin(api().put(`/api/v1/gift-cards/${empty.id}`))
      .send({ balance: 0 })
      .expect(200);
    const cases: Array<[string, string]> = [
      ['NOSUCHCODE000000', 'unknown'],
      [inactive.code, 'inactive'],
      [expired.code, 'expired'],
      [euro.code, 'currency'],
      [empty.code, 'noBalance'],
    ];
    for (const [code, rule] of cases) {
      const res = await apply(cartId, code).expect(400);
      expect(res.body.data.errors[0]).toMatchObject({ field: 'code', rule });
    }
    expect(await t.dataSource.query('SELECT * FROM cart_gift_cards WHERE cart_id = ?', [cartId])).toEqual([]);

    const card = await createCard({ initial_balance: 20 });
    const typed = card.code
      .toLowerCase()
      .replace(/(.{4})/g, '$1-')
      .slice(0, -1);
    const cart = (await apply(cartId, typed).expect(201)).body.data;
    expect(cart).toMatchObject({
      total: 50,
      gift_card_total: 20,
      amount_due: 30,
      gift_cards: [{ id: card.id, code_last4: card.code_last4, balance: 20, amount: 20 }],
    });
    expect(JSON.stringify(cart)).not.toContain(card.code);
    // Applying it again changes nothing.
    expect((await apply(cartId, card.code).expect(201)).body.data.gift_cards).toHaveLength(1);
    const removed = await asBuyer(api().delete(`/api/v1/carts/${cartId}/gift-cards/${card.id}`)).expect(200);
    expect(removed.body.data).toMatchObject({ gift_cards: [], gift_card_total: 0, amount_due: 50 });
    await asBuyer(api().delete(`/api/v1/carts/${cartId}/gift-cards/${card.id}`)).expect(404);
    // Someone else's cart is not found.
    const other = await createAccount(t);
    await apply(cartId, card.code, other).expect(404);
  });

  it("a guest's cards move with its lines when the cart is claimed into the customer's cart", async () => {
    const card = await createCard({ initial_balance: 10 });
    const mine = await cartOf(buyer, 1);
    const guest = (await api().post('/api/v1/carts').expect(201)).body.data;
    await api()
      .post(`/api/v1/carts/${guest.id}/items`)
      .set('X-Cart-Token', guest.cart_token)
      .send({ product_id: productId, quantity: 1 })
      .expect(201);
    await api()
      .post(`/api/v1/carts/${guest.id}/gift-cards`)
      .set('X-Cart-Token', guest.cart_token)
      .send({ code: card.code })
      .expect(201);
    const claimed = await asBuyer(api().post(`/api/v1/carts/${guest.id}/claim`))
      .set('X-Cart-Token', guest.cart_token)
      .expect(200);
    expect(claimed.body.data).toMatchObject({
      id: mine,
      total: 50,
      gift_card_total: 10,
      amount_due: 40,
      gift_cards: [{ id: card.id, amount: 10 }],
    });
    expect(
      await t.dataSource.query('SELECT cart_id FROM cart_gift_cards WHERE gift_card_id = ?', [card.id]),
    ).toEqual([{ cart_id: mine }]);
  });

  it('a card covering part: the order keeps the card, Stripe is asked for amount_due; a refund goes to Stripe up to what it took, the rest to the card', async () => {
    const card = await createCard({ initial_balance: 20 });
    const cartId = await cartOf(buyer, 2);
    await apply(cartId, card.code).expect(201);
    const order = (await checkout(cartId).expect(201)).body.data;
    expect(order).toMatchObject({
      status: 'pending',
      payment_status: 'pending',
      total: 50,
      gift_card_total: 20,
      amount_due: 30,
      gift_cards: [{ id: card.id, code_last4: card.code_last4, amount: 20 }],
    });
    expect(await balanceOf(card.id)).toBe(0);
    expect(await ledgerOf(card.id)).toEqual([{ order_id: order.id, kind: 'debit', amount: 2000 }]);

    const payment = (await asBuyer(api().post(`/api/v1/orders/${order.id}/payments`)).expect(201)).body.data;
    expect(payment).toMatchObject({ provider: 'stripe', amount: 30 });
    const sent = stripe.sent.filter((r) => r.path === '/v1/payment_intents').at(-1)!;
    expect(sent.form.get('amount')).toBe('3000');
    const ref = (payment.client_secret as string).split('_secret')[0];
    const payload = JSON.stringify({
      id: `evt_gc_${order.id}`,
      object: 'event',
      type: 'payment_intent.succeeded',
      data: { object: { ...stripe.intents.get(ref)!, status: 'succeeded', amount_received: 3000 } },
    });
    await api()
      .post('/api/v1/payments/stripe/webhook')
      .set('content-type', 'application/json')
      .set('stripe-signature', signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }))
      .send(payload)
      .expect(200);
    expect(await orderRow(order.id)).toEqual({ status: 'paid', payment_status: 'paid' });

    // Admin list and detail carry the card.
    const detail = (await asAdmin(api().get(`/api/v1/orders/${order.id}`)).expect(200)).body.data;
    expect(detail.gift_cards).toEqual([{ id: card.id, code_last4: card.code_last4, amount: 20 }]);
    const page = (await asAdmin(api().get('/api/v1/admin/orders?page_size=100')).expect(200)).body.data;
    expect(page.find((o: { id: number }) => o.id === order.id).gift_cards).toEqual(detail.gift_cards);

    const tooMuch = await refund(order.id, { amount: 50.01 }).expect(400);
    expect(tooMuch.body.data.errors[0]).toMatchObject({ field: 'amount', rule: 'max' });
    await refund(order.id, { amount: 35 }).expect(201);
    const refunds = stripe.sent.filter((r) => r.path === '/v1/refunds');
    expect(refunds.at(-1)!.form.get('amount')).toBe('3000');
    expect(await balanceOf(card.id)).toBe(500);
    expect(await orderRow(order.id)).toEqual({ status: 'paid', payment_status: 'partially_refunded' });
    await refund(order.id, {}).expect(201);
    expect(await balanceOf(card.id)).toBe(2000);
    expect(await ledgerOf(card.id)).toEqual([
      { order_id: order.id, kind: 'debit', amount: 2000 },
      { order_id: order.id, kind: 'credit', amount: 500 },
      { order_id: order.id, kind: 'credit', amount: 1500 },
    ]);
    expect(await paymentsOf(order.id)).toEqual([
      { provider: 'gift_card', status: 'refunded', amount: 2000, refunded: 2000 },
      { provider: 'stripe', status: 'refunded', amount: 3000, refunded: 3000 },
    ]);
    expect(await orderRow(order.id)).toEqual({ status: 'paid', payment_status: 'refunded' });
    expect(stripe.sent.filter((r) => r.path === '/v1/refunds')).toHaveLength(refunds.length);
  });

  it('an order the card pays fully is paid at checkout (order.paid published); a refund credits the card', async () => {
    const card = await createCard({ initial_balance: 100 });
    const cartId = await cartOf(buyer, 2);
    expect((await apply(cartId, card.code).expect(201)).body.data).toMatchObject({
      gift_card_total: 50,
      amount_due: 0,
    });
    const order = (await checkout(cartId).expect(201)).body.data;
    expect(order).toMatchObject({
      status: 'paid',
      payment_status: 'paid',
      gift_card_total: 50,
      amount_due: 0,
    });
    expect(await orderRow(order.id)).toEqual({ status: 'paid', payment_status: 'paid' });
    expect(await balanceOf(card.id)).toBe(5000);
    expect(await paymentsOf(order.id)).toEqual([
      { provider: 'gift_card', status: 'paid', amount: 5000, refunded: 0 },
    ]);
    const events: Array<{ type: string; data: string }> = await t.dataSource.query(
      "SELECT type, data FROM outbox_events WHERE type IN ('order.created', 'order.paid') AND data LIKE ? ORDER BY created_at",
      [`%"order_number":"${order.order_number}"%`],
    );
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.paid']);
    // Events (and the webhooks and e-mails made from them) carry the cards.
    for (const event of events) {
      expect(JSON.parse(event.data).order).toMatchObject({
        gift_cards: [{ id: card.id, code_last4: card.code_last4, amount: 50 }],
        gift_card_total: 50,
        amount_due: 0,
      });
    }
    expect(JSON.stringify(events)).not.toContain(card.code);
    let confirmation: { text: string } | undefined;
    await eventually(() => {
      confirmation = smtp.received.find((mail) => mail.subject === `Your order ${order.order_number}`);
      return confirmation !== undefined;
    });
    expect(confirmation!.text).toContain('Gift cards: -$50.00');
    expect(confirmation!.text).toContain('To pay: $0.00');
    await asBuyer(api().post(`/api/v1/orders/${order.id}/payments`)).expect(400);
    await refund(order.id, { amount: 10 }).expect(201);
    expect(await balanceOf(card.id)).toBe(6000);
    expect(await orderRow(order.id)).toEqual({ status: 'paid', payment_status: 'partially_refunded' });
  });

  it('cancelling and expiring give the balance back once', async () => {
    const card = await createCard({ initial_balance: 20 });
    const cancelled = await cartOf(buyer, 1);
    await apply(cancelled, card.code).expect(201);
    const first = (await checkout(cancelled).expect(201)).body.data;
    expect(await balanceOf(card.id)).toBe(0);
    await asBuyer(api().post(`/api/v1/orders/${first.id}/cancel`)).expect(200);
    await asBuyer(api().post(`/api/v1/orders/${first.id}/cancel`)).expect(400);
    expect(await balanceOf(card.id)).toBe(2000);
    expect((await paymentsOf(first.id))[0]).toMatchObject({ provider: 'gift_card', status: 'cancelled' });
    await refund(first.id, {}).expect(400);
    expect(await balanceOf(card.id)).toBe(2000);

    const expiring = await cartOf(buyer, 1);
    await apply(expiring, card.code).expect(201);
    const second = (await checkout(expiring).expect(201)).body.data;
    expect(await balanceOf(card.id)).toBe(0);
    const orders = t.app.get(OrdersService);
    const later = new Date(Date.now() + (t.config.orders.pendingTtlSeconds + 60) * 1000);
    expect(await orders.expirePending(later)).toBeGreaterThanOrEqual(1);
    expect(await orders.expirePending(later)).toBe(0);
    expect(await orderRow(second.id)).toMatchObject({ status: 'cancelled' });
    expect(await balanceOf(card.id)).toBe(2000);
    expect(await ledgerOf(card.id)).toEqual([
      { order_id: first.id, kind: 'debit', amount: 2000 },
      { order_id: first.id, kind: 'credit', amount: 2000 },
      { order_id: second.id, kind: 'debit', amount: 2000 },
      { order_id: second.id, kind: 'credit', amount: 2000 },
    ]);
  });

  it('10 concurrent checkouts drawing one card: exactly the affordable ones are placed, the others 400 on gift_cards with nothing placed; the balance never goes below zero', async () => {
    // Each cart costs 25.00; the card pays three of them.
    const card = await createCard({ initial_balance: 75 });
    const shoppers = await Promise.all(Array.from({ length: 10 }, () => createAccount(t)));
    const carts = await Promise.all(shoppers.map((shopper) => cartOf(shopper, 1)));
    for (const [i, cartId] of carts.entries()) await apply(cartId, card.code, shoppers[i]).expect(201);
    const ordersBefore = Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM orders'))[0].n);
    const results = await Promise.all(carts.map((cartId, i) => checkout(cartId, shoppers[i])));
    const placed = results.filter((res) => res.status === 201);
    const refused = results.filter((res) => res.status !== 201);
    expect(placed).toHaveLength(3);
    for (const res of placed)
      expect(res.body.data).toMatchObject({ gift_card_total: 25, amount_due: 0, status: 'paid' });
    for (const res of refused) {
      expect(res.status).toBe(400);
      expect(res.body.data.errors[0].field).toBe('gift_cards');
    }
    expect(Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM orders'))[0].n)).toBe(
      ordersBefore + 3,
    );
    const statuses = await Promise.all(
      carts.map(
        async (id) => (await t.dataSource.query('SELECT status FROM carts WHERE id = ?', [id]))[0].status,
      ),
    );
    expect(statuses.filter((status) => status === 'open')).toHaveLength(7);
    const ledger = await ledgerOf(card.id);
    expect(ledger).toHaveLength(3);
    expect(await balanceOf(card.id)).toBe(
      7500 - ledger.reduce((sum: number, row: { amount: number }) => sum + row.amount, 0),
    );
    expect(await balanceOf(card.id)).toBe(0);
  });
});

describe('gift card codes are rate limited like login', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ ...ADMIN_ENV, THROTTLE_AUTH_LIMIT: '3' });
  });

  afterAll(async () => {
    await t.close();
  });

  it('guessing codes past THROTTLE_AUTH_LIMIT is 429 with Retry-After, and nothing is applied', async () => {
    const res = await request(t.url).post('/api/v1/carts').expect(201);
    const { id, cart_token: token } = res.body.data;
    const guess = (code: string) =>
      request(t.url).post(`/api/v1/carts/${id}/gift-cards`).set('X-Cart-Token', token).send({ code });
    for (let i = 0; i < 3; i++) await guess(`GUESS${i}00000000000`).expect(400);
    const limited = await guess('GUESS400000000000').expect(429);
    expect(limited.headers['retry-after']).toBeDefined();
    expect(await t.dataSource.query('SELECT * FROM cart_gift_cards WHERE cart_id = ?', [id])).toEqual([]);
  });
});
