import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import request from 'supertest';
import { ADMIN_ENV, Account, createAccount, loginAdmin } from './support/accounts.js';
import { placeOrder } from './support/orders.js';
import { createProduct } from './support/products.js';
import { startTestApp, TestApp } from './support/test-app.js';

/** Sends raw bytes as a JSON body (supertest would re-encode a string). */
function sendRaw(
  t: TestApp,
  method: string,
  path: string,
  body: Buffer,
  token?: string,
): Promise<{ status: number; body: { code: number; data: { details: string; errors?: unknown[] } } }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${t.url}${path}`,
      {
        method,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': body.length,
          ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('hardening: bad input is a 400 naming the field and the rule, and changes nothing', () => {
  let t: TestApp;
  let admin: Account;
  let user: Account;
  let product: { id: number; price: number; stock: number };

  beforeAll(async () => {
    t = await startTestApp(ADMIN_ENV);
    admin = await loginAdmin(t);
    user = await createAccount(t, { first_name: 'Jane' });
    product = await createProduct(t, admin.token, { price: 12.5, stock: 10 });
  });

  afterAll(async () => {
    await t.close();
  });

  const userRow = async (id: number) =>
    (await t.dataSource.query('SELECT first_name, last_name FROM users WHERE id = ?', [id]))[0];
  const productRow = async (id: number) =>
    (await t.dataSource.query('SELECT price_cents, stock, name FROM products WHERE id = ?', [id]))[0];
  const orderCount = async () => Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM orders'))[0].n);
  const userCount = async () => Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM users'))[0].n);

  it('refuses null for a non-nullable field (first_name) with its field error', async () => {
    const res = await request(t.url)
      .put(`/api/v1/users/${user.id}`)
      .auth(user.token, { type: 'bearer' })
      .send({ first_name: null })
      .expect(400);
    expect(res.body.data.errors).toContainEqual({
      field: 'first_name',
      rule: 'isString',
      message: 'first_name must be a string',
    });
    expect(res.body.data.details).toContain('first_name must be a string');
    expect(await userRow(user.id)).toEqual({ first_name: 'Jane', last_name: 'Last' });
  });

  it("refuses a product's price: null (it was stored as 0 on MariaDB) and keeps the price", async () => {
    const res = await request(t.url)
      .put(`/api/v1/products/${product.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ price: null, stock: null })
      .expect(400);
    const fields = res.body.data.errors.map((e: { field: string }) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['price', 'stock']));
    expect(await productRow(product.id)).toEqual({
      price_cents: 1250,
      stock: 10,
      name: expect.any(String),
    });
  });

  it('refuses nested arrays where order items are expected', async () => {
    const before = await orderCount();
    const res = await request(t.url)
      .post('/api/v1/orders')
      .auth(user.token, { type: 'bearer' })
      .send({ items: [[]], shipping_address: '1 Main St', payment_method: 'credit_card' })
      .expect(400);
    expect(res.body.data.errors).toContainEqual({
      field: 'items',
      rule: 'isObject',
      message: 'each value in items must be an object {product_id, quantity} or {variant_id, quantity}',
    });
    expect(await orderCount()).toBe(before);
    expect((await productRow(product.id)).stock).toBe(10);
  });

  it('names nested fields by path and reports every problem of the body', async () => {
    const res = await request(t.url)
      .post('/api/v1/orders')
      .auth(user.token, { type: 'bearer' })
      .send({ items: [{ product_id: product.id, quantity: 0 }], shipping_address: '' })
      .expect(400);
    expect(res.body.data.errors).toEqual(
      expect.arrayContaining([
        {
          field: 'items.0.quantity',
          rule: 'min',
          message: 'items.0.quantity must not be less than 1',
        },
        expect.objectContaining({ field: 'shipping_address', rule: 'minLength' }),
        expect.objectContaining({ field: 'payment_method', rule: 'isString' }),
      ]),
    );
    expect(res.body.data.details).toBe(
      res.body.data.errors.map((e: { message: string }) => e.message).join('; '),
    );
  });

  it('reports every problem of a query: ?page=abc&page_size=101 names both', async () => {
    const res = await request(t.url)
      .get('/api/v1/products?page=abc&page_size=101')
      .auth(user.token, { type: 'bearer' })
      .expect(400);
    expect(res.body.data.errors).toEqual([
      { field: 'page', rule: 'max', message: 'page must not be greater than 1000000' },
      { field: 'page', rule: 'min', message: 'page must not be less than 1' },
      { field: 'page', rule: 'isInt', message: 'page must be an integer number' },
      { field: 'page_size', rule: 'max', message: 'page_size must not be greater than 100' },
    ]);
  });

  it.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', '__proto__'])(
    'refuses %s, a name of Object.prototype, as an unknown field of a body and a query, changing nothing',
    async (name) => {
      const unknown = {
        field: name,
        rule: 'whitelistValidation',
        message: `property ${name} should not exist`,
      };
      // Raw bytes: "__proto__" in an object literal would set the prototype instead of sending the field.
      const update = await sendRaw(
        t,
        'PUT',
        `/api/v1/users/${user.id}`,
        Buffer.from(`{"first_name":"a","${name}":1}`),
        user.token,
      );
      expect(update.status).toBe(400);
      expect(update.body.data.errors).toEqual([unknown]);
      expect(update.body.data.details).toBe(unknown.message);
      expect(await userRow(user.id)).toEqual({ first_name: 'Jane', last_name: 'Last' });

      const before = await orderCount();
      const order = await sendRaw(
        t,
        'POST',
        '/api/v1/orders',
        Buffer.from(
          `{"items":[{"product_id":${product.id},"quantity":1,"${name}":1}],` +
            '"shipping_address":"1 Main St","payment_method":"credit_card"}',
        ),
        user.token,
      );
      expect(order.status).toBe(400);
      expect(order.body.data.errors).toEqual([
        { ...unknown, field: `items.0.${name}`, message: `items.0.${unknown.message}` },
      ]);
      expect(await orderCount()).toBe(before);
      expect((await productRow(product.id)).stock).toBe(10);

      const list = await request(t.url)
        .get(`/api/v1/products?page=1&${name}=1`)
        .auth(user.token, { type: 'bearer' })
        .expect(400);
      expect(list.body.data.errors).toEqual([unknown]);
    },
  );

  it('refuses JSON nested deeper than 32 levels before parsing it, quickly', async () => {
    const depth = 49_000;
    const body = Buffer.from(`{"items":${'['.repeat(depth)}${']'.repeat(depth)}}`);
    const started = Date.now();
    const res = await sendRaw(t, 'POST', '/api/v1/orders', body, user.token);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(res.status).toBe(400);
    expect(res.body.data.errors).toEqual([
      { field: '', rule: 'maxDepth', message: 'JSON body is nested deeper than 32 levels' },
    ]);
    const ok = await sendRaw(t, 'PUT', `/api/v1/users/${user.id}`, Buffer.from('{"a":[[[1]]]}'), user.token);
    expect(ok.body.data.errors).toEqual([
      { field: 'a', rule: 'whitelistValidation', message: 'property a should not exist' },
    ]);
  });

  it('refuses the fields of a body sent to a route that takes none (rule whitelistValidation), changing nothing', async () => {
    const unknown = (field: string) => [
      { field, rule: 'whitelistValidation', message: `property ${field} should not exist` },
    ];
    const owner = await createAccount(t);
    const order = (await placeOrder(t, owner.token, [[product.id, 2]]).expect(201)).body.data as {
      id: number;
    };
    const stock = (await productRow(product.id)).stock as number;
    const asOwner = <T extends request.Test>(req: T) => req.auth(owner.token, { type: 'bearer' });

    const cancel = await asOwner(request(t.url).post(`/api/v1/orders/${order.id}/cancel`))
      .send({ reason: 'changed my mind', status: 'cancelled' })
      .expect(400);
    expect(cancel.body).toEqual({
      code: 400,
      message: 'Bad Request',
      data: {
        details: 'property reason should not exist; property status should not exist',
        errors: [...unknown('reason'), ...unknown('status')],
      },
    });
    const pay = await asOwner(request(t.url).post(`/api/v1/orders/${order.id}/payments`))
      .send({ amount: 0.01 })
      .expect(400);
    expect(pay.body.data.errors).toEqual(unknown('amount'));
    const rows = await t.dataSource.query('SELECT status FROM orders WHERE id = ?', [order.id]);
    expect(rows).toEqual([{ status: 'pending' }]);
    expect((await productRow(product.id)).stock).toBe(stock);
    const payments = await t.dataSource.query('SELECT COUNT(*) AS n FROM payments WHERE order_id = ?', [
      order.id,
    ]);
    expect(Number(payments[0].n)).toBe(0);

    const logout = await asOwner(request(t.url).post('/api/v1/logout')).send({ all: true }).expect(400);
    expect(logout.body.data.errors).toEqual(unknown('all'));
    await asOwner(request(t.url).get('/api/v1/me')).expect(200);

    const removal = await request(t.url)
      .delete(`/api/v1/products/${product.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ hard: true })
      .expect(400);
    expect(removal.body.data.errors).toEqual(unknown('hard'));
    await request(t.url)
      .get(`/api/v1/products/${product.id}`)
      .auth(user.token, { type: 'bearer' })
      .expect(200);

    // A read takes no body either; without one, every route answers as before.
    const read = await asOwner(request(t.url).get('/api/v1/me')).send({ role: 'admin' }).expect(400);
    expect(read.body.data.errors).toEqual(unknown('role'));
    await asOwner(request(t.url).post(`/api/v1/orders/${order.id}/cancel`))
      .send({})
      .expect(200);
    expect((await productRow(product.id)).stock).toBe(stock + 2);
  });

  it('counts lengths in code points: "a\\uFE0F" x 50 is 100 characters and is refused for a 50 limit', async () => {
    const res = await request(t.url)
      .put(`/api/v1/users/${user.id}`)
      .auth(user.token, { type: 'bearer' })
      .send({ first_name: 'a\uFE0F'.repeat(50) })
      .expect(400);
    expect(res.body.data.errors).toEqual([
      {
        field: 'first_name',
        rule: 'maxLength',
        message: 'first_name must be shorter than or equal to 50 characters',
      },
    ]);
    expect(await userRow(user.id)).toEqual({ first_name: 'Jane', last_name: 'Last' });

    // 25 pairs are 50 code points: accepted and stored whole on either database.
    const fits = 'a\uFE0F'.repeat(25);
    const ok = await request(t.url)
      .put(`/api/v1/users/${user.id}`)
      .auth(user.token, { type: 'bearer' })
      .send({ first_name: fits, last_name: '😀'.repeat(50) })
      .expect(200);
    expect(ok.body.data.first_name).toBe(fits);
    expect(await userRow(user.id)).toEqual({ first_name: fits, last_name: '😀'.repeat(50) });
  });

  it('refuses invalid UTF-8 instead of storing U+FFFD', async () => {
    const body = Buffer.concat([
      Buffer.from('{"first_name":"ab'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);
    const res = await sendRaw(t, 'PUT', `/api/v1/users/${user.id}`, body, user.token);
    expect(res.status).toBe(400);
    expect(res.body.data.errors).toEqual([
      { field: '', rule: 'utf8', message: 'Request body is not valid UTF-8' },
    ]);
    expect((await userRow(user.id)).first_name).not.toContain('\uFFFD');
  });

  it('refuses a \\u escape of a lone surrogate, and accepts a proper pair', async () => {
    const before = await userRow(user.id);
    for (const raw of [
      '{"first_name":"x\\ud800"}',
      '{"first_name":"\\udc00x"}',
      '{"first_name":"\\ud800\\u0041"}',
    ]) {
      const res = await sendRaw(t, 'PUT', `/api/v1/users/${user.id}`, Buffer.from(raw), user.token);
      expect(res.status).toBe(400);
      expect(res.body.data.errors).toEqual([
        { field: '', rule: 'unicode', message: 'Request body has a \\u escape of an unpaired surrogate' },
      ]);
    }
    expect(await userRow(user.id)).toEqual(before);
    const pair = await sendRaw(
      t,
      'PUT',
      `/api/v1/users/${user.id}`,
      Buffer.from('{"first_name":"\\ud83d\\ude00"}'),
      user.token,
    );
    expect(pair.status).toBe(200);
    expect((await userRow(user.id)).first_name).toBe('😀');
  });

  it('normalises usernames and emails (NFKC) and refuses invisible characters: no second alice', async () => {
    await request(t.url)
      .post('/api/v1/register')
      .send({ username: 'alice', email: 'alice@example.com', password: 'password-123' })
      .expect(201);
    const before = await userCount();
    const attempts: Array<[Record<string, string>, string, string]> = [
      [{ username: 'ａｌｉｃｅ', email: 'alice2@example.com' }, 'username', 'unique'],
      [{ username: 'ALICE', email: 'alice3@example.com' }, 'username', 'unique'],
      [{ username: 'alice4', email: 'ａlice@example.com' }, 'email', 'unique'],
      [{ username: 'alice5', email: 'ALICE@EXAMPLE.COM' }, 'email', 'unique'],
      [{ username: 'al\u200Bice', email: 'alice6@example.com' }, 'username', 'noInvisibleCharacters'],
      [{ username: 'alice7', email: 'alice@exam\u200Bple.com' }, 'email', 'noInvisibleCharacters'],
      [{ username: 'alice8', email: 'alice\u0000@example.com' }, 'email', 'noInvisibleCharacters'],
      [{ username: 'alice9', email: 'alice@exаmple.com' }, 'email', 'isAscii'],
    ];
    for (const [fields, field, rule] of attempts) {
      const res = await request(t.url)
        .post('/api/v1/register')
        .send({ password: 'password-123', ...fields })
        .expect(400);
      expect(res.body.data.errors).toContainEqual(expect.objectContaining({ field, rule }));
    }
    expect(await userCount()).toBe(before);
    const rows = await t.dataSource.query("SELECT username FROM users WHERE email LIKE 'alice%'");
    expect(rows).toEqual([{ username: 'alice' }]);
    // The full-width form logs in as the same account.
    await request(t.url)
      .post('/api/v1/login')
      .send({ username: 'ａｌｉｃｅ', password: 'password-123' })
      .expect(200);
  });

  it('has the CHECK constraints in the database itself (price > 0, stock >= 0, quantity > 0)', async () => {
    for (const sql of [
      'UPDATE products SET price_cents = 0 WHERE id = ?',
      'UPDATE products SET stock = -1 WHERE id = ?',
    ]) {
      await expect(t.dataSource.query(sql, [product.id])).rejects.toThrow(/CHK_products|CHECK constraint/i);
    }
    const order = await request(t.url)
      .post('/api/v1/orders')
      .auth(user.token, { type: 'bearer' })
      .send({
        items: [{ product_id: product.id, quantity: 1 }],
        shipping_address: 'x',
        payment_method: 'paypal',
      })
      .expect(201);
    await expect(
      t.dataSource.query('UPDATE order_items SET quantity = 0 WHERE order_id = ?', [order.body.data.id]),
    ).rejects.toThrow(/CHK_order_items|CHECK constraint/i);
    expect((await productRow(product.id)).price_cents).toBe(1250);
  });

  it('gives every *_at with milliseconds, from columns that keep them', async () => {
    const fresh = await createAccount(t);
    const detail = await request(t.url)
      .get(`/api/v1/users/${fresh.id}`)
      .auth(fresh.token, { type: 'bearer' });
    const made = await createProduct(t, admin.token);
    const read = await request(t.url)
      .get(`/api/v1/products/${made.id}`)
      .auth(admin.token, { type: 'bearer' });
    const stamps = [detail.body.data, read.body.data].flatMap((d) => [d.created_at, d.updated_at]);
    for (const stamp of stamps) expect(stamp).toMatch(ISO_MS);
    // Stored with milliseconds, not truncated to the second: the stored value is the one answered.
    const row = (await t.dataSource.query('SELECT created_at FROM users WHERE id = ?', [fresh.id]))[0];
    const stored = new Date(row.created_at instanceof Date ? row.created_at : `${row.created_at}Z`);
    expect(stored.toISOString()).toBe(detail.body.data.created_at);
    if (t.config.database.type === 'mysql') {
      const columns = await t.dataSource.query(
        `SELECT TABLE_NAME, COLUMN_NAME, DATETIME_PRECISION AS p FROM information_schema.COLUMNS
          WHERE TABLE_SCHEMA = DATABASE() AND DATA_TYPE IN ('datetime', 'timestamp') AND TABLE_NAME <> 'migrations'`,
      );
      expect(columns.length).toBeGreaterThan(0);
      for (const column of columns) expect(Number(column.p)).toBe(3);
    }
  });
});

describe('hardening: concurrent retries with one Idempotency-Key', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(ADMIN_ENV);
  });

  afterAll(async () => {
    await t.close();
  });

  it('answers all 20 with the one order (201), stock taken once', async () => {
    const admin = await loginAdmin(t);
    const buyer = await createAccount(t);
    const product = await createProduct(t, admin.token, { price: 3, stock: 1 });
    const order = {
      items: [{ product_id: product.id, quantity: 1 }],
      shipping_address: '1 Main St',
      payment_method: 'credit_card',
    };
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        request(t.url)
          .post('/api/v1/orders')
          .auth(buyer.token, { type: 'bearer' })
          .set('Idempotency-Key', 'checkout-42')
          .send(order),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    const ids = new Set(responses.map((r) => r.body.data.id));
    expect(ids.size).toBe(1);
    expect(responses.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(19);
    expect(responses[0].body.data.total_amount).toBe(3);
    const orders = await t.dataSource.query('SELECT id, total_cents FROM orders WHERE user_id = ?', [
      buyer.id,
    ]);
    expect(orders).toEqual([{ id: [...ids][0], total_cents: 300 }]);
    const [{ stock }] = await t.dataSource.query('SELECT stock FROM products WHERE id = ?', [product.id]);
    expect(stock).toBe(0);
  });
});
