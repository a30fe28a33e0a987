import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Stripe from 'stripe';
import request from 'supertest';
import { OrdersService } from '../src/orders/orders.service.js';
import { PaymentsService } from '../src/payments/payments.service.js';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { scrape } from './support/metrics.js';
import { eventually } from './support/eventually.js';
import { placeOrder } from './support/orders.js';
import { createProduct } from './support/products.js';
import { startFakeStripe, stripeEnv, WEBHOOK_SECRET } from './support/fake-stripe.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const signer = new Stripe('sk_test_signer');

let eventNumber = 0;
function stripeEvent(type: string, object: Record<string, unknown>, id = `evt_${++eventNumber}`) {
  return JSON.stringify({ id, object: 'event', type, data: { object } });
}

/** payment_intent.succeeded for the whole 25.00 of the tests' orders. */
function succeededEvent(intent: Record<string, unknown>) {
  return stripeEvent('payment_intent.succeeded', { ...intent, status: 'succeeded', amount_received: 2500 });
}

function sendWebhook(t: TestApp, payload: string, header?: string) {
  return request(t.url)
    .post('/api/v1/payments/stripe/webhook')
    .set('content-type', 'application/json')
    .set(
      'stripe-signature',
      header ?? signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }),
    )
    .send(payload);
}

