import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { createProduct } from './support/products.js';
import { startTestApp, TestApp } from './support/test-app.js';

const idsOf = (res: request.Response) => res.body.data.map((p: { id: number }) => p.id);

describe('anonymous catalogue with CATALOG_PUBLIC=true', () => {
  let t: TestApp;
  let admin: Account;
  let active: number[];
  let inactive: number;

  beforeAll(async () => {
    t = await startTestApp({
      ...ADMIN_ENV,
      CATALOG_PUBLIC: 'true',
      PAYMENT_METHODS: 'paypal,cash_on_delivery',
    });
    admin = await loginAdmin(t);
    active = [(await createProduct(t, admin.token)).id, (await createProduct(t, admin.token)).id];
    inactive = (await createProduct(t, admin.token)).id;
    await request(t.url)
      .put(`/api/v1/products/${inactive}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ is_active: false })
      .expect(200);
  });

  afterAll(async () => {
    await t.close();
  });

  it('lists and reads active products without a token, exactly as a user sees them', async () => {
    const anonymous = await request(t.url).get('/api/v1/products').expect(200);
    expect(idsOf(anonymous)).toEqual(active);
    expect(anonymous.body.meta).toEqual({
      page: 1,
      page_size: 10,
      total: 2,
      total_page: 1,
      next_cursor: null,
    });
    const user = await createAccount(t);
    const asUser = await request(t.url)
      .get('/api/v1/products')
      .auth(user.token, { type: 'bearer' })
      .expect(200);
    expect(anonymous.body).toEqual(asUser.body);
    const one = await request(t.url).get(`/api/v1/products/${active[0]}`).expect(200);
    expect(one.body.data.id).toBe(active[0]);
  });

  it('hides an inactive product (404) and keeps the is_active filter for admins (403)', async () => {
    const res = await request(t.url).get(`/api/v1/products/${inactive}`).expect(404);
    expect(res.body.code).toBe(404);
    const filter = await request(t.url).get('/api/v1/products?is_active=false').expect(403);
    expect(filter.body.data.details).toBe('Only an admin may filter by is_active');
  });

  it('still refuses an invalid token with 401, never reading anonymously', async () => {
    for (const path of ['/api/v1/products', `/api/v1/products/${active[0]}`, '/api/v1/payment-methods']) {
      const res = await request(t.url).get(path).auth('not-a-token', { type: 'bearer' }).expect(401);
      expect(res.body.data.details).toBe('Invalid bearer token');
    }
  });

  it('keeps writes and everything else behind a token', async () => {
    await request(t.url).post('/api/v1/products').send({ name: 'x', price: 1 }).expect(401);
    await request(t.url).put(`/api/v1/products/${active[0]}`).send({ price: 2 }).expect(401);
    await request(t.url).delete(`/api/v1/products/${active[0]}`).expect(401);
    await request(t.url).get('/api/v1/orders').expect(401);
    await request(t.url).get('/api/v1/admin/orders').expect(401);
    const rows = await t.dataSource.query('SELECT COUNT(*) AS n FROM products WHERE deleted_at IS NULL');
    expect(Number(rows[0].n)).toBe(3);
  });

  it('lists PAYMENT_METHODS at /payment-methods and as the enum of payment_method in OpenAPI', async () => {
    const res = await request(t.url).get('/api/v1/payment-methods').expect(200);
    expect(res.body).toMatchObject({
      code: 200,
      message: 'OK',
      data: {
        payment_methods: ['paypal', 'cash_on_delivery'],
        // Methods not named in PAYMENT_PROVIDERS are confirmed by an admin.
        providers: { paypal: 'manual', cash_on_delivery: 'manual' },
        // CURRENCY (default usd): the one currency of every amount, so front ends can format prices.
        currency: 'usd',
      },
    });
    const doc = (await request(t.url).get('/api/docs-json').expect(200)).body;
    expect(doc.components.schemas.CreateOrderDto.properties.payment_method.enum).toEqual([
      'paypal',
      'cash_on_delivery',
    ]);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/v1/payment-methods', '/api/v1/admin/orders']),
    );
    const adminParams = doc.paths['/api/v1/admin/orders'].get.parameters.map((p: { name: string }) => p.name);
    expect(adminParams.sort()).toEqual(
      [
        'created_from',
        'created_to',
        'page',
        'page_size',
        'payment_status',
        'search',
        'sort',
        'status',
        'user_id',
      ].sort(),
    );
  });
});

describe('catalogue by default (CATALOG_PUBLIC unset)', () => {
  let t: TestApp;
  let user: Account;
  let productId: number;

  beforeAll(async () => {
    t = await startTestApp(ADMIN_ENV);
    productId = (await createProduct(t, (await loginAdmin(t)).token)).id;
    user = await createAccount(t);
  });

  afterAll(async () => {
    await t.close();
  });

  it('needs a bearer token for every catalogue read, as the seed shows', async () => {
    for (const path of ['/api/v1/products', `/api/v1/products/${productId}`, '/api/v1/payment-methods']) {
      const res = await request(t.url).get(path).expect(401);
      expect(res.body.data.details).toBe('Missing bearer token');
      await request(t.url).get(path).auth(user.token, { type: 'bearer' }).expect(200);
    }
    const methods = await request(t.url).get('/api/v1/payment-methods').auth(user.token, { type: 'bearer' });
    expect(methods.body.data.payment_methods).toEqual([
      'credit_card',
      'debit_card',
      'paypal',
      'bank_transfer',
      'cash_on_delivery',
    ]);
  });
});
