import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import request from 'supertest';
import { ADMIN_ENV, createAccount, loginAdmin } from './support/accounts.js';
import { scrape } from './support/metrics.js';
import { createProduct } from './support/products.js';
import { startTestApp, TestApp } from './support/test-app.js';
import { TestSocket } from './support/ws-client.js';

// Selected by jest.config.cjs only when TEST_PROMTOOL names Prometheus' promtool (.ci/run sets it).
const PROMTOOL = process.env.TEST_PROMTOOL as string;

describe('the /metrics exposition checked by promtool', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ ...ADMIN_ENV, THROTTLE_AUTH_LIMIT: '20' });
  });

  afterAll(async () => {
    await t.close();
  });

  it('passes `promtool check metrics` after traffic of every kind, with every series and label present', async () => {
    const admin = await loginAdmin(t);
    const buyer = await createAccount(t);
    const product = await createProduct(t, admin.token, { stock: 3 });
    const order = (quantity: number) =>
      request(t.url)
        .post('/api/v1/orders')
        .auth(buyer.token, { type: 'bearer' })
        .send({
          items: [{ product_id: product.id, quantity }],
          shipping_address: '1 Main St',
          payment_method: 'credit_card',
        });
    const placed = await order(2).expect(201);
    await order(5).expect(400);
    await request(t.url)
      .post(`/api/v1/orders/${placed.body.data.id}/cancel`)
      .auth(buyer.token, { type: 'bearer' })
      .expect(200);
    await request(t.url)
      .get(`/api/v1/products/${product.id}`)
      .auth(buyer.token, { type: 'bearer' })
      .expect(200);
    await request(t.url).get('/api/v1/products/1.5').auth(buyer.token, { type: 'bearer' }).expect(400);
    await request(t.url).get('/api/v1/unknown').expect(404);
    let status = 0;
    while (status !== 429) {
      // /register shares the auth limit with /login (whose per-account lock would answer 429 first).
      status = (await request(t.url).post('/api/v1/register').send({})).status;
    }
    const socket = await TestSocket.authenticated(t, buyer.token);

    const m = await scrape(t.url);
    await socket.close();
    const check = spawnSync(PROMTOOL, ['check', 'metrics'], { input: m.text, encoding: 'utf8' });
    expect({ status: check.status, output: check.stdout + check.stderr }).toEqual({ status: 0, output: '' });

    const names = new Set(m.samples.map((sample) => sample.name));
    for (const name of [
      'http_request_duration_seconds_bucket',
      'http_request_duration_seconds_sum',
      'http_request_duration_seconds_count',
      'http_requests_in_flight',
      'commerce_db_pool_connections_in_use',
      'commerce_db_pool_requests_waiting',
      'commerce_orders_created_total',
      'commerce_orders_refused_stock_total',
      'commerce_orders_cancelled_total',
      'commerce_websocket_connections',
      'commerce_rate_limit_refusals_total',
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_gc_duration_seconds_count',
    ]) {
      expect({ name, present: names.has(name) }).toEqual({ name, present: true });
    }
    expect(m.text).toContain('# TYPE commerce_redis_connected gauge');
    expect(m.value('commerce_orders_created_total')).toBe(1);
    expect(m.value('commerce_orders_refused_stock_total')).toBe(1);
    expect(m.value('commerce_orders_cancelled_total')).toBe(1);
    expect(m.value('commerce_websocket_connections')).toBe(1);
    expect(m.value('commerce_rate_limit_refusals_total', { limit: 'auth' })).toBe(1);
    const count = (method: string, route: string, code: string) =>
      m.value('http_request_duration_seconds_count', { method, route, status: code });
    expect(count('GET', '/api/v1/products/:id', '200')).toBe(1);
    expect(count('GET', '/api/v1/products/:id', '400')).toBe(1);
    expect(count('POST', '/api/v1/orders', '201')).toBe(1);
    expect(count('POST', '/api/v1/orders', '400')).toBe(1);
    expect(count('POST', '/api/v1/orders/:id/cancel', '200')).toBe(1);
    expect(count('POST', '/api/v1/register', '429')).toBe(1);
    expect(count('GET', 'unmatched', '404')).toBe(1);
    // The database state the counters describe.
    const [{ n }] = await t.dataSource.query('SELECT COUNT(*) AS n FROM orders');
    expect(Number(n)).toBe(1);
    const [{ stock }] = await t.dataSource.query('SELECT stock FROM products WHERE id = ?', [product.id]);
    expect(Number(stock)).toBe(3);
  });
});
