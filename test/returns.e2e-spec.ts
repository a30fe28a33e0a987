import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Stripe from 'stripe';
import request from 'supertest';
import { PaymentsService } from '../src/payments/payments.service.js';
import { toMinor, unitShares } from '../src/pricing/calculator.js';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { expectRefusals } from './support/field-errors.js';
import { concurrentClient } from './support/http.js';
import { placeOrder } from './support/orders.js';
import { createProduct } from './support/products.js';
import { checkout, createPromotion, guestCart } from './support/promotions.js';
import { startFakeStripe, stripeEnv, WEBHOOK_SECRET } from './support/fake-stripe.js';
import { TestSmtpServer } from './support/smtp-server.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { registerWebhook, startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const signer = new Stripe('sk_test_signer');

interface PlacedOrder {
  id: number;
  /** The guest's X-Order-Token, or null for a customer's order. */
  token: string | null;
  email: string;
  items: Array<{ id: number; product_id: number; quantity: number; total: number }>;
  detail: Record<string, unknown> & { total: number; currency_code: string };
}

describe('returns', () => {
  let stripe: Awaited<ReturnType<typeof startFakeStripe>>;
  let smtp: TestSmtpServer;
  let receiver: WebhookReceiver;
  let t: TestApp;
  let admin: Account;
  let buyer: Account;
  let other: Account;
  let cup: number;
  let plate: number;
  let shippingOption: number;
  let events = 0;

  beforeAll(async () => {
    stripe = await startFakeStripe();
    smtp = await TestSmtpServer.create();
    receiver = await startWebhookReceiver();
    t = await startTestApp({
      ...ADMIN_ENV,
      ...stripeEnv(stripe.url),
      SMTP_URL: smtp.url,
      JOBS_POLL_INTERVAL_MS: '100',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    admin = await loginAdmin(t);
    buyer = await createAccount(t);
    other = await createAccount(t);
    cup = (await createProduct(t, admin.token, { name: 'Cup', price: 3.33, stock: 100 })).id;
    plate = (await createProduct(t, admin.token, { name: 'Plate', price: 7, stock: 100 })).id;
    // The default region serves GB: 20 % tax on the lines and the shipping, 10 % off the cups.
    await asAdmin(api().post('/api/v1/tax-rates'))
      .send({ country: 'GB', tax_class: 'standard', rate: 20, name: 'VAT', code: 'GB-VAT' })
      .expect(201);
    await createPromotion(t, admin.token, {
      description: 'Cups 10 % off',
      type: 'percentage',
      value: 10,
      target: 'items',
      conditions: { product_ids: [cup] },
    });
    shippingOption = (
      await asAdmin(api().post('/api/v1/shipping-options'))
        .send({ name: 'Royal Mail', price: 4.99, countries: ['GB'] })
        .expect(201)
    ).body.data.id;
    await registerWebhook(t, admin.token, `${receiver.url}/returns`, [
      'return.requested',
      'return.received',
      'return.rejected',
    ]);
  });

  afterAll(async () => {
    await t?.close();
    await stripe?.close();
    await smtp?.stop();
    await receiver?.close();
  });

  const api = () => request(t.url);
  function asAdmin(call: request.Test) {
    return call.auth(admin.token, { type: 'bearer' });
  }
  const asOwner = (call: request.Test, order: PlacedOrder) =>
    order.token === null
      ? call.auth(buyer.token, { type: 'bearer' })
      : call.set('X-Order-Token', order.token);

  /** Checks out a cart of `lines`, pays it through Stripe and, unless told otherwise, ships every unit. */
  async function placedOrder(
    lines: Array<[number, number]>,
    options: { customer?: boolean; ship?: boolean } = {},
  ): Promise<PlacedOrder> {
    const cart = await guestCart(t, lines, {
      shippingOptionId: shippingOption,
      ...(options.customer === true ? { bearer: buyer.token, email: `${buyer.username}@example.com` } : {}),
    });
    const placed = (await checkout(t, cart).expect(201)).body.data;
    const order: PlacedOrder = {
      id: placed.id,
      token: placed.order_token ?? null,
      email: cart.email,
      items: [],
      detail: placed,
    };
    const payment = (await asOwner(api().post(`/api/v1/orders/${order.id}/payments`), order).expect(201)).body
      .data;
    const intent = stripe.intents.get(payment.client_secret.split('_secret')[0])!;
    const payload = JSON.stringify({
      id: `evt_returns_${++events}`,
      object: 'event',
      type: 'payment_intent.succeeded',
      data: { object: { ...intent, status: 'succeeded', amount_received: intent.amount } },
    });
    await api()
      .post('/api/v1/payments/stripe/webhook')
      .set('content-type', 'application/json')
      .set('stripe-signature', signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }))
      .send(payload)
      .expect(200);
    const detail = (await asAdmin(api().get(`/api/v1/orders/${order.id}`)).expect(200)).body.data;
    expect(detail.payment_status).toBe('paid');
    order.detail = detail;
    order.items = detail.items;
    if (options.ship !== false) {
      await asAdmin(api().post(`/api/v1/admin/orders/${order.id}/fulfilments`))
        .send({
          items: order.items.map((item) => ({ order_item_id: item.id, quantity: item.quantity })),
          carrier: 'DHL',
        })
        .expect(201);
    }
    return order;
  }
  const requestReturn = (order: PlacedOrder, body: object) =>
    asOwner(api().post(`/api/v1/orders/${order.id}/returns`), order).send(body);
  const receive = (id: number, body: object) =>
    asAdmin(api().post(`/api/v1/admin/returns/${id}/receive`)).send(body);
  const stockOf = async (productId: number) =>
    Number((await t.dataSource.query('SELECT stock FROM products WHERE id = ?', [productId]))[0].stock);
  const returnedUnits = async (orderId: number) =>
    (
      await t.dataSource.query('SELECT returned_quantity FROM order_items WHERE order_id = ? ORDER BY id', [
        orderId,
      ])
    ).map((row: { returned_quantity: number | string }) => Number(row.returned_quantity));
  const stripeRefunds = (orderId: number) =>
    stripe.sent.filter(
      (sent) =>
        sent.path === '/v1/refunds' &&
        [...stripe.intents.values()].some(
          (intent) =>
            intent.id === sent.form.get('payment_intent') &&
            (intent.metadata as { order_id: string }).order_id === String(orderId),
        ),
    );
  const minor = (amount: number) => toMinor(amount, 'usd');

  it("a unit of a discounted, taxed line is refunded exactly its share; the rest with the shipping repays the order's total", async () => {
    const order = await placedOrder([
      [cup, 3],
      [plate, 1],
    ]);
    const cups = order.items.find((item) => item.product_id === cup)!;
    const plates = order.items.find((item) => item.product_id === plate)!;
    const shares = unitShares(minor(cups.total), 3);
    // The line is discounted and taxed, and its units' shares differ by the rounding.
    expect(order.detail).toMatchObject({ discount_total: expect.any(Number), tax_total: expect.any(Number) });
    expect(minor(cups.total)).not.toBe(3 * 333);
    expect(new Set(shares).size).toBeGreaterThan(1);

    const created = await requestReturn(order, {
      items: [{ order_item_id: cups.id, quantity: 1, reason: 'Chipped' }],
      note: 'Sorry',
    }).expect(201);
    expect(created.body.data).toEqual({
      id: expect.any(Number),
      order_id: order.id,
      status: 'requested',
      items: [
        {
          order_item_id: cups.id,
          quantity: 1,
          reason: 'Chipped',
          refund_amount: shares[0] / 100,
          received_quantity: null,
          restock: false,
        },
      ],
      note: 'Sorry',
      currency_code: 'usd',
      refund_amount: shares[0] / 100,
      refund_shipping: false,
      refund_status: null,
      refund_error: null,
      reject_reason: null,
      created_at: expect.stringMatching(/^\d{4}-/),
      received_at: null,
      rejected_at: null,
    });
    const id = created.body.data.id as number;
    expect(await returnedUnits(order.id)).toEqual([1, 0]);
    const stockBefore = await stockOf(cup);

    const received = await receive(id, {
      items: [{ order_item_id: cups.id, quantity: 1, restock: true }],
    }).expect(200);
    expect(received.body.data).toMatchObject({
      status: 'received',
      refund_amount: shares[0] / 100,
      refund_status: 'succeeded',
      items: [expect.objectContaining({ received_quantity: 1, restock: true })],
      received_at: expect.stringMatching(/^\d{4}-/),
    });
    expect(await stockOf(cup)).toBe(stockBefore + 1);
    const first = stripeRefunds(order.id);
    expect(first).toHaveLength(1);
    expect(first[0].form.get('amount')).toBe(String(shares[0]));
    expect(first[0].idempotencyKey).toMatch(/^refund-\d+$/);
    const [row] = await t.dataSource.query(
      'SELECT status, refund_amount_minor, refund_status, refund_attempt, received_by FROM returns WHERE id = ?',
      [id],
    );
    expect({
      ...row,
      refund_amount_minor: Number(row.refund_amount_minor),
      received_by: Number(row.received_by),
    }).toEqual({
      status: 'received',
      refund_amount_minor: shares[0],
      refund_status: 'succeeded',
      refund_attempt: 1,
      received_by: admin.id,
    });
    expect(
      (await asAdmin(api().get(`/api/v1/orders/${order.id}`)).expect(200)).body.data.payment_status,
    ).toBe('partially_refunded');

    // The other two cups and the plate, with the shipping: everything the order cost comes back.
    const rest = await requestReturn(order, {
      items: [
        { order_item_id: cups.id, quantity: 2 },
        { order_item_id: plates.id, quantity: 1, reason: 'Not needed' },
      ],
    }).expect(201);
    expect(rest.body.data.items.map((item: { refund_amount: number }) => minor(item.refund_amount))).toEqual([
      shares[1] + shares[2],
      minor(plates.total),
    ]);
    const shipping = await receive(rest.body.data.id, {
      items: [
        { order_item_id: cups.id, quantity: 2 },
        { order_item_id: plates.id, quantity: 1 },
      ],
      refund_shipping: true,
    }).expect(200);
    expect(minor(shipping.body.data.refund_amount) + shares[0]).toBe(minor(order.detail.total));
    const refunds = stripeRefunds(order.id).map((sent) => Number(sent.form.get('amount')));
    expect(refunds.reduce((sum, amount) => sum + amount, 0)).toBe(minor(order.detail.total));
    const after = (await asAdmin(api().get(`/api/v1/orders/${order.id}`)).expect(200)).body.data;
    expect(after).toMatchObject({
      payment_status: 'refunded',
      status: 'shipped',
      fulfillment_status: 'fulfilled',
    });
    expect(await stockOf(cup)).toBe(stockBefore + 1); // no restock asked for the others

    // The shipping is refunded once per order.
    const again = await placedOrder([[plate, 2]]);
    const one = (
      await requestReturn(again, { items: [{ order_item_id: again.items[0].id, quantity: 1 }] }).expect(201)
    ).body.data.id;
    const two = (
      await requestReturn(again, { items: [{ order_item_id: again.items[0].id, quantity: 1 }] }).expect(201)
    ).body.data.id;
    await receive(one, {
      items: [{ order_item_id: again.items[0].id, quantity: 1 }],
      refund_shipping: true,
    }).expect(200);
    const twice = await receive(two, {
      items: [{ order_item_id: again.items[0].id, quantity: 1 }],
      refund_shipping: true,
    }).expect(400);
    expect(twice.body.data.errors).toEqual([
      expect.objectContaining({ field: 'refund_shipping', rule: 'once' }),
    ]);
    expect((await t.dataSource.query('SELECT status FROM returns WHERE id = ?', [two]))[0].status).toBe(
      'requested',
    );

    // E-mails to the guest: received, then refund issued.
    const mails = await smtp.waitFor(order.email, 4);
    const received1 = mails.filter(
      (mail) => mail.subject === `We have received your return for order ${order.detail.order_number}`,
    );
    const refunded = () =>
      smtp
        .to(order.email)
        .filter((mail) => mail.subject === `Refund issued for order ${order.detail.order_number}`);
    const deadline = Date.now() + 15_000;
    while (refunded().length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(received1.length).toBeGreaterThanOrEqual(1);
    expect(
      refunded()
        .map((mail) => mail.text)
        .join('\n'),
    ).toContain(`refunded $${(shares[0] / 100).toFixed(2)} for your return ${id}`);
    // Webhooks.
    const hooks = () =>
      receiver
        .to('/returns')
        .map((hook) => JSON.parse(hook.body))
        .filter((body) => body.data.return.id === id);
    const deadline2 = Date.now() + 15_000;
    while (hooks().length < 2 && Date.now() < deadline2) await new Promise((r) => setTimeout(r, 50));
    expect(
      hooks()
        .map((hook) => hook.type)
        .sort(),
    ).toEqual(['return.received', 'return.requested']);
    expect(hooks().find((hook) => hook.type === 'return.received').data).toMatchObject({
      order: { id: order.id },
      return: { id, status: 'received' },
    });
  });

  it('a return received twice at once is received, refunded and restocked once', async () => {
    const order = await placedOrder([[plate, 3]]);
    const id = (
      await requestReturn(order, { items: [{ order_item_id: order.items[0].id, quantity: 2 }] }).expect(201)
    ).body.data.id;
    const stock = await stockOf(plate);
    const agent = concurrentClient();
    let responses: request.Response[];
    try {
      responses = await Promise.all(
        [0, 1].map(() =>
          receive(id, { items: [{ order_item_id: order.items[0].id, quantity: 2, restock: true }] }).agent(
            agent,
          ),
        ),
      );
    } finally {
      agent.destroy();
    }
    expect(responses.map((res) => res.status).sort()).toEqual([200, 400]);
    const refused = responses.find((res) => res.status === 400)!;
    expect(refused.body.data.errors).toEqual([
      expect.objectContaining({ field: 'status', rule: 'requested' }),
    ]);
    expect(await stockOf(plate)).toBe(stock + 2);
    expect(stripeRefunds(order.id)).toHaveLength(1);
    expect(Number(stripeRefunds(order.id)[0].form.get('amount'))).toBe(
      unitShares(minor(order.items[0].total), 3)
        .slice(0, 2)
        .reduce((a, b) => a + b, 0),
    );
    // A later receive changes nothing either.
    await receive(id, { items: [{ order_item_id: order.items[0].id, quantity: 2, restock: true }] }).expect(
      400,
    );
    expect(await stockOf(plate)).toBe(stock + 2);
    expect(stripeRefunds(order.id)).toHaveLength(1);
  });

  it('a refund whose answer from Stripe was lost stays pending; staff retry with the same key once it settled: refunded once', async () => {
    const order = await placedOrder([[plate, 1]]);
    const id = (
      await requestReturn(order, { items: [{ order_item_id: order.items[0].id, quantity: 1 }] }).expect(201)
    ).body.data.id;
    stripe.faults.refundsFail = true;
    let received: request.Response;
    try {
      received = await receive(id, { items: [{ order_item_id: order.items[0].id, quantity: 1 }] }).expect(
        200,
      );
    } finally {
      stripe.faults.refundsFail = false;
    }
    expect(received.body.data).toMatchObject({
      status: 'received',
      refund_status: 'pending',
      refund_error: null,
    });
    const retry = () => asAdmin(api().post(`/api/v1/admin/returns/${id}/refund`));
    // The payments' refund is still pending: the same key answers it, nothing more is refunded.
    expect((await retry().expect(200)).body.data.refund_status).toBe('pending');
    await t.app.get(PaymentsService).settleRefunds(new Date(Date.now() + 3_600_000));
    expect((await retry().expect(200)).body.data.refund_status).toBe('succeeded');
    const made = [...stripe.refunds.entries()].filter(([, refund]) =>
      stripeRefunds(order.id).some((sent) => sent.form.get('payment_intent') === refund.payment_intent),
    );
    expect(made).toHaveLength(1);
    expect(made[0][1].amount).toBe(minor(order.items[0].total));
    const [row] = await t.dataSource.query('SELECT refund_status, refund_attempt FROM returns WHERE id = ?', [
      id,
    ]);
    expect(row).toEqual({ refund_status: 'succeeded', refund_attempt: 1 });
    const done = await retry().expect(400);
    expect(done.body.data.errors).toEqual([
      expect.objectContaining({ field: 'refund_status', rule: 'open' }),
    ]);
  });

  it('fewer units received than requested: only their shares are refunded, and the others are freed', async () => {
    const order = await placedOrder([[cup, 3]]);
    const shares = unitShares(minor(order.items[0].total), 3);
    const id = (
      await requestReturn(order, { items: [{ order_item_id: order.items[0].id, quantity: 3 }] }).expect(201)
    ).body.data.id;
    const received = await receive(id, { items: [{ order_item_id: order.items[0].id, quantity: 1 }] }).expect(
      200,
    );
    expect(minor(received.body.data.refund_amount)).toBe(shares[0]);
    expect(received.body.data.items[0]).toMatchObject({ quantity: 3, received_quantity: 1 });
    expect(await returnedUnits(order.id)).toEqual([1]);
    expect(stripeRefunds(order.id).map((sent) => Number(sent.form.get('amount')))).toEqual([shares[0]]);
  });

  it('two returns at once cannot take the same unit', async () => {
    const order = await placedOrder([[plate, 1]]);
    const agent = concurrentClient();
    let responses: request.Response[];
    try {
      responses = await Promise.all(
        [0, 1].map(() =>
          requestReturn(order, { items: [{ order_item_id: order.items[0].id, quantity: 1 }] }).agent(agent),
        ),
      );
    } finally {
      agent.destroy();
    }
    expect(responses.map((res) => res.status).sort()).toEqual([201, 400]);
    expect(await returnedUnits(order.id)).toEqual([1]);
    expect(await t.dataSource.query('SELECT id FROM returns WHERE order_id = ?', [order.id])).toHaveLength(1);
  });

  it('refuses unfulfilled units, too many units, units outside the window and bad input, writing nothing', async () => {
    const unshipped = await placedOrder([[plate, 2]], { ship: false });
    await expectRefusals(
      (body) => requestReturn(unshipped, body),
      [
        [
          { items: [{ order_item_id: unshipped.items[0].id, quantity: 1 }] },
          'items.0.order_item_id',
          'fulfilled',
        ],
      ],
    );
    await asAdmin(api().post(`/api/v1/admin/orders/${unshipped.id}/fulfilments`))
      .send({ items: [{ order_item_id: unshipped.items[0].id, quantity: 1 }] })
      .expect(201);
    const foreign = (await placedOrder([[plate, 1]])).items[0].id;
    await expectRefusals(
      (body) => requestReturn(unshipped, body),
      [
        [{ items: [{ order_item_id: unshipped.items[0].id, quantity: 2 }] }, 'items.0.quantity', 'max'],
        [{ items: [] }, 'items', 'arrayMinSize'],
        [{ items: [{ order_item_id: unshipped.items[0].id, quantity: 0 }] }, 'items.0.quantity', 'min'],
        [{ items: [{ order_item_id: foreign, quantity: 1 }] }, 'items.0.order_item_id', 'exists'],
        [
          {
            items: [
              { order_item_id: unshipped.items[0].id, quantity: 1 },
              { order_item_id: unshipped.items[0].id, quantity: 1 },
            ],
          },
          'items.1.order_item_id',
          'unique',
        ],
      ],
    );
    // Shipped 31 days ago: outside the default 30 days.
    await t.dataSource.query('UPDATE fulfilments SET shipped_at = ? WHERE order_id = ?', [
      new Date(Date.now() - 31 * 86_400_000).toISOString().replace('T', ' ').replace('Z', ''),
      unshipped.id,
    ]);
    await expectRefusals(
      (body) => requestReturn(unshipped, body),
      [
        [
          { items: [{ order_item_id: unshipped.items[0].id, quantity: 1 }] },
          'items.0.order_item_id',
          'returnWindow',
        ],
      ],
    );
    expect(await t.dataSource.query('SELECT id FROM returns WHERE order_id = ?', [unshipped.id])).toEqual([]);
    expect(await returnedUnits(unshipped.id)).toEqual([0]);
  });

  it("a customer returns their own order; someone else's is 404, a wrong guest token 404, no credentials 401", async () => {
    const order = await placedOrder([[plate, 2]], { customer: true });
    expect(order.token).toBeNull();
    const body = { items: [{ order_item_id: order.items[0].id, quantity: 1 }] };
    await api()
      .post(`/api/v1/orders/${order.id}/returns`)
      .auth(other.token, { type: 'bearer' })
      .send(body)
      .expect(404);
    await api().get(`/api/v1/orders/${order.id}/returns`).auth(other.token, { type: 'bearer' }).expect(404);
    await api()
      .post(`/api/v1/orders/${order.id}/returns`)
      .set('X-Order-Token', 'x'.repeat(43))
      .send(body)
      .expect(404);
    await api().post(`/api/v1/orders/${order.id}/returns`).send(body).expect(401);
    expect(await returnedUnits(order.id)).toEqual([0]);
    const created = await requestReturn(order, body).expect(201);
    const [row] = await t.dataSource.query('SELECT requested_by FROM returns WHERE id = ?', [
      created.body.data.id,
    ]);
    expect(Number(row.requested_by)).toBe(buyer.id);
    const listed = await api()
      .get(`/api/v1/orders/${order.id}/returns`)
      .auth(buyer.token, { type: 'bearer' })
      .expect(200);
    expect(listed.body.data).toEqual([created.body.data]);
  });

  it('a rejected return frees its units; the admin lists filter by status and order', async () => {
    const order = await placedOrder([[plate, 1]]);
    const body = { items: [{ order_item_id: order.items[0].id, quantity: 1 }] };
    const id = (await requestReturn(order, body).expect(201)).body.data.id;
    await requestReturn(order, body).expect(400);
    const rejected = await asAdmin(api().post(`/api/v1/admin/returns/${id}/reject`))
      .send({ reason: 'Worn' })
      .expect(200);
    expect(rejected.body.data).toMatchObject({
      status: 'rejected',
      reject_reason: 'Worn',
      rejected_at: expect.any(String),
    });
    expect(await returnedUnits(order.id)).toEqual([0]);
    await asAdmin(api().post(`/api/v1/admin/returns/${id}/reject`))
      .send({ reason: 'Again' })
      .expect(400);
    await receive(id, body).expect(400);
    await asAdmin(api().post(`/api/v1/admin/returns/${id}/reject`))
      .send({})
      .expect(400);
    const second = (await requestReturn(order, body).expect(201)).body.data;
    const listed = await asAdmin(api().get(`/api/v1/admin/returns?order_id=${order.id}`)).expect(200);
    expect(listed.body.data.map((ret: { id: number }) => ret.id)).toEqual([second.id, id]);
    expect(listed.body.meta).toMatchObject({ total: 2, page: 1 });
    const requested = await asAdmin(
      api().get(`/api/v1/admin/returns?order_id=${order.id}&status=requested`),
    ).expect(200);
    expect(requested.body.data).toEqual([second]);
    expect((await asAdmin(api().get(`/api/v1/admin/returns/${id}`)).expect(200)).body.data).toEqual(
      rejected.body.data,
    );
    await asAdmin(api().get('/api/v1/admin/returns/999999')).expect(404);
    await api().get('/api/v1/admin/returns').auth(buyer.token, { type: 'bearer' }).expect(403);
    // A fulfilment whose units are in a return cannot be cancelled.
    const fulfilment = (await asAdmin(api().get(`/api/v1/orders/${order.id}`)).expect(200)).body.data
      .fulfilments[0];
    const cancel = await asAdmin(api().post(`/api/v1/admin/fulfilments/${fulfilment.id}/cancel`)).expect(400);
    expect(cancel.body.data.errors).toEqual([
      expect.objectContaining({ field: 'fulfilment', rule: 'notReturned' }),
    ]);
  });
});

describe('returns with RETURN_WINDOW_DAYS=0', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ ...ADMIN_ENV, RETURN_WINDOW_DAYS: '0' });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('refuses every return, even of units shipped a moment ago', async () => {
    const admin = await loginAdmin(t);
    const buyer = await createAccount(t);
    const product = await createProduct(t, admin.token, { stock: 10 });
    const id = (await placeOrder(t, buyer.token, [[product.id, 1]]).expect(201)).body.data.id;
    const asAdmin = (call: request.Test) => call.auth(admin.token, { type: 'bearer' });
    await asAdmin(request(t.url).patch(`/api/v1/orders/${id}/status`))
      .send({ status: 'paid', payment_status: 'paid' })
      .expect(200);
    const itemId = (await asAdmin(request(t.url).get(`/api/v1/orders/${id}`)).expect(200)).body.data.items[0]
      .id;
    await asAdmin(request(t.url).post(`/api/v1/admin/orders/${id}/fulfilments`))
      .send({ items: [{ order_item_id: itemId, quantity: 1 }] })
      .expect(201);
    const res = await request(t.url)
      .post(`/api/v1/orders/${id}/returns`)
      .auth(buyer.token, { type: 'bearer' })
      .send({ items: [{ order_item_id: itemId, quantity: 1 }] })
      .expect(400);
    expect(res.body.data.errors).toEqual([
      { field: 'items', rule: 'returnWindow', message: 'Returns are not accepted (RETURN_WINDOW_DAYS is 0)' },
    ]);
    expect(await t.dataSource.query('SELECT id FROM returns')).toEqual([]);
    const [row] = await t.dataSource.query('SELECT returned_quantity FROM order_items WHERE id = ?', [
      itemId,
    ]);
    expect(Number(row.returned_quantity)).toBe(0);
  });
});
