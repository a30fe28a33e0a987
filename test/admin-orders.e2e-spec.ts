import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import request from 'supertest';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { createProduct } from './support/products.js';
import { startTestApp, TestApp } from './support/test-app.js';

describe('back office: GET /admin/orders', () => {
  let t: TestApp;
  let admin: Account;
  let alice: Account;
  let bob: Account;
  /** o[0]..o[4], created one day apart from 2026-01-01 (o[4] is the admin's own order). */
  const o: number[] = [];

  const api = () => request(t.url);
  const adminGet = (path: string) => api().get(path).auth(admin.token, { type: 'bearer' });
  const idsOf = (res: request.Response) => res.body.data.map((order: { id: number }) => order.id);

  beforeAll(async () => {
    t = await startTestApp(ADMIN_ENV);
    admin = await loginAdmin(t);
    alice = await createAccount(t, { username: 'alice_bo', email: 'alice@shop.example' });
    bob = await createAccount(t, { username: 'bob_bo', email: 'bob@mail.example' });
    const product = await createProduct(t, admin.token, { price: 10, stock: 1000 });
    const plan: Array<[Account, number]> = [
      [alice, 1],
      [bob, 3],
      [alice, 2],
      [bob, 5],
      [admin, 4],
    ];
    for (const [i, [account, quantity]] of plan.entries()) {
      const res = await api()
        .post('/api/v1/orders')
        .auth(account.token, { type: 'bearer' })
        .send({
          items: [{ product_id: product.id, quantity }],
          shipping_address: '1 Main St',
          payment_method: 'paypal',
        })
        .expect(201);
      o.push(res.body.data.id);
      await t.dataSource.query('UPDATE orders SET created_at = ? WHERE id = ?', [
        `2026-01-0${i + 1} 00:00:00.000`,
        res.body.data.id,
      ]);
    }
    await api()
      .patch(`/api/v1/orders/${o[2]}/status`)
      .auth(admin.token, { type: 'bearer' })
      .send({ status: 'paid', payment_status: 'paid' })
      .expect(200);
    await api().post(`/api/v1/orders/${o[3]}/cancel`).auth(bob.token, { type: 'bearer' }).expect(200);
  });

  afterAll(async () => {
    await t.close();
  });

  it('lists every user’s orders newest first, each with its owner, with meta', async () => {
    const res = await adminGet('/api/v1/admin/orders').expect(200);
    expect(idsOf(res)).toEqual([o[4], o[3], o[2], o[1], o[0]]);
    expect(res.body.meta).toEqual({ page: 1, page_size: 10, total: 5, total_page: 1 });
    expect(res.body.data[0]).toMatchObject({
      id: o[4],
      total_amount: 40,
      status: 'pending',
      created_at: '2026-01-05T00:00:00.000Z',
      user: { id: admin.id, username: 'root_admin', email: 'admin@example.com' },
    });
    // The owner's summary: these fields (it may gain others), never a secret of the account.
    expect(res.body.data[1].user).toMatchObject({
      id: bob.id,
      username: 'bob_bo',
      email: 'bob@mail.example',
    });
    expect(Object.keys(res.body.data[1].user).filter((key) => /password|hash|token/i.test(key))).toEqual([]);
  });

  it('filters by user_id, status and payment_status, alone and together', async () => {
    expect(idsOf(await adminGet(`/api/v1/admin/orders?user_id=${alice.id}`).expect(200))).toEqual([
      o[2],
      o[0],
    ]);
    expect(idsOf(await adminGet('/api/v1/admin/orders?status=cancelled').expect(200))).toEqual([o[3]]);
    expect(idsOf(await adminGet('/api/v1/admin/orders?payment_status=paid').expect(200))).toEqual([o[2]]);
    const both = await adminGet(`/api/v1/admin/orders?user_id=${bob.id}&status=pending`).expect(200);
    expect(idsOf(both)).toEqual([o[1]]);
    expect(both.body.meta).toEqual({ page: 1, page_size: 10, total: 1, total_page: 1 });
  });

  it('filters by created_from (inclusive) and created_to (exclusive)', async () => {
    const res = await adminGet(
      '/api/v1/admin/orders?created_from=2026-01-02T00:00:00Z&created_to=2026-01-04T00:00:00.000Z',
    ).expect(200);
    expect(idsOf(res)).toEqual([o[2], o[1]]);
    expect(res.body.meta.total).toBe(2);
    const from = await adminGet('/api/v1/admin/orders?created_from=2026-01-04').expect(200);
    expect(idsOf(from)).toEqual([o[4], o[3]]);
  });

  it("searches the order number, the owner's username and email", async () => {
    const byName = await adminGet('/api/v1/admin/orders?search=ALICE_B').expect(200);
    expect(idsOf(byName)).toEqual([o[2], o[0]]);
    expect(idsOf(await adminGet('/api/v1/admin/orders?search=mail.example').expect(200))).toEqual([
      o[3],
      o[1],
    ]);
    const number = (await adminGet(`/api/v1/orders/${o[1]}`).expect(200)).body.data.order_number as string;
    expect(idsOf(await adminGet(`/api/v1/admin/orders?search=${number.slice(-8)}`).expect(200))).toEqual([
      o[1],
    ]);
    const none = await adminGet('/api/v1/admin/orders?search=%25').expect(200);
    expect(none.body.meta).toEqual({ page: 1, page_size: 10, total: 0, total_page: 0 });
  });

  it('sorts by created_at and total_amount both ways, and paginates', async () => {
    expect(idsOf(await adminGet('/api/v1/admin/orders?sort=created_at').expect(200))).toEqual(o);
    expect(idsOf(await adminGet('/api/v1/admin/orders?sort=total_amount').expect(200))).toEqual([
      o[0],
      o[2],
      o[1],
      o[4],
      o[3],
    ]);
    expect(idsOf(await adminGet('/api/v1/admin/orders?sort=-total_amount').expect(200))).toEqual([
      o[3],
      o[4],
      o[1],
      o[2],
      o[0],
    ]);
    const page = await adminGet('/api/v1/admin/orders?sort=-total_amount&page=2&page_size=2').expect(200);
    expect(idsOf(page)).toEqual([o[1], o[2]]);
    expect(page.body.meta).toEqual({ page: 2, page_size: 2, total: 5, total_page: 3 });
  });

  it('refuses bad filters with 400 naming the field', async () => {
    const cases: Array<[string, string]> = [
      [
        'sort=price',
        'sort must be one of the following values: -created_at, created_at, total_amount, -total_amount',
      ],
      ['status=lost', 'status must be one of the following values'],
      ['payment_status=maybe', 'payment_status must be one of the following values'],
      ['created_from=yesterday', 'created_from must be a valid ISO 8601 date string'],
      ['created_to=2026-13-01', 'created_to must be a valid ISO 8601 date string'],
      ['user_id=abc', 'user_id must be an integer number'],
      ['page_size=101', 'page_size must not be greater than 100'],
    ];
    for (const [query, message] of cases) {
      const res = await adminGet(`/api/v1/admin/orders?${query}`).expect(400);
      expect(res.body.data.details).toContain(message);
    }
  });

  it('is 403 for users and 401 without a token', async () => {
    const res = await api().get('/api/v1/admin/orders').auth(alice.token, { type: 'bearer' }).expect(403);
    expect(res.body).toMatchObject({ code: 403, data: { details: 'Insufficient permission' } });
    await api().get('/api/v1/admin/orders').expect(401);
  });

  it('runs the same statements whatever the page size: the count and the page', async () => {
    const statementsFor = async (pageSize: number) => {
      const logQuery = jest.spyOn(t.dataSource.logger, 'logQuery');
      const res = await adminGet(`/api/v1/admin/orders?page_size=${pageSize}&search=_bo`).expect(200);
      const onOrders = logQuery.mock.calls
        .map(([sql]) => sql)
        .filter((sql) => /FROM\s+["`]orders["`]/.test(sql));
      logQuery.mockRestore();
      return { count: res.body.data.length, onOrders };
    };
    const one = await statementsFor(1);
    const all = await statementsFor(100);
    expect([one.count, all.count]).toEqual([1, 4]);
    expect(one.onOrders).toHaveLength(2);
    expect(all.onOrders).toHaveLength(2);
  });

  it('GET /orders/{id} carries the owner for an admin, not for the owner; GET /orders stays own orders', async () => {
    const byAdmin = await adminGet(`/api/v1/orders/${o[0]}`).expect(200);
    expect(byAdmin.body.data.user).toMatchObject({
      id: alice.id,
      username: 'alice_bo',
      email: 'alice@shop.example',
    });
    expect(byAdmin.body.data.items).toHaveLength(1);
    const byOwner = await api()
      .get(`/api/v1/orders/${o[0]}`)
      .auth(alice.token, { type: 'bearer' })
      .expect(200);
    expect(byOwner.body.data.user).toBeUndefined();
    expect(byOwner.body.data.items).toHaveLength(1);
    const own = await adminGet('/api/v1/orders').expect(200);
    expect(idsOf(own)).toEqual([o[4]]);
    expect(own.body.data[0].user).toBeUndefined();
    await adminGet(`/api/v1/orders?user_id=${alice.id}`).expect(400);
  });

  it("keeps a deleted owner's orders listed with the owner", async () => {
    const carol = await createAccount(t, { username: 'carol_bo', email: 'carol@shop.example' });
    const product = await createProduct(t, admin.token, { price: 1, stock: 5 });
    const placed = await api()
      .post('/api/v1/orders')
      .auth(carol.token, { type: 'bearer' })
      .send({
        items: [{ product_id: product.id, quantity: 1 }],
        shipping_address: 'x',
        payment_method: 'paypal',
      })
      .expect(201);
    await adminGet(`/api/v1/orders/${placed.body.data.id}`).expect(200);
    await api().delete(`/api/v1/users/${carol.id}`).auth(admin.token, { type: 'bearer' }).expect(200);
    const res = await adminGet(`/api/v1/admin/orders?user_id=${carol.id}`).expect(200);
    expect(res.body.data.map((order: { user: object }) => order.user)).toEqual([
      expect.objectContaining({ id: carol.id, username: 'carol_bo', email: 'carol@shop.example' }),
    ]);
    expect((await adminGet(`/api/v1/orders/${placed.body.data.id}`).expect(200)).body.data.user.id).toBe(
      carol.id,
    );
  });
});

describe('back office: PATCH /orders/{id}/status refuses illogical moves, naming the field and the rule', () => {
  let t: TestApp;
  let admin: Account;
  let buyer: Account;
  let product: { id: number };

  const setStatus = (id: number, body: object) =>
    request(t.url).patch(`/api/v1/orders/${id}/status`).auth(admin.token, { type: 'bearer' }).send(body);
  const stateOf = async (id: number) =>
    (await t.dataSource.query('SELECT status, payment_status, updated_at FROM orders WHERE id = ?', [id]))[0];
  const stock = async () =>
    Number((await t.dataSource.query('SELECT stock FROM products WHERE id = ?', [product.id]))[0].stock);
  const place = async () =>
    (
      await request(t.url)
        .post('/api/v1/orders')
        .auth(buyer.token, { type: 'bearer' })
        .send({
          items: [{ product_id: product.id, quantity: 1 }],
          shipping_address: '1 Main St',
          payment_method: 'paypal',
        })
        .expect(201)
    ).body.data.id as number;

  beforeAll(async () => {
    t = await startTestApp(ADMIN_ENV);
    admin = await loginAdmin(t);
    buyer = await createAccount(t);
    product = await createProduct(t, admin.token, { price: 10, stock: 100 });
  });

  afterAll(async () => {
    await t.close();
  });

  it('never marks a cancelled order paid (nor failed): 400 naming payment_status, nothing changed', async () => {
    const byOwner = await place();
    await request(t.url)
      .post(`/api/v1/orders/${byOwner}/cancel`)
      .auth(buyer.token, { type: 'bearer' })
      .expect(200);
    const failedThenCancelled = await place();
    await setStatus(failedThenCancelled, { payment_status: 'failed' }).expect(200);
    await setStatus(failedThenCancelled, { status: 'cancelled' }).expect(200);
    const stockBefore = await stock();
    for (const [id, change, becomes] of [
      [byOwner, { payment_status: 'paid' }, 'paid'],
      [byOwner, { payment_status: 'failed' }, 'failed'],
      [failedThenCancelled, { payment_status: 'paid' }, 'paid'],
    ] as const) {
      const before = await stateOf(id);
      const res = await setStatus(id, change).expect(400);
      const message = `payment_status cannot become ${becomes} on a cancelled order`;
      expect(res.body.data).toEqual({
        details: message,
        errors: [{ field: 'payment_status', rule: 'cancelledOrder', message }],
      });
      expect(await stateOf(id)).toEqual(before);
    }
    expect(await stock()).toBe(stockBefore);
  });

  it('refuses cancelling and marking paid in one request; the order stays pending with its stock taken', async () => {
    const id = await place();
    const stockBefore = await stock();
    const res = await setStatus(id, { status: 'cancelled', payment_status: 'paid' }).expect(400);
    expect(res.body.data.errors).toEqual([
      {
        field: 'payment_status',
        rule: 'cancelledOrder',
        message: 'payment_status cannot become paid on a cancelled order',
      },
    ]);
    expect(await stateOf(id)).toMatchObject({ status: 'pending', payment_status: 'pending' });
    expect(await stock()).toBe(stockBefore);
  });

  it('names the field and rule of every other refused move, and still refunds a cancelled paid order', async () => {
    const id = await place();
    const refused = async (change: object, field: string, rule: string, message: string) => {
      const before = await stateOf(id);
      const res = await setStatus(id, change).expect(400);
      expect(res.body.data.errors).toEqual([{ field, rule, message }]);
      expect(await stateOf(id)).toEqual(before);
    };
    await refused(
      { status: 'shipped' },
      'status',
      'transition',
      'status cannot change from pending to shipped',
    );
    await refused(
      { status: 'paid' },
      'status',
      'paymentRequired',
      'status paid requires payment_status paid',
    );
    await refused(
      { payment_status: 'refunded' },
      'payment_status',
      'transition',
      'payment_status cannot change from pending to refunded',
    );
    await refused(
      { payment_status: 'pending' },
      'payment_status',
      'unchanged',
      'the order already has this status and payment_status',
    );
    await setStatus(id, { status: 'paid', payment_status: 'paid' }).expect(200);
    await refused(
      { payment_status: 'refunded' },
      'payment_status',
      'refundRequiresEnd',
      'payment_status refunded requires status cancelled or completed',
    );
    // A paid order is not cancelled before its money is back: the refund is recorded with the cancellation.
    await refused(
      { status: 'cancelled' },
      'status',
      'refundRequired',
      'a paid order is refunded before it is cancelled',
    );
    const refunded = await setStatus(id, { status: 'cancelled', payment_status: 'refunded' }).expect(200);
    expect(refunded.body.data).toMatchObject({ status: 'cancelled', payment_status: 'refunded' });
    expect(await stateOf(id)).toMatchObject({ status: 'cancelled', payment_status: 'refunded' });
  });
});
