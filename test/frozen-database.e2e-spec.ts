import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { MariaDbServer } from './support/mariadb-server.js';
import { placeOrder as placeOrderOf } from './support/orders.js';
import { createProduct } from './support/products.js';
import { startTestApp, type TestApp } from './support/test-app.js';

// Selected by jest.config.cjs only in the MariaDB pass (TEST_DATABASE_URL set), which has the
// MariaDB binaries; the test starts a server of its own and freezes that one.
const QUERY_TIMEOUT_MS = 1500;
const ACQUIRE_TIMEOUT_MS = 1000;

const timed = async <T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> => {
  const started = Date.now();
  const result = await work();
  return { result, ms: Date.now() - started };
};

/**
 * A database that stops answering (SIGSTOP: connections stay open, nothing comes back) must give
 * 500 envelopes within the configured timeouts, not hang, and the service must recover by itself.
 */
describe('frozen database: bounded waits and recovery', () => {
  let mariadb: MariaDbServer;
  let t: TestApp;
  let customer: Account;
  let productId: number;

  beforeAll(async () => {
    mariadb = await MariaDbServer.start();
    t = await startTestApp({
      ...ADMIN_ENV,
      DATABASE_URL: await mariadb.createDatabase('frozen_test'),
      DATABASE_POOL_SIZE: '4',
      DATABASE_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
      DATABASE_ACQUIRE_TIMEOUT_MS: String(ACQUIRE_TIMEOUT_MS),
    });
    const admin = await loginAdmin(t);
    customer = await createAccount(t);
    productId = (await createProduct(t, admin.token, { stock: 50 })).id;
  }, 120_000);

  afterAll(async () => {
    mariadb?.thaw();
    await t?.close();
    await mariadb?.stop();
  });

  const listProducts = () => request(t.url).get('/api/v1/products').auth(customer.token, { type: 'bearer' });
  const placeOrder = () => placeOrderOf(t, customer.token, [[productId, 1]]);
  const stockAndOrders = async () => {
    const [product] = await t.dataSource.query('SELECT stock FROM products WHERE id = ?', [productId]);
    const [orders] = await t.dataSource.query('SELECT COUNT(*) AS n FROM orders');
    return { stock: Number(product.stock), orders: Number(orders.n) };
  };

  it('answers 500 envelopes within the timeouts while frozen, then recovers after SIGCONT without a restart', async () => {
    // Four pooled connections open and idle.
    await Promise.all(Array.from({ length: 4 }, () => listProducts().expect(200)));
    const before = await stockAndOrders();

    mariadb.freeze();
    try {
      // An idle connection is taken at once; its query gets no answer and times out.
      const first = await timed(() => listProducts());
      expect(first.result.status).toBe(500);
      expect(first.ms).toBeGreaterThanOrEqual(QUERY_TIMEOUT_MS - 50);
      expect(first.ms).toBeLessThan(QUERY_TIMEOUT_MS + 1500);

      // More requests than pooled connections: some wait for a connection, some for a query.
      const [ready, health, ...work] = await Promise.all([
        timed(() => request(t.url).get('/api/v1/health/ready')),
        timed(() => request(t.url).get('/api/v1/health')),
        ...Array.from({ length: 6 }, () => timed(() => listProducts())),
        ...Array.from({ length: 3 }, () => timed(() => placeOrder())),
      ]);

      expect(ready.result.status).toBe(500);
      expect(ready.result.body.data.details).toBe('Not ready: database (timeout of 1000ms exceeded)');
      expect(ready.ms).toBeLessThan(1800);
      expect(health.result.status).toBe(500);
      expect(health.ms).toBeLessThan(1800);
      for (const { result, ms } of work) {
        expect(result.status).toBe(500);
        expect(result.body).toEqual({
          code: 500,
          message: 'Internal Server Error',
          data: { details: 'Internal server error' },
        });
        // One bounded wait (a connection or a query) plus the request's own work.
        expect(ms).toBeLessThan(QUERY_TIMEOUT_MS + ACQUIRE_TIMEOUT_MS + 1500);
      }
      // Still frozen: later requests are bounded too (timed-out connections are not reused).
      const again = await timed(() => listProducts());
      expect(again.result.status).toBe(500);
      expect(again.ms).toBeLessThan(QUERY_TIMEOUT_MS + ACQUIRE_TIMEOUT_MS + 1500);
    } finally {
      mariadb.thaw();
    }

    // The same process recovers: readiness, reads and writes work again.
    const recoveredAt = Date.now();
    while ((await request(t.url).get('/api/v1/health/ready')).status !== 200) {
      expect(Date.now() - recoveredAt).toBeLessThan(10_000);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await listProducts().expect(200);
    // No order placed during the freeze was half-written: stock and orders are as before.
    expect(await stockAndOrders()).toEqual(before);
    await placeOrder().expect(201);
    expect(await stockAndOrders()).toEqual({ stock: before.stock - 1, orders: before.orders + 1 });
  }, 60_000);
});