describe('payments through Stripe and the manual provider', () => {
  let stripe: Awaited<ReturnType<typeof startFakeStripe>>;
  let t: TestApp;
  let admin: Account;
  let buyer: Account;
  let other: Account;
  let productId: number;

  beforeAll(async () => {
    stripe = await startFakeStripe();
    t = await startTestApp({
      ...ADMIN_ENV,
      ...stripeEnv(stripe.url),
      PAYMENT_RECONCILE_AFTER: '1',
    });
    admin = await loginAdmin(t);
    buyer = await createAccount(t);
    other = await createAccount(t);
    productId = (await createProduct(t, admin.token, { stock: 100, price: 12.5 })).id;
  });

  afterAll(async () => {
    await t.close();
    await stripe.close();
  });

  const place = async (method = 'credit_card', quantity = 2) =>
    (
      await request(t.url)
        .post('/api/v1/orders')
        .auth(buyer.token, { type: 'bearer' })
        .send({
          items: [{ product_id: productId, quantity }],
          shipping_address: '1 Main St',
          payment_method: method,
        })
        .expect(201)
    ).body.data.id as number;
  const pay = (orderId: number, token = buyer.token) =>
    request(t.url).post(`/api/v1/orders/${orderId}/payments`).auth(token, { type: 'bearer' });
  /** Creates the order's payment and gives its PaymentIntent's id. */
  const intentIdOf = async (orderId: number) =>
    ((await pay(orderId).expect(201)).body.data.client_secret as string).split('_secret')[0];
  const paymentRow = async (orderId: number) =>
    (
      await t.dataSource.query(
        'SELECT status, refunded_cents, flag, provider_ref FROM payments WHERE order_id = ? ORDER BY id DESC',
        [orderId],
      )
    )[0];
  const orderRow = async (orderId: number) =>
    (await t.dataSource.query('SELECT status, payment_status FROM orders WHERE id = ?', [orderId]))[0];
  const intentOf = (ref: string) => stripe.intents.get(ref)!;

  it('creates a PaymentIntent with the amount in cents, the currency, an idempotency key and both ids; a repeat returns the live payment', async () => {
    const orderId = await place();
    const created = await pay(orderId).expect(201);
    const payment = created.body.data;
    expect(payment).toMatchObject({
      order_id: orderId,
      provider: 'stripe',
      status: 'pending',
      amount: 25,
      currency: 'usd',
      client_secret: 'pi_1_secret_x',
    });
    const sent = stripe.sent.find((r) => r.path === '/v1/payment_intents')!;
    expect(sent.form.get('amount')).toBe('2500');
    expect(sent.form.get('currency')).toBe('usd');
    expect(sent.form.get('metadata[order_id]')).toBe(String(orderId));
    expect(sent.form.get('metadata[payment_id]')).toBe(String(payment.id));
    expect(sent.idempotencyKey).toBe(`payment-${payment.id}-create`);
    const again = await pay(orderId).expect(200);
    expect(again.body.data.id).toBe(payment.id);
    expect(stripe.sent.filter((r) => r.path === '/v1/payment_intents')).toHaveLength(1);
    const listed = await request(t.url)
      .get(`/api/v1/orders/${orderId}/payments`)
      .auth(buyer.token, { type: 'bearer' })
      .expect(200);
    expect(listed.body.data).toEqual([again.body.data]);
  });

  it("another user's order is 404 for its payments", async () => {
    const orderId = await place();
    await pay(orderId, other.token).expect(404);
    await request(t.url)
      .get(`/api/v1/orders/${orderId}/payments`)
      .auth(other.token, { type: 'bearer' })
      .expect(404);
    expect(await t.dataSource.query('SELECT id FROM payments WHERE order_id = ?', [orderId])).toEqual([]);
  });

  it('payment_intent.succeeded marks the payment and the order paid once; a redelivery is 200 and does nothing; a late failure changes nothing', async () => {
    const orderId = await place();
    const ref = await intentIdOf(orderId);
    const succeeded = succeededEvent(intentOf(ref));
    expect((await sendWebhook(t, succeeded).expect(200)).body.data).toEqual({
      received: true,
      applied: true,
    });
    expect(await paymentRow(orderId)).toMatchObject({ status: 'paid', flag: null });
    expect(await orderRow(orderId)).toEqual({ status: 'paid', payment_status: 'paid' });
    // The webhook's change is the payment provider's: in the order's events and in its timeline.
    const [updated] = await t.dataSource.query(
      "SELECT data FROM outbox_events WHERE order_id = ? AND type = 'order.updated'",
      [orderId],
    );
    expect(JSON.parse(updated.data).actor).toEqual({ type: 'payment_provider', id: null });
    const timeline = await request(t.url)
      .get(`/api/v1/admin/orders/${orderId}/timeline`)
      .auth(admin.token, { type: 'bearer' })
      .expect(200);
    expect(
      timeline.body.data
        .filter((entry: { type: string }) => ['payment', 'status_changed'].includes(entry.type))
        .map(({ type, actor, data }: { type: string; actor: object; data: Record<string, unknown> }) => ({
          type,
          actor,
          status: data.status,
        })),
    ).toEqual([
      { type: 'payment', actor: { type: 'payment_provider', id: null }, status: 'paid' },
      { type: 'status_changed', actor: { type: 'payment_provider', id: null }, status: 'paid' },
    ]);
    expect((await sendWebhook(t, succeeded).expect(200)).body.data).toEqual({
      received: true,
      applied: false,
    });
    await sendWebhook(
      t,
      stripeEvent('payment_intent.payment_failed', {
        ...intentOf(ref),
        last_payment_error: { code: 'card_declined' },
      }),
    ).expect(200);
    expect(await paymentRow(orderId)).toMatchObject({ status: 'paid' });
    expect(await orderRow(orderId)).toEqual({ status: 'paid', payment_status: 'paid' });
  });

  it('a forged or stale signature is 400 and changes nothing', async () => {
    const orderId = await place();
    const ref = await intentIdOf(orderId);
    const payload = succeededEvent(intentOf(ref));
    const forged = signer.webhooks.generateTestHeaderString({ payload, secret: 'whsec_other' });
    const forgedResponse = await sendWebhook(t, payload, forged).expect(400);
    expect(forgedResponse.body.data.errors[0]).toMatchObject({
      field: 'Stripe-Signature',
      rule: 'signature',
    });
    const stale = signer.webhooks.generateTestHeaderString({
      payload,
      secret: WEBHOOK_SECRET,
      timestamp: Math.floor(Date.now() / 1000) - 301,
    });
    await sendWebhook(t, payload, stale).expect(400);
    expect(await paymentRow(orderId)).toMatchObject({ status: 'pending' });
    expect(await orderRow(orderId)).toEqual({ status: 'pending', payment_status: 'pending' });
    expect(
      await t.dataSource.query('SELECT id FROM payment_provider_events WHERE id = ?', [
        JSON.parse(payload).id,
      ]),
    ).toEqual([]);
  });

  it('an amount different from the order never marks it paid: flagged and counted', async () => {
    const orderId = await place();
    const ref = await intentIdOf(orderId);
    const before = (await scrape(t.url)).value('commerce_payment_amount_mismatches_total') ?? 0;
    await sendWebhook(
      t,
      stripeEvent('payment_intent.succeeded', {
        ...intentOf(ref),
        status: 'succeeded',
        amount: 100,
        amount_received: 100,
      }),
    ).expect(200);
    expect(await paymentRow(orderId)).toMatchObject({ status: 'pending', flag: 'amount_mismatch' });
    expect(await orderRow(orderId)).toEqual({ status: 'pending', payment_status: 'pending' });
    expect((await scrape(t.url)).value('commerce_payment_amount_mismatches_total')).toBe(before + 1);
  });

  it('a failure then a success on retry ends paid; a refund event before its success event ends paid and refunded, as in order', async () => {
    const orderId = await place();
    const ref = await intentIdOf(orderId);
    await sendWebhook(
      t,
      stripeEvent('payment_intent.payment_failed', {
        ...intentOf(ref),
        last_payment_error: { code: 'card_declined' },
      }),
    ).expect(200);
    expect(await orderRow(orderId)).toEqual({ status: 'pending', payment_status: 'failed' });
    await sendWebhook(t, succeededEvent(intentOf(ref))).expect(200);
    expect(await orderRow(orderId)).toEqual({ status: 'paid', payment_status: 'paid' });

    const second = await place();
    const ref2 = await intentIdOf(second);
    const metadata = intentOf(ref2).metadata;
    await sendWebhook(
      t,
      stripeEvent('charge.refunded', {
        id: 'ch_1',
        object: 'charge',
        amount: 2500,
        amount_refunded: 2500,
        currency: 'usd',
        payment_intent: ref2,
        metadata,
      }),
    ).expect(200);
    await sendWebhook(t, succeededEvent(intentOf(ref2))).expect(200);
    expect(await paymentRow(second)).toMatchObject({ status: 'refunded' });
    expect(await orderRow(second)).toEqual({ status: 'paid', payment_status: 'refunded' });
  });

  it('the success webhook arriving before the create call returns leaves the payment paid', async () => {
    const orderId = await place();
    stripe.onCreate(async (intent) => {
      await sendWebhook(t, succeededEvent(intent)).expect(200);
    });
    try {
      const created = await pay(orderId).expect(201);
      expect(created.body.data).toMatchObject({
        status: 'paid',
        client_secret: expect.stringMatching(/^pi_/),
      });
    } finally {
      stripe.onCreate(null);
    }
    expect(await orderRow(orderId)).toEqual({ status: 'paid', payment_status: 'paid' });
  });

  it('refunds: partial then the rest, never more than paid; Idempotency-Key replays; payment_status follows', async () => {
    const orderId = await place();
    const ref = await intentIdOf(orderId);
    await sendWebhook(t, succeededEvent(intentOf(ref))).expect(200);
    const refund = (body: object, key?: string) => {
      const r = request(t.url)
        .post(`/api/v1/admin/orders/${orderId}/refunds`)
        .auth(admin.token, { type: 'bearer' });
      if (key !== undefined) r.set('Idempotency-Key', key);
      return r.send(body);
    };
    const first = await refund({ amount: 10, reason: 'one cup broken' }, 'refund-a').expect(201);
    expect(first.body.data).toMatchObject({ amount: 10, status: 'succeeded', reason: 'one cup broken' });
    const sent = stripe.sent.filter((r) => r.path === '/v1/refunds');
    expect(sent).toHaveLength(1);
    expect(sent[0].form.get('amount')).toBe('1000');
    expect(sent[0].form.get('payment_intent')).toBe(ref);
    expect(sent[0].idempotencyKey).toBe(`refund-${first.body.data.id}`);
    const replayed = await refund({ amount: 10, reason: 'one cup broken' }, 'refund-a').expect(201);
    expect(replayed.body.data.id).toBe(first.body.data.id);
    expect(stripe.sent.filter((r) => r.path === '/v1/refunds')).toHaveLength(1);
    expect(await orderRow(orderId)).toEqual({ status: 'paid', payment_status: 'partially_refunded' });
    const tooMuch = await refund({ amount: 15.01 }).expect(400);
    expect(tooMuch.body.data.errors[0]).toMatchObject({ field: 'amount', rule: 'max' });
    await refund({}).expect(201);
    expect(await paymentRow(orderId)).toMatchObject({
      status: 'refunded',
      refunded_cents: expect.anything(),
    });
    expect(Number((await paymentRow(orderId)).refunded_cents)).toBe(2500);
    expect(await orderRow(orderId)).toEqual({ status: 'paid', payment_status: 'refunded' });
    const listed = await request(t.url)
      .get(`/api/v1/admin/orders/${orderId}/refunds`)
      .auth(admin.token, { type: 'bearer' })
      .expect(200);
    expect(listed.body.data.map((r: { amount: number }) => r.amount)).toEqual([10, 15]);
    await request(t.url)
      .get(`/api/v1/admin/orders/${orderId}/refunds`)
      .auth(buyer.token, { type: 'bearer' })
      .expect(403);
  });

  it('cancelling an order cancels its payment in the same transaction and its PaymentIntent after; money arriving later is flagged and refunded', async () => {
    const orderId = await place();
    const payment = (await pay(orderId).expect(201)).body.data;
    await request(t.url)
      .post(`/api/v1/orders/${orderId}/cancel`)
      .auth(buyer.token, { type: 'bearer' })
      .expect(200);
    expect(await paymentRow(orderId)).toMatchObject({ status: 'cancelled' });
    const ref = (await paymentRow(orderId)).provider_ref as string;
    await eventually(() => intentOf(ref).status === 'canceled');
    const cancel = stripe.sent.find((r) => r.path === `/v1/payment_intents/${ref}/cancel`)!;
    expect(cancel.idempotencyKey).toBe(`payment-${payment.id}-cancel`);
    const before = (await scrape(t.url)).value('commerce_payments_paid_after_cancel_total') ?? 0;
    await sendWebhook(t, succeededEvent(intentOf(ref))).expect(200);
    expect(await orderRow(orderId)).toEqual({ status: 'cancelled', payment_status: 'refunded' });
    expect(await paymentRow(orderId)).toMatchObject({ status: 'refunded', flag: 'paid_after_cancel' });
    expect([...stripe.refunds.values()].filter((r) => r.payment_intent === ref)).toEqual([
      expect.objectContaining({ amount: 2500 }),
    ]);
    expect((await scrape(t.url)).value('commerce_payments_paid_after_cancel_total')).toBe(before + 1);
    const listed = await request(t.url)
      .get(`/api/v1/orders/${orderId}/payments`)
      .auth(admin.token, { type: 'bearer' })
      .expect(200);
    expect(listed.body.data).toEqual([
      expect.objectContaining({ id: payment.id, status: 'refunded', flag: 'paid_after_cancel' }),
    ]);
  });

  it('payment_intent.canceled cancels the payment (the order waits for another); an event of no interest is 200 and ignored', async () => {
    const orderId = await place();
    const ref = await intentIdOf(orderId);
    await sendWebhook(
      t,
      stripeEvent('payment_intent.canceled', { ...intentOf(ref), status: 'canceled' }),
    ).expect(200);
    expect(await paymentRow(orderId)).toMatchObject({ status: 'cancelled' });
    expect(await orderRow(orderId)).toEqual({ status: 'pending', payment_status: 'pending' });
    const next = await pay(orderId).expect(201);
    expect(next.body.data).toMatchObject({ status: 'pending', client_secret: expect.stringMatching(/^pi_/) });
    expect(next.body.data.client_secret).not.toContain(ref);
    const ignored = await sendWebhook(
      t,
      stripeEvent('customer.created', { id: 'cus_1', object: 'customer' }),
    );
    expect(ignored.status).toBe(200);
    expect(ignored.body.data).toEqual({ received: true, applied: false });
  });

  it('an order cancelled while its intent already succeeded stays cancelled; the money is flagged and refunded by itself', async () => {
    const orderId = await place();
    const ref = await intentIdOf(orderId);
    Object.assign(intentOf(ref), { status: 'succeeded', amount_received: 2500 });
    await request(t.url)
      .post(`/api/v1/orders/${orderId}/cancel`)
      .auth(buyer.token, { type: 'bearer' })
      .expect(200);
    await eventually(async () => (await paymentRow(orderId)).status === 'refunded');
    expect(await paymentRow(orderId)).toMatchObject({ status: 'refunded', flag: 'paid_after_cancel' });
    expect(await orderRow(orderId)).toEqual({ status: 'cancelled', payment_status: 'refunded' });
    const refunds = await request(t.url)
      .get(`/api/v1/admin/orders/${orderId}/refunds`)
      .auth(admin.token, { type: 'bearer' })
      .expect(200);
    expect(refunds.body.data).toEqual([
      expect.objectContaining({
        amount: 25,
        status: 'succeeded',
        reason: 'paid after the order was cancelled',
      }),
    ]);
  });

  it('a signed body that is not an event is 400 on body on both databases, and stores nothing', async () => {
    const orderId = await place();
    const ref = await intentIdOf(orderId);
    const longId = `evt_${'x'.repeat(296)}`;
    const bodies: Array<[string, string]> = [
      ['null', 'body must be a JSON object (an event)'],
      ['[]', 'body must be a JSON object (an event)'],
      ['not json', 'body is not JSON'],
      [
        JSON.stringify({ id: 'evt_nodata', type: 'payment_intent.succeeded' }),
        'body.data.object must be an object',
      ],
      [
        JSON.stringify({ id: 'evt_nullobject', type: 'payment_intent.succeeded', data: { object: null } }),
        'body.data.object must be an object',
      ],
      [
        JSON.stringify({
          id: 'evt_noamount',
          type: 'charge.refunded',
          data: { object: { currency: 'usd' } },
        }),
        'body.data.object.amount must be a number',
      ],
      [
        stripeEvent('payment_intent.succeeded', { ...intentOf(ref), status: 'succeeded' }, longId),
        'body.id must be a string of 1-255 characters',
      ],
      [
        JSON.stringify({ type: 'payment_intent.succeeded', data: { object: intentOf(ref) } }),
        'body.id must be a string of 1-255 characters',
      ],
    ];
    for (const [body, message] of bodies) {
      const response = await sendWebhook(t, body);
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
      expect(response.body).toMatchObject({
        code: 400,
        data: { errors: [{ field: 'body', rule: 'event', message }] },
      });
    }
    expect(
      await t.dataSource.query('SELECT id FROM payment_provider_events WHERE id IN (?, ?, ?)', [
        'evt_nodata',
        'evt_nullobject',
        'evt_noamount',
      ]),
    ).toEqual([]);
    expect(await paymentRow(orderId)).toMatchObject({ status: 'pending' });
    expect(await orderRow(orderId)).toEqual({ status: 'pending', payment_status: 'pending' });
  });

  it('an event about another PaymentIntent naming our payment in its metadata changes nothing', async () => {
    const orderId = await place();
    const ref = await intentIdOf(orderId);
    const foreign = { ...intentOf(ref), id: 'pi_someone_else', status: 'succeeded', amount_received: 2500 };
    const response = await sendWebhook(t, stripeEvent('payment_intent.succeeded', foreign)).expect(200);
    expect(response.body.data).toEqual({ received: true, applied: true });
    expect(await paymentRow(orderId)).toMatchObject({ status: 'pending', provider_ref: ref });
    expect(await orderRow(orderId)).toEqual({ status: 'pending', payment_status: 'pending' });
    await sendWebhook(t, succeededEvent(intentOf(ref))).expect(200);
    expect(await orderRow(orderId)).toEqual({ status: 'paid', payment_status: 'paid' });
  });

  it('a signature outside the 5-minute tolerance is refused, saying which way', async () => {
    const orderId = await place();
    const payload = succeededEvent(intentOf(await intentIdOf(orderId)));
    const at = (offset: number) =>
      signer.webhooks.generateTestHeaderString({
        payload,
        secret: WEBHOOK_SECRET,
        timestamp: Math.floor(Date.now() / 1000) + offset,
      });
    const ahead = await sendWebhook(t, payload, at(600)).expect(400);
    expect(ahead.body.data.errors[0]).toMatchObject({
      field: 'Stripe-Signature',
      rule: 'future',
      message: expect.stringMatching(
        /^Stripe-Signature is dated \d+ s ahead, more than the 300 s tolerance$/,
      ),
    });
    const stale = await sendWebhook(t, payload, at(-600)).expect(400);
    expect(stale.body.data.errors[0]).toMatchObject({
      field: 'Stripe-Signature',
      rule: 'expired',
      message: expect.stringMatching(/^Stripe-Signature was made \d+ s ago, more than the 300 s tolerance$/),
    });
    expect(await orderRow(orderId)).toEqual({ status: 'pending', payment_status: 'pending' });
    await sendWebhook(t, payload, at(200)).expect(200);
    expect(await orderRow(orderId)).toEqual({ status: 'paid', payment_status: 'paid' });
  });

  it('an Idempotency-Key reused with another amount or reason is 400 and refunds nothing more', async () => {
    const orderId = await place();
    await sendWebhook(t, succeededEvent(intentOf(await intentIdOf(orderId)))).expect(200);
    const refund = (body: object) =>
      request(t.url)
        .post(`/api/v1/admin/orders/${orderId}/refunds`)
        .auth(admin.token, { type: 'bearer' })
        .set('Idempotency-Key', `key-${orderId}`)
        .send(body);
    await refund({ amount: 5 }).expect(201);
    for (const body of [{ amount: 6 }, {}, { amount: 5, reason: 'other' }]) {
      const misuse = await refund(body).expect(400);
      expect(misuse.body.data.errors[0]).toEqual({
        field: 'Idempotency-Key',
        rule: 'sameRequest',
        message: 'Idempotency-Key was already used with a different amount or reason',
      });
    }
    expect(Number((await paymentRow(orderId)).refunded_cents)).toBe(500);
    expect(
      await t.dataSource.query(
        'SELECT r.amount_cents FROM payment_refunds r JOIN payments p ON p.id = r.payment_id WHERE p.order_id = ?',
        [orderId],
      ),
    ).toHaveLength(1);
  });

  it('a refund whose answer from Stripe was lost stays pending and is settled once by the job with the same key', async () => {
    const orderId = await place();
    const ref = await intentIdOf(orderId);
    await sendWebhook(t, succeededEvent(intentOf(ref))).expect(200);
    stripe.faults.refundsFail = true;
    let pending;
    try {
      pending = await request(t.url)
        .post(`/api/v1/admin/orders/${orderId}/refunds`)
        .auth(admin.token, { type: 'bearer' })
        .send({ amount: 7 })
        .expect(201);
    } finally {
      stripe.faults.refundsFail = false;
    }
    expect(pending.body.data).toMatchObject({ amount: 7, status: 'pending' });
    expect(Number((await paymentRow(orderId)).refunded_cents)).toBe(700);
    const service = t.app.get(PaymentsService);
    // Not yet older than PAYMENT_RECONCILE_AFTER (1 s): left alone.
    expect(await service.settleRefunds(new Date(Date.now() - 5000))).toBe(0);
    expect(await service.settleRefunds(new Date(Date.now() + 2000))).toBeGreaterThanOrEqual(1);
    const [row] = await t.dataSource.query('SELECT status, provider_ref FROM payment_refunds WHERE id = ?', [
      pending.body.data.id,
    ]);
    expect(row).toEqual({
      status: 'succeeded',
      provider_ref: stripe.refunds.get(`refund-${pending.body.data.id}`)!.id,
    });
    expect([...stripe.refunds.values()].filter((r) => r.payment_intent === ref)).toHaveLength(1);
    expect(await paymentRow(orderId)).toMatchObject({ status: 'partially_refunded' });
    expect(Number((await paymentRow(orderId)).refunded_cents)).toBe(700);
    expect(await orderRow(orderId)).toEqual({ status: 'paid', payment_status: 'partially_refunded' });
    await service.settleRefunds(new Date(Date.now() + 2000));
    expect(Number((await paymentRow(orderId)).refunded_cents)).toBe(700);
  });

  it('a guest pays a guest order with its X-Order-Token; a wrong token is 404, no token 401', async () => {
    const cart = (await request(t.url).post('/api/v1/carts').expect(201)).body.data;
    const withCart = (req: request.Test) => req.set('X-Cart-Token', cart.cart_token);
    await withCart(request(t.url).post(`/api/v1/carts/${cart.id}/items`))
      .send({ product_id: productId, quantity: 2 })
      .expect(201);
    await withCart(request(t.url).put(`/api/v1/carts/${cart.id}`))
      .send({
        email: 'guest@example.com',
        shipping_address: {
          name: 'Jane Doe',
          line1: '1 Main St',
          city: 'Springfield',
          postal_code: '62701',
          country: 'US',
        },
      })
      .expect(200);
    const order = (
      await withCart(request(t.url).post(`/api/v1/carts/${cart.id}/checkout`))
        .send({ payment_method: 'credit_card' })
        .expect(201)
    ).body.data;
    await request(t.url).post(`/api/v1/orders/${order.id}/payments`).expect(401);
    await request(t.url)
      .post(`/api/v1/orders/${order.id}/payments`)
      .set('X-Order-Token', 'wrong')
      .expect(404);
    await pay(order.id).expect(404);
    const payment = (
      await request(t.url)
        .post(`/api/v1/orders/${order.id}/payments`)
        .set('X-Order-Token', order.order_token)
        .expect(201)
    ).body.data;
    expect(payment).toMatchObject({
      order_id: order.id,
      provider: 'stripe',
      status: 'pending',
      amount: order.total_amount,
    });
    const ref = (payment.client_secret as string).split('_secret')[0];
    expect(intentOf(ref).amount).toBe(Math.round(order.total_amount * 100));
    await sendWebhook(
      t,
      stripeEvent('payment_intent.succeeded', {
        ...intentOf(ref),
        status: 'succeeded',
        amount_received: intentOf(ref).amount,
      }),
    ).expect(200);
    const listed = await request(t.url)
      .get(`/api/v1/orders/${order.id}/payments`)
      .set('X-Order-Token', order.order_token)
      .expect(200);
    expect(listed.body.data).toEqual([expect.objectContaining({ id: payment.id, status: 'paid' })]);
    expect(await orderRow(order.id)).toEqual({ status: 'paid', payment_status: 'paid' });
  });

  it('reconciliation reads back a payment whose webhook never came; an abandoned one is read once per PAYMENT_RECONCILE_AFTER', async () => {
    const orderId = await place();
    const ref = await intentIdOf(orderId);
    const abandoned = await place();
    const abandonedRef = await intentIdOf(abandoned);
    Object.assign(intentOf(ref), { status: 'succeeded', amount_received: 2500 });
    const reads = (id: string) =>
      stripe.sent.filter((r) => r.method === 'GET' && r.path === `/v1/payment_intents/${id}`);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await t.app.get(PaymentsService).reconcile();
    expect(await paymentRow(orderId)).toMatchObject({ status: 'paid' });
    expect(await orderRow(orderId)).toEqual({ status: 'paid', payment_status: 'paid' });
    expect(reads(ref).length).toBeGreaterThanOrEqual(1);
    // Read (by this call or by the scheduled job running beside it), then not again until it is due.
    const readsOfAbandoned = reads(abandonedRef).length;
    expect(readsOfAbandoned).toBeGreaterThanOrEqual(1);
    await t.app.get(PaymentsService).reconcile();
    expect(reads(abandonedRef)).toHaveLength(readsOfAbandoned);
    expect(await paymentRow(abandoned)).toMatchObject({ status: 'pending' });
  });

  it('manual: the payment has no client secret and becomes paid with the admin status change', async () => {
    const orderId = await place('bank_transfer');
    const payment = (await pay(orderId).expect(201)).body.data;
    expect(payment).toMatchObject({ provider: 'manual', status: 'pending', client_secret: null });
    await request(t.url)
      .patch(`/api/v1/orders/${orderId}/status`)
      .auth(admin.token, { type: 'bearer' })
      .send({ status: 'paid', payment_status: 'paid' })
      .expect(200);
    expect(await paymentRow(orderId)).toMatchObject({ status: 'paid' });
    const cancel = await request(t.url)
      .patch(`/api/v1/orders/${orderId}/status`)
      .auth(admin.token, { type: 'bearer' })
      .send({ status: 'cancelled' })
      .expect(400);
    expect(cancel.body.data.errors[0]).toMatchObject({ field: 'status', rule: 'refundRequired' });
    const methods = await request(t.url)
      .get('/api/v1/payment-methods')
      .auth(buyer.token, { type: 'bearer' })
      .expect(200);
    expect(methods.body.data.providers).toMatchObject({ credit_card: 'stripe', bank_transfer: 'manual' });
  });
});

