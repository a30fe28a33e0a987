import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { EventBus } from '../src/events/event-bus.js';
import type { OrderEventPayload } from '../src/orders/order-events.js';
import { eventually } from './support/eventually.js';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { orderBody, postOrder } from './support/orders.js';
import { createProduct } from './support/products.js';
import { startTestApp, TestApp } from './support/test-app.js';

/** The fields every order answer carries (the seed's and the later ones); new fields may join them. */
const ORDER_FIELDS = [
  'id',
  'order_number',
  'total_amount',
  'status',
  'shipping_address',
  'payment_method',
  'payment_status',
  'shipping_total',
  'email',
  'shipping_address_details',
  'created_at',
  'updated_at',
].sort();

describe('orders', () => {
  let t: TestApp;
  let admin: Account;
  let buyer: Account;
  let other: Account;
  const events: Array<{ name: string; payload: OrderEventPayload }> = [];

  const api = () => request(t.url);
  const stockOf = async (id: number) =>
    Number((await t.dataSource.query('SELECT stock FROM products WHERE id = ?', [id]))[0].stock);
  const orderCount = async () => Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM orders'))[0].n);
  const itemCount = async () =>
    Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM order_items'))[0].n);
  const placeOrder = (account: Account, body: object, key?: string) =>
    postOrder(t, account.token, body, { idempotencyKey: key });
  // The order owner summary: these fields (it may gain others).
  const ownerOf = (account: Account) =>
    expect.objectContaining({
      id: account.id,
      username: account.username,
      email: `${account.username}@example.com`,
    });
  const order = orderBody;

  beforeAll(async () => {
    t = await startTestApp(ADMIN_ENV);
    admin = await loginAdmin(t);
    buyer = await createAccount(t);
    other = await createAccount(t);
    const bus = t.app.get(EventBus);
    for (const name of ['order.created', 'order.updated'] as const) {
      bus.subscribe(name, (event) => {
        events.push({ name, payload: event.data });
      });
    }
  });

  afterAll(async () => {
    await t.close();
  });

  describe('POST /orders', () => {
    it('creates a pending order with an exact total, takes the stock and keeps name and price per item', async () => {
      const cup = await createProduct(t, admin.token, { name: 'Cup', price: 19.99, stock: 10 });
      const spoon = await createProduct(t, admin.token, { name: 'Spoon', price: 0.1, stock: 5 });
      const res = await placeOrder(
        buyer,
        order(
          [
            [cup.id, 3],
            [spoon.id, 2],
          ],
          { shipping_address: '742 Evergreen Terrace' },
        ),
      ).expect(201);
      expect(res.body.code).toBe(201);
      expect(Object.keys(res.body.data)).toEqual(expect.arrayContaining(ORDER_FIELDS));
      expect(res.body.data).toMatchObject({
        total_amount: 60.17,
        status: 'pending',
        payment_status: 'pending',
        shipping_address: '742 Evergreen Terrace',
        payment_method: 'credit_card',
      });
      expect(res.body.data.order_number).toMatch(/^ORD-\d{8}-[0-9A-HJKMNP-TV-Z]{8}$/);
      expect(await stockOf(cup.id)).toBe(7);
      expect(await stockOf(spoon.id)).toBe(3);
      const [row] = await t.dataSource.query('SELECT total_cents, user_id FROM orders WHERE id = ?', [
        res.body.data.id,
      ]);
      expect(Number(row.total_cents)).toBe(6017);
      expect(Number(row.user_id)).toBe(buyer.id);

      // Later changes to the product do not rewrite history.
      await api()
        .put(`/api/v1/products/${cup.id}`)
        .auth(admin.token, { type: 'bearer' })
        .send({ name: 'Mug', price: 25 });
      const detail = await api()
        .get(`/api/v1/orders/${res.body.data.id}`)
        .auth(buyer.token, { type: 'bearer' })
        .expect(200);
      // Items of products without variants name none.
      const simple = { variant_id: null, sku: null, variant_title: null };
      expect(detail.body.data.items).toMatchObject([
        {
          id: expect.any(Number),
          product_id: cup.id,
          product_name: 'Cup',
          quantity: 3,
          price: 19.99,
          ...simple,
        },
        {
          id: expect.any(Number),
          product_id: spoon.id,
          product_name: 'Spoon',
          quantity: 2,
          price: 0.1,
          ...simple,
        },
      ]);
      expect(detail.body.data.total_amount).toBe(60.17);
    });

    it('merges the same product given twice into one item', async () => {
      const product = await createProduct(t, admin.token, { price: 2, stock: 10 });
      const res = await placeOrder(
        buyer,
        order([
          [product.id, 2],
          [product.id, 3],
        ]),
      ).expect(201);
      expect(res.body.data.total_amount).toBe(10);
      const detail = await api()
        .get(`/api/v1/orders/${res.body.data.id}`)
        .auth(buyer.token, { type: 'bearer' });
      expect(detail.body.data.items).toHaveLength(1);
      expect(detail.body.data.items[0].quantity).toBe(5);
      expect(await stockOf(product.id)).toBe(5);
    });

    it('changes nothing when one item of two is bad, and names the product and reason', async () => {
      const good = await createProduct(t, admin.token, { stock: 10 });
      const short = await createProduct(t, admin.token, { stock: 2 });
      const [orders, items] = [await orderCount(), await itemCount()];
      const res = await placeOrder(
        buyer,
        order([
          [good.id, 1],
          [short.id, 3],
        ]),
      ).expect(400);
      expect(res.body).toEqual({
        code: 400,
        message: 'Bad Request',
        data: {
          details: `Product ${short.id} has insufficient stock: requested 3, available 2`,
          errors: [
            {
              field: 'items',
              rule: 'stock',
              message: `Product ${short.id} has insufficient stock: requested 3, available 2`,
            },
          ],
        },
      });
      expect(await stockOf(good.id)).toBe(10);
      expect(await stockOf(short.id)).toBe(2);
      expect([await orderCount(), await itemCount()]).toEqual([orders, items]);
    });

    it('refuses missing, inactive and deleted products', async () => {
      const inactive = await createProduct(t, admin.token, { stock: 5 });
      await api()
        .put(`/api/v1/products/${inactive.id}`)
        .auth(admin.token, { type: 'bearer' })
        .send({ is_active: false });
      const deleted = await createProduct(t, admin.token, { stock: 5 });
      await api().delete(`/api/v1/products/${deleted.id}`).auth(admin.token, { type: 'bearer' });
      const before = await orderCount();
      expect((await placeOrder(buyer, order([[999999, 1]])).expect(400)).body.data.details).toBe(
        'Product 999999 not found',
      );
      expect((await placeOrder(buyer, order([[inactive.id, 1]])).expect(400)).body.data.details).toBe(
        `Product ${inactive.id} is not available`,
      );
      expect((await placeOrder(buyer, order([[deleted.id, 1]])).expect(400)).body.data.details).toBe(
        `Product ${deleted.id} not found`,
      );
      expect(await orderCount()).toBe(before);
      expect(await stockOf(inactive.id)).toBe(5);
    });

    it.each([
      ['no items', { items: [] }, 'items must contain at least 1 elements'],
      [
        '101 items',
        { items: Array.from({ length: 101 }, (_, i) => ({ product_id: i + 1, quantity: 1 })) },
        'items must contain no more than 100 elements',
      ],
      ['items not an array', { items: 'x' }, 'items must be an array'],
      ['quantity 0', { items: [{ product_id: 1, quantity: 0 }] }, 'items.0.quantity must not be less than 1'],
      [
        'quantity 1001',
        { items: [{ product_id: 1, quantity: 1001 }] },
        'items.0.quantity must not be greater than 1000',
      ],
      [
        'fractional quantity',
        { items: [{ product_id: 1, quantity: 1.5 }] },
        'items.0.quantity must be an integer number',
      ],
      [
        'product_id a string',
        { items: [{ product_id: '1', quantity: 1 }] },
        'items.0.product_id must be an integer number',
      ],
      [
        'unknown item field',
        { items: [{ product_id: 1, quantity: 1, price: 0.01 }] },
        'items.0.property price should not exist',
      ],
      [
        'merged quantity over 1000',
        {
          items: [
            { product_id: 1, quantity: 600 },
            { product_id: 1, quantity: 600 },
          ],
        },
        'items: product 1 totals 1200 units, more than 1000',
      ],
      [
        'empty shipping_address',
        { shipping_address: '' },
        'shipping_address must be longer than or equal to 1 characters',
      ],
      [
        'long shipping_address',
        { shipping_address: 'a'.repeat(256) },
        'shipping_address must be shorter than or equal to 255 characters',
      ],
      [
        'unknown payment_method',
        { payment_method: 'bitcoin' },
        'payment_method must be one of: credit_card, debit_card, paypal, bank_transfer, cash_on_delivery',
      ],
      ['status sent by the client', { status: 'paid' }, 'property status should not exist'],
    ])('refuses %s with 400 and writes nothing', async (_case, change, details) => {
      const before = await orderCount();
      const res = await placeOrder(buyer, { ...order([[1, 1]]), ...change }).expect(400);
      expect(res.body.data.details).toContain(details);
      expect(await orderCount()).toBe(before);
    });

    it('emits order.created for the owner after commit', async () => {
      const product = await createProduct(t, admin.token, { stock: 3 });
      events.length = 0;
      const res = await placeOrder(other, order([[product.id, 1]])).expect(201);
      // Dispatched after the commit, in commit order behind the events before it.
      await eventually(() => events.length > 0);
      expect(events).toEqual([
        {
          name: 'order.created',
          payload: {
            userId: other.id,
            order: res.body.data,
            user: ownerOf(other),
            email: `${other.username}@example.com`,
            items: [expect.objectContaining({ product_id: product.id, quantity: 1 })],
            discounts: [],
            actor: { type: 'customer', id: other.id },
          },
        },
      ]);
      events.length = 0;
      await placeOrder(other, order([[product.id, 50]])).expect(400);
      expect(events).toEqual([]);
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the first order for a repeat with the same key and body', async () => {
      const product = await createProduct(t, admin.token, { stock: 10 });
      const body = order([[product.id, 2]]);
      const first = await placeOrder(buyer, body, 'key-123').expect(201);
      const again = await placeOrder(buyer, body, 'key-123').expect(201);
      expect(again.body.data).toEqual(first.body.data);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      expect(await stockOf(product.id)).toBe(8);
      const rows = await t.dataSource.query('SELECT COUNT(*) AS n FROM orders WHERE idempotency_key = ?', [
        'key-123',
      ]);
      expect(Number(rows[0].n)).toBe(1);
    });

    it('refuses the same key with a different body, and scopes keys per user', async () => {
      const product = await createProduct(t, admin.token, { stock: 10 });
      await placeOrder(buyer, order([[product.id, 1]]), 'key-xyz').expect(201);
      const res = await placeOrder(buyer, order([[product.id, 2]]), 'key-xyz').expect(400);
      expect(res.body.data.details).toBe('Idempotency-Key was already used with a different request');
      await placeOrder(other, order([[product.id, 2]]), 'key-xyz').expect(201);
      expect(await stockOf(product.id)).toBe(7);
    });

    it('creates one order when the same key arrives concurrently', async () => {
      const product = await createProduct(t, admin.token, { stock: 100 });
      const body = order([[product.id, 1]]);
      const responses = await Promise.all(
        Array.from({ length: 8 }, () => placeOrder(buyer, body, 'key-race')),
      );
      expect(responses.map((r) => r.status)).toEqual(Array(8).fill(201));
      expect(new Set(responses.map((r) => r.body.data.id)).size).toBe(1);
      expect(await stockOf(product.id)).toBe(99);
    });

    it('refuses a malformed key', async () => {
      const res = await placeOrder(buyer, order([[1, 1]]), 'has space').expect(400);
      expect(res.body.data.details).toBe('Idempotency-Key must be 1-128 visible ASCII characters');
    });
  });

  describe('GET /orders and /orders/{id}', () => {
    let lister: Account;
    const ids: number[] = [];

    beforeAll(async () => {
      lister = await createAccount(t);
      const product = await createProduct(t, admin.token, { stock: 100 });
      for (let i = 0; i < 3; i++)
        ids.push((await placeOrder(lister, order([[product.id, 1]])).expect(201)).body.data.id);
      await api().post(`/api/v1/orders/${ids[0]}/cancel`).auth(lister.token, { type: 'bearer' }).expect(200);
    });

    it("lists only the caller's orders, newest first, without items, with meta", async () => {
      const res = await api().get('/api/v1/orders').auth(lister.token, { type: 'bearer' }).expect(200);
      expect(res.body.data.map((o: { id: number }) => o.id)).toEqual([...ids].reverse());
      expect(res.body.meta).toEqual({ page: 1, page_size: 10, total: 3, total_page: 1 });
      for (const o of res.body.data) {
        expect(Object.keys(o)).toEqual(expect.arrayContaining(ORDER_FIELDS));
        expect(o).not.toHaveProperty('items');
      }
      const forAdmin = await api().get('/api/v1/orders').auth(admin.token, { type: 'bearer' }).expect(200);
      expect(forAdmin.body.meta.total).toBe(0);
    });

    it('filters by status and paginates', async () => {
      const cancelled = await api()
        .get('/api/v1/orders?status=cancelled')
        .auth(lister.token, { type: 'bearer' })
        .expect(200);
      expect(cancelled.body.data.map((o: { id: number }) => o.id)).toEqual([ids[0]]);
      const page2 = await api()
        .get('/api/v1/orders?page=2&page_size=2')
        .auth(lister.token, { type: 'bearer' })
        .expect(200);
      expect(page2.body.data.map((o: { id: number }) => o.id)).toEqual([ids[0]]);
      expect(page2.body.meta).toEqual({ page: 2, page_size: 2, total: 3, total_page: 2 });
      const bad = await api()
        .get('/api/v1/orders?status=lost')
        .auth(lister.token, { type: 'bearer' })
        .expect(400);
      expect(bad.body.data.details).toContain(
        'status must be one of the following values: pending, paid, shipped, completed, cancelled',
      );
      const search = await api()
        .get('/api/v1/orders?search=x')
        .auth(lister.token, { type: 'bearer' })
        .expect(400);
      expect(search.body.data.details).toBe('property search should not exist');
    });

    it("another user's order is 404; an admin may read any", async () => {
      const res = await api()
        .get(`/api/v1/orders/${ids[1]}`)
        .auth(other.token, { type: 'bearer' })
        .expect(404);
      expect(res.body.data.details).toBe(`Order ${ids[1]} not found`);
      const byAdmin = await api()
        .get(`/api/v1/orders/${ids[1]}`)
        .auth(admin.token, { type: 'bearer' })
        .expect(200);
      expect(byAdmin.body.data.items).toHaveLength(1);
      await api().get('/api/v1/orders/abc').auth(admin.token, { type: 'bearer' }).expect(400);
    });
  });

  describe('lifecycle', () => {
    const setStatus = (id: number, body: object) =>
      api().patch(`/api/v1/orders/${id}/status`).auth(admin.token, { type: 'bearer' }).send(body);

    it('the owner cancels a pending order: stock restored, updated_at moves, order.updated emitted', async () => {
      const product = await createProduct(t, admin.token, { stock: 10 });
      const placed = (await placeOrder(buyer, order([[product.id, 4]])).expect(201)).body.data;
      expect(await stockOf(product.id)).toBe(6);
      // Events are dispatched after the commit: let the placement's event arrive before counting the cancel's.
      await eventually(() =>
        events.some((e) => e.name === 'order.created' && e.payload.order.id === placed.id),
      );
      await api()
        .post(`/api/v1/orders/${placed.id}/cancel`)
        .auth(other.token, { type: 'bearer' })
        .expect(404);
      events.length = 0;
      const res = await api()
        .post(`/api/v1/orders/${placed.id}/cancel`)
        .auth(buyer.token, { type: 'bearer' })
        .expect(200);
      expect(res.body.data).toMatchObject({ id: placed.id, status: 'cancelled', payment_status: 'pending' });
      expect(Date.parse(res.body.data.updated_at)).toBeGreaterThan(Date.parse(placed.updated_at));
      expect(await stockOf(product.id)).toBe(10);
      await eventually(() => events.length > 0);
      expect(events).toEqual([
        {
          name: 'order.updated',
          payload: {
            userId: buyer.id,
            order: res.body.data,
            user: ownerOf(buyer),
            email: `${buyer.username}@example.com`,
            items: [expect.objectContaining({ product_id: product.id, quantity: 4 })],
            discounts: [],
            actor: { type: 'customer', id: buyer.id },
            previous: { status: 'pending', payment_status: 'pending' },
          },
        },
      ]);
      const again = await api()
        .post(`/api/v1/orders/${placed.id}/cancel`)
        .auth(buyer.token, { type: 'bearer' })
        .expect(400);
      expect(again.body.data.details).toBe('Only a pending order can be cancelled; this order is cancelled');
      expect(await stockOf(product.id)).toBe(10);
    });

    it('an admin moves an order pending -> paid -> shipped -> completed, then refunds it', async () => {
      const product = await createProduct(t, admin.token, { stock: 10 });
      const placed = (await placeOrder(buyer, order([[product.id, 1]])).expect(201)).body.data;
      const denied = await api()
        .patch(`/api/v1/orders/${placed.id}/status`)
        .auth(buyer.token, { type: 'bearer' })
        .send({ status: 'paid' })
        .expect(403);
      expect(denied.body.data.details).toBe('Insufficient permission');
      expect((await setStatus(placed.id, { status: 'paid' }).expect(400)).body.data.details).toBe(
        'status paid requires payment_status paid',
      );
      expect(
        (await setStatus(placed.id, { status: 'paid', payment_status: 'paid' }).expect(200)).body.data,
      ).toMatchObject({
        status: 'paid',
        payment_status: 'paid',
      });
      expect((await setStatus(placed.id, { status: 'pending' }).expect(400)).body.data.details).toBe(
        'status cannot change from paid to pending',
      );
      await setStatus(placed.id, { status: 'shipped' }).expect(200);
      expect((await setStatus(placed.id, { status: 'cancelled' }).expect(400)).body.data.details).toBe(
        'status cannot change from shipped to cancelled',
      );
      await setStatus(placed.id, { status: 'completed' }).expect(200);
      const refunded = await setStatus(placed.id, { payment_status: 'refunded' }).expect(200);
      expect(refunded.body.data).toMatchObject({ status: 'completed', payment_status: 'refunded' });
      const [row] = await t.dataSource.query('SELECT status, payment_status FROM orders WHERE id = ?', [
        placed.id,
      ]);
      expect(row).toEqual({ status: 'completed', payment_status: 'refunded' });
      expect(await stockOf(product.id)).toBe(9);
    });

    it('an admin cancelling a paid order restores stock once', async () => {
      const product = await createProduct(t, admin.token, { stock: 5 });
      const placed = (await placeOrder(buyer, order([[product.id, 5]])).expect(201)).body.data;
      await setStatus(placed.id, { payment_status: 'paid', status: 'paid' }).expect(200);
      await setStatus(placed.id, { status: 'cancelled' }).expect(400);
      expect(await stockOf(product.id)).toBe(0);
      expect(
        (await setStatus(placed.id, { status: 'cancelled', payment_status: 'refunded' }).expect(200)).body
          .data.payment_status,
      ).toBe('refunded');
      expect(await stockOf(product.id)).toBe(5);
      await setStatus(placed.id, { status: 'cancelled' }).expect(400);
      expect(await stockOf(product.id)).toBe(5);
    });

    it('refuses an empty change, unknown values and unknown orders', async () => {
      const product = await createProduct(t, admin.token, { stock: 5 });
      const placed = (await placeOrder(buyer, order([[product.id, 1]])).expect(201)).body.data;
      expect((await setStatus(placed.id, {}).expect(400)).body.data.details).toBe(
        'status or payment_status is required',
      );
      expect((await setStatus(placed.id, { status: 'lost' }).expect(400)).body.data.details).toContain(
        'status must be one of',
      );
      await setStatus(987654, { status: 'cancelled' }).expect(404);
    });
  });
});
