import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { concurrentClient } from './support/http.js';
import request from 'supertest';
import { placeOrder, postOrder } from './support/orders.js';
import { createProduct } from './support/products.js';
import { startTestApp, TestApp } from './support/test-app.js';

describe('orders under concurrency', () => {
  let t: TestApp;
  let admin: Account;
  let buyers: Account[];
  // Enough sockets for every request to be in flight at once; a fresh client per test.
  let agent = concurrentClient();

  const order = (account: Account, items: Array<[number, number]>) =>
    placeOrder(t, account.token, items, { agent });
  const stockOf = async (id: number) =>
    Number((await t.dataSource.query('SELECT stock FROM products WHERE id = ?', [id]))[0].stock);
  const orderedQuantity = async (id: number) =>
    Number(
      (
        await t.dataSource.query(
          'SELECT COALESCE(SUM(quantity), 0) AS q FROM order_items WHERE product_id = ?',
          [id],
        )
      )[0].q,
    );

  beforeAll(async () => {
    // 200 orders at once queue for pooled connections: on a busy machine longer than the 5 s default. Stock
    // under contention is the subject here; each buyer holds more pending orders than the default limit.
    t = await startTestApp({
      ...ADMIN_ENV,
      DATABASE_ACQUIRE_TIMEOUT_MS: '60000',
      DATABASE_QUERY_TIMEOUT_MS: '60000',
      ORDER_MAX_PENDING_PER_USER: '1000',
    });
    admin = await loginAdmin(t);
    buyers = [];
    for (let i = 0; i < 8; i++) buyers.push(await createAccount(t));
  });

  beforeEach(() => {
    agent.destroy();
    agent = concurrentClient();
  });

  afterAll(async () => {
    agent.destroy();
    await t.close();
  });

  it('200 concurrent orders for a product with stock 50: exactly 50 succeed, never oversold', async () => {
    const product = await createProduct(t, admin.token, { stock: 50, price: 3.33 });
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) => order(buyers[i % buyers.length], [[product.id, 1]])),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(50);
    expect(statuses.filter((s) => s === 400)).toHaveLength(150);
    for (const refused of responses.filter((r) => r.status === 400)) {
      expect(refused.body.data.details).toBe(
        `Product ${product.id} has insufficient stock: requested 1, available 0`,
      );
    }
    expect(await stockOf(product.id)).toBe(0);
    expect(await orderedQuantity(product.id)).toBe(50);
    const totals = await t.dataSource.query(
      'SELECT COUNT(*) AS n, SUM(total_cents) AS cents FROM orders o WHERE EXISTS (SELECT 1 FROM order_items i WHERE i.order_id = o.id AND i.product_id = ?)',
      [product.id],
    );
    expect(Number(totals[0].n)).toBe(50);
    expect(Number(totals[0].cents)).toBe(50 * 333);
  });

  it('200 concurrent orders for one variant with stock 50: exactly 50 succeed; variant and product stock exact', async () => {
    const product = await createProduct(t, admin.token, { price: 1 });
    const variant = async (sku: string, size: string, stock: number) => {
      const res = await request(t.url)
        .post(`/api/v1/products/${product.id}/variants`)
        .auth(admin.token, { type: 'bearer' })
        .send({ sku, options: { Size: size }, price: 3.33, stock });
      expect(res.status).toBe(201);
      return res.body.data.id as number;
    };
    await request(t.url)
      .put(`/api/v1/products/${product.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ options: [{ name: 'Size', values: ['S', 'M'] }] })
      .expect(200);
    const sold = await variant(`CONC-S-${product.id}`, 'S', 50);
    const other = await variant(`CONC-M-${product.id}`, 'M', 7);
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        postOrder(
          t,
          buyers[i % buyers.length].token,
          {
            items: [{ variant_id: sold, quantity: 1 }],
            shipping_address: '1 Main St',
            payment_method: 'paypal',
          },
          { agent },
        ),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(50);
    expect(statuses.filter((s) => s === 400)).toHaveLength(150);
    for (const refused of responses.filter((r) => r.status === 400)) {
      expect(refused.body.data.details).toMatch(
        /^(Variant \d+ of product \d+|Product \d+) has insufficient stock/,
      );
    }
    const [row] = await t.dataSource.query('SELECT stock FROM product_variants WHERE id = ?', [sold]);
    expect(Number(row.stock)).toBe(0);
    // The product's stock is its variants' sum: the other variant's 7.
    expect(await stockOf(product.id)).toBe(7);
    const [ordered] = await t.dataSource.query(
      'SELECT COUNT(*) AS n, SUM(quantity) AS q FROM order_items WHERE variant_id = ?',
      [sold],
    );
    expect([Number(ordered.n), Number(ordered.q)]).toEqual([50, 50]);
    expect(other).toBeGreaterThan(sold);
  });

  it('concurrent multi-item orders over overlapping products finish without errors reaching clients', async () => {
    const products = [];
    for (let i = 0; i < 4; i++) products.push(await createProduct(t, admin.token, { stock: 1000 }));
    const [a, b, c, d] = products.map((p) => p.id);
    // Each request names the products in a different order; the service locks them by id.
    const shapes: Array<Array<[number, number]>> = [
      [
        [a, 1],
        [b, 1],
        [c, 1],
      ],
      [
        [c, 1],
        [b, 1],
        [a, 1],
      ],
      [
        [d, 1],
        [a, 1],
      ],
      [
        [b, 1],
        [d, 1],
        [c, 1],
        [a, 1],
      ],
    ];
    const responses = await Promise.all(
      Array.from({ length: 120 }, (_, i) => order(buyers[i % buyers.length], shapes[i % shapes.length])),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(120).fill(201));
    const taken = { [a]: 0, [b]: 0, [c]: 0, [d]: 0 };
    shapes.forEach((shape) => shape.forEach(([id]) => (taken[id] += 30)));
    for (const id of [a, b, c, d]) {
      expect(await stockOf(id)).toBe(1000 - taken[id]);
      expect(await orderedQuantity(id)).toBe(taken[id]);
    }
  });
});