describe('payments across order expiry and two instances', () => {
  let stripe: Awaited<ReturnType<typeof startFakeStripe>>;
  let t: TestApp;
  let second: TestApp;
  let admin: Account;
  let buyer: Account;
  let productId: number;
  const env = () => ({
    ...ADMIN_ENV,
    ...stripeEnv(stripe.url),
    // Expiry is run by the test itself, below.
    ORDER_PENDING_TTL: '1',
    ORDER_EXPIRY_INTERVAL: '1h',
  });

  beforeAll(async () => {
    stripe = await startFakeStripe();
    t = await startTestApp(env());
    second = await startTestApp({ ...env(), DATABASE_URL: t.databaseUrl });
    admin = await loginAdmin(t);
    buyer = await createAccount(t);
    productId = (await createProduct(t, admin.token, { stock: 100, price: 12.5 })).id;
  });

  afterAll(async () => {
    await second.close();
    await t.close();
    await stripe.close();
  });

  const placeAndPay = async () => {
    const orderId = (await placeOrder(t, buyer.token, [[productId, 2]]).expect(201)).body.data.id as number;
    const payment = (
      await request(t.url)
        .post(`/api/v1/orders/${orderId}/payments`)
        .auth(buyer.token, { type: 'bearer' })
        .expect(201)
    ).body.data;
    const [{ provider_ref: ref }] = await t.dataSource.query(
      'SELECT provider_ref FROM payments WHERE id = ?',
      [payment.id],
    );
    return { orderId, paymentId: payment.id as number, ref: ref as string };
  };
  const stateOf = async (orderId: number) =>
    (
      await t.dataSource.query(
        'SELECT o.status, o.payment_status, p.status AS payment FROM orders o JOIN payments p ON p.order_id = o.id WHERE o.id = ?',
        [orderId],
      )
    )[0];

  it('expiry skips an order whose payment is authorized and cancels the PaymentIntent of one it expires', async () => {
    const authorized = await placeAndPay();
    const waiting = await placeAndPay();
    await sendWebhook(
      t,
      stripeEvent('payment_intent.amount_capturable_updated', {
        ...stripe.intents.get(authorized.ref)!,
        status: 'requires_capture',
      }),
    ).expect(200);
    expect(await stateOf(authorized.orderId)).toEqual({
      status: 'pending',
      payment_status: 'pending',
      payment: 'authorized',
    });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await t.app.get(OrdersService).expirePending()).toBe(1);
    expect(await stateOf(waiting.orderId)).toEqual({
      status: 'cancelled',
      payment_status: 'pending',
      payment: 'cancelled',
    });
    await eventually(() => stripe.intents.get(waiting.ref)!.status === 'canceled');
    expect(stripe.sent.some((r) => r.path === `/v1/payment_intents/${authorized.ref}/cancel`)).toBe(false);
    expect(await stateOf(authorized.orderId)).toMatchObject({ status: 'pending', payment: 'authorized' });
  });

  it('the same webhook reaching two instances at once is applied once', async () => {
    const { orderId, ref } = await placeAndPay();
    const payload = succeededEvent(stripe.intents.get(ref)!);
    const [a, b] = await Promise.all([sendWebhook(t, payload), sendWebhook(second, payload)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect([a.body.data.applied, b.body.data.applied].sort()).toEqual([false, true]);
    expect(await stateOf(orderId)).toEqual({ status: 'paid', payment_status: 'paid', payment: 'paid' });
    const paidEvents = await t.dataSource.query(
      "SELECT id FROM outbox_events WHERE type = 'order.paid' AND data LIKE ?",
      [`%"order":{"id":${orderId},%`],
    );
    expect(paidEvents).toHaveLength(1);
    expect(
      await t.dataSource.query('SELECT id FROM payment_provider_events WHERE id = ?', [
        JSON.parse(payload).id,
      ]),
    ).toHaveLength(1);
  });
});

describe('a payment never outlives its order: cancelling while the PaymentIntent is being created', () => {
  let stripe: Awaited<ReturnType<typeof startFakeStripe>>;
  let t: TestApp;
  let admin: Account;
  let buyer: Account;
  let productId: number;
  const ROUNDS = 20;

  beforeAll(async () => {
    stripe = await startFakeStripe();
    t = await startTestApp({
      ...ADMIN_ENV,
      ...stripeEnv(stripe.url),
      ORDER_PENDING_TTL: '1',
      ORDER_EXPIRY_INTERVAL: '1h',
      ORDER_MAX_PENDING_PER_USER: '1000',
    });
    admin = await loginAdmin(t);
    buyer = await createAccount(t);
    productId = (await createProduct(t, admin.token, { stock: 1000, price: 12.5 })).id;
  });

  afterAll(async () => {
    stripe.onCreate(null);
    await t.close();
    await stripe.close();
  });

  const cancels = {
    customer: (orderId: number) =>
      request(t.url)
        .post(`/api/v1/orders/${orderId}/cancel`)
        .auth(buyer.token, { type: 'bearer' })
        .then((r) => r.status),
    admin: (orderId: number) =>
      request(t.url)
        .patch(`/api/v1/orders/${orderId}/status`)
        .auth(admin.token, { type: 'bearer' })
        .send({ status: 'cancelled' })
        .then((r) => r.status),
    // The expiry job, as if ORDER_PENDING_TTL had passed.
    expiry: (orderId: number) =>
      t.app
        .get(OrdersService)
        .expirePending(new Date(Date.now() + 5000))
        .then(async () => ((await stateOf(orderId)).status === 'cancelled' ? 200 : 0)),
  };
  const stateOf = async (orderId: number) =>
    (await t.dataSource.query('SELECT status, payment_status FROM orders WHERE id = ?', [orderId]))[0];

  it.each(Object.keys(cancels) as Array<keyof typeof cancels>)(
    'through the %s path, 20 rounds with Stripe taking 300 ms to create: no PaymentIntent left open, no client secret for a cancelled order',
    async (path) => {
      const stockBefore = (
        await t.dataSource.query('SELECT stock FROM products WHERE id = ?', [productId])
      )[0].stock;
      stripe.onCreate(() => new Promise((resolve) => setTimeout(resolve, 300)));
      const outcomes = { paymentFirst: 0, cancelFirst: 0 };
      for (let round = 0; round < ROUNDS; round++) {
        const orderId = (await placeOrder(t, buyer.token, [[productId, 1]]).expect(201)).body.data
          .id as number;
        // The cancellation lands anywhere from before the payment row to during Stripe's create.
        const paying = request(t.url)
          .post(`/api/v1/orders/${orderId}/payments`)
          .auth(buyer.token, { type: 'bearer' });
        const [payment, cancelStatus] = await Promise.all([
          paying.then((r) => r),
          new Promise((resolve) => setTimeout(resolve, (round * 17) % 350)).then(() =>
            cancels[path](orderId),
          ),
        ]);
        expect(cancelStatus).toBe(200);
        expect(await stateOf(orderId)).toMatchObject({ status: 'cancelled' });
        if (payment.status === 201) outcomes.paymentFirst += 1;
        else {
          expect(payment.status).toBe(400);
          expect(payment.body.data.client_secret).toBeUndefined();
          outcomes.cancelFirst += 1;
        }
        const intents = () =>
          [...stripe.intents.values()].filter(
            (i) => (i.metadata as { order_id: string }).order_id === String(orderId),
          );
        await eventually(() => intents().every((i) => i.status === 'canceled'));
        const rows = await t.dataSource.query(
          'SELECT status, live_order_id, provider_ref, client_secret FROM payments WHERE order_id = ?',
          [orderId],
        );
        for (const row of rows) {
          expect(row).toMatchObject({ status: 'cancelled', live_order_id: null });
          // A client secret handed out only while the order was still pending.
          if (payment.status !== 201) expect(row.client_secret).toBeNull();
        }
        expect(rows.length).toBeLessThanOrEqual(1);
        expect(
          intents()
            .map((i) => i.id)
            .sort(),
        ).toEqual(
          rows
            .filter((r: { provider_ref: string | null }) => r.provider_ref !== null)
            .map((r: { provider_ref: string }) => r.provider_ref)
            .sort(),
        );
      }
      stripe.onCreate(null);
      // Both interleavings happened.
      expect(outcomes.paymentFirst + outcomes.cancelFirst).toBe(ROUNDS);
      expect(outcomes.cancelFirst).toBeGreaterThan(0);
      const [{ stock }] = await t.dataSource.query('SELECT stock FROM products WHERE id = ?', [productId]);
      expect(Number(stock)).toBe(Number(stockBefore));
    },
    120_000,
  );
});

describe('the Stripe webhook is rate limited like every public entry point (THROTTLE_LIMIT=3)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      THROTTLE_LIMIT: '3',
      STRIPE_SECRET_KEY: 'sk_test_service',
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      // Never called: only signatures are checked here.
      STRIPE_API_URL: 'http://127.0.0.1:9',
    });
  });

  afterAll(async () => {
    await t.close();
  });

  it('answers 429 once the client has used up the general limit, before checking the signature', async () => {
    const payload = stripeEvent('payment_intent.succeeded', { id: 'pi_x', object: 'payment_intent' });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await sendWebhook(t, payload, 't=1,v1=forged')).status);
    expect(statuses).toEqual([400, 400, 400, 429]);
    expect(await t.dataSource.query('SELECT id FROM payment_provider_events')).toEqual([]);
  });
});
