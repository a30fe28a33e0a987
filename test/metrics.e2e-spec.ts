import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request as httpRequest } from 'node:http';
import { once } from 'node:events';
import { createServer } from 'node:net';
import request from 'supertest';
import { TransactionRunner } from '../src/database/transaction-runner.js';
import { MetricsServer } from '../src/observability/metrics-server.js';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { scrape } from './support/metrics.js';
import { createProduct } from './support/products.js';
import { eventually } from './support/eventually.js';
import { startTestApp, TestApp } from './support/test-app.js';
import { TestSocket } from './support/ws-client.js';

const DURATION = 'http_request_duration_seconds';

describe('metrics at GET /metrics', () => {
  let t: TestApp;
  let admin: Account;
  let buyer: Account;

  beforeAll(async () => {
    // The job queue's poll (a transaction each second) would take part in the pool figures below.
    t = await startTestApp({ ...ADMIN_ENV, JOBS_POLL_INTERVAL_MS: '60000' });
    admin = await loginAdmin(t);
    buyer = await createAccount(t);
  });

  afterAll(async () => {
    await t.close();
  });

  it('are Prometheus text outside /api/v1, without the envelope', async () => {
    const res = await request(t.url).get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.text).toMatch(/^# HELP /);
    await request(t.url).get('/api/v1/metrics').expect(404);
  });

  it('time requests by method, route template and status; unknown paths share one route label', async () => {
    const product = await createProduct(t, admin.token);
    const get = (path: string) => request(t.url).get(path).auth(buyer.token, { type: 'bearer' });
    await get(`/api/v1/products/${product.id}`).expect(200);
    await get(`/api/v1/products/${product.id}`).expect(200);
    await get('/api/v1/products/999999').expect(404);
    await get('/api/v1/no/such/path/123').expect(404);
    await get('/nowhere').expect(404);

    const m = await scrape(t.url);
    const route = '/api/v1/products/:id';
    expect(m.value(`${DURATION}_count`, { method: 'GET', route, status: '200' })).toBe(2);
    expect(m.value(`${DURATION}_count`, { method: 'GET', route, status: '404' })).toBe(1);
    expect(m.value(`${DURATION}_bucket`, { method: 'GET', route, status: '200', le: '+Inf' })).toBe(2);
    expect(m.value(`${DURATION}_sum`, { method: 'GET', route, status: '200' })).toBeGreaterThan(0);
    expect(m.value(`${DURATION}_count`, { method: 'POST', route: '/api/v1/products', status: '201' })).toBe(
      1,
    );
    // The two unknown paths above and /api/v1/metrics of the previous test.
    expect(m.value(`${DURATION}_count`, { method: 'GET', route: 'unmatched', status: '404' })).toBe(3);
    // Never the raw URL: no label holds an id or an unknown path.
    const routes = new Set(
      m.samples.filter((s) => s.name === `${DURATION}_count`).map((s) => s.labels.route),
    );
    expect([...routes].filter((r) => /\d|no\/such|nowhere/.test(r.replace('/api/v1', '')))).toEqual([]);
    // Scrapes themselves are not timed.
    expect([...routes]).not.toContain('/metrics');
  });

  it('count requests in flight until they are answered', async () => {
    const before = (await scrape(t.url)).value('http_requests_in_flight');
    expect(before).toBe(0);
    // A request whose body is still arriving is in flight.
    const pending = httpRequest(`${t.url}/api/v1/orders`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Length': '100' },
    });
    pending.on('error', () => undefined);
    pending.write('{"items":');
    const inFlight = async () => (await scrape(t.url)).value('http_requests_in_flight');
    // Counted once the service has read the request's head.
    await eventually(async () => (await inFlight()) !== 0);
    expect(await inFlight()).toBe(1);
    pending.destroy();
    await eventually(async () => (await inFlight()) === 0);
  });

  it('count orders created, refused for stock and cancelled, matching the database', async () => {
    const counters = async () => {
      const m = await scrape(t.url);
      return {
        created: m.value('commerce_orders_created_total'),
        refused: m.value('commerce_orders_refused_stock_total'),
        cancelled: m.value('commerce_orders_cancelled_total'),
      };
    };
    const start = await counters();
    const product = await createProduct(t, admin.token, { stock: 5 });
    const place = (quantity: number, key?: string) => {
      const req = request(t.url).post('/api/v1/orders').auth(buyer.token, { type: 'bearer' });
      if (key !== undefined) req.set('Idempotency-Key', key);
      return req.send({
        items: [{ product_id: product.id, quantity }],
        shipping_address: '1 Main St',
        payment_method: 'credit_card',
      });
    };

    const first = await place(2, 'metrics-order-1').expect(201);
    const replay = await place(2, 'metrics-order-1').expect(201); // a replay is not a new order
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const refused = await place(10).expect(400);
    expect(refused.body.data.details).toContain('insufficient stock');
    await request(t.url)
      .post(`/api/v1/orders/${first.body.data.id}/cancel`)
      .auth(buyer.token, { type: 'bearer' })
      .expect(200);
    // An admin cancels a paid order, then refunds it: one more cancellation, not two.
    const second = await place(1).expect(201);
    const setStatus = (body: object) =>
      request(t.url)
        .patch(`/api/v1/orders/${second.body.data.id}/status`)
        .auth(admin.token, { type: 'bearer' })
        .send(body)
        .expect(200);
    await setStatus({ status: 'paid', payment_status: 'paid' });
    await setStatus({ status: 'cancelled', payment_status: 'refunded' });

    expect(await counters()).toEqual({
      created: start.created! + 2,
      refused: start.refused! + 1,
      cancelled: start.cancelled! + 2,
    });
    const rows = await t.dataSource.query('SELECT status FROM orders WHERE id IN (?, ?)', [
      first.body.data.id,
      second.body.data.id,
    ]);
    expect(rows.map((row: { status: string }) => row.status)).toEqual(['cancelled', 'cancelled']);
    const [{ stock }] = await t.dataSource.query('SELECT stock FROM products WHERE id = ?', [product.id]);
    expect(Number(stock)).toBe(5);
  });

  it('report database pool use and waiters', async () => {
    // Background work (event dispatch after the set-up's writes) may still hold the pool for a moment.
    const poolIdle = async () => {
      const metrics = await scrape(t.url);
      return (
        metrics.value('commerce_db_pool_connections_in_use') === 0 &&
        metrics.value('commerce_db_pool_requests_waiting') === 0
      );
    };
    await eventually(poolIdle);

    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const transactions = t.app.get(TransactionRunner);
    const running = [1, 2].map(() => transactions.run('hold', () => gate));
    // Once both have begun: each holds a pooled connection, or waits for one.
    let busy = await scrape(t.url);
    await eventually(async () => {
      busy = await scrape(t.url);
      const inUse = busy.value('commerce_db_pool_connections_in_use') ?? 0;
      return inUse + (busy.value('commerce_db_pool_requests_waiting') ?? 0) >= 2;
    });
    release();
    await Promise.all(running);
    if (t.config.database.type === 'mysql') {
      // Two transactions hold two pooled connections; the pool has room, so nobody waits.
      expect(busy.value('commerce_db_pool_connections_in_use')).toBeGreaterThanOrEqual(2);
      expect(busy.value('commerce_db_pool_requests_waiting')).toBe(0);
    } else {
      // SQLite runs write transactions one at a time: one runs, the other waits.
      expect(busy.value('commerce_db_pool_connections_in_use')).toBe(1);
      expect(busy.value('commerce_db_pool_requests_waiting')).toBeGreaterThanOrEqual(1);
    }
    await eventually(poolIdle);
  });

  it('count open WebSocket connections and refused frames', async () => {
    const socket = await TestSocket.authenticated(t, buyer.token);
    const open = await scrape(t.url);
    expect(open.value('commerce_websocket_connections')).toBe(1);
    const refusedBefore = open.value('commerce_rate_limit_refusals_total', { limit: 'websocket' }) ?? 0;
    // WS_MESSAGES_PER_SECOND is 10: of 12 frames sent at once, at least one is refused with 429.
    for (let i = 0; i < 12; i++) socket.send({ type: 'ping' });
    const answers = [];
    for (let i = 0; i < 12; i++) answers.push(await socket.next());
    const refused = answers.filter((frame) => frame.type === 'error' && frame.data.code === 429).length;
    expect(refused).toBeGreaterThanOrEqual(1);
    expect((await scrape(t.url)).value('commerce_rate_limit_refusals_total', { limit: 'websocket' })).toBe(
      refusedBefore + refused,
    );
    await socket.close();
    await eventually(async () => (await scrape(t.url)).value('commerce_websocket_connections') === 0);
  });

  it('include the Node process and event-loop metrics', async () => {
    const m = await scrape(t.url);
    expect(m.value('process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(m.value('process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(m.value('nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(m.value('nodejs_eventloop_lag_p99_seconds')).toBeGreaterThan(0);
    // No Redis configured: no Redis series.
    expect(m.samples.some((s) => s.name === 'commerce_redis_connected')).toBe(false);
  });
});

describe('metrics and rate limits', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ THROTTLE_LIMIT: '3' });
  });

  afterAll(async () => {
    await t.close();
  });

  it('scrapes are never rate limited, and refusals are counted by limit', async () => {
    for (let i = 0; i < 3; i++) await request(t.url).get('/api/v1/products').expect(401);
    await request(t.url).get('/api/v1/products').expect(429);
    for (let i = 0; i < 10; i++) await request(t.url).get('/metrics').expect(200);
    const m = await scrape(t.url);
    expect(m.value('commerce_rate_limit_refusals_total', { limit: 'default' })).toBe(1);
    // The limiter answers before routing, so a refused request has no route template.
    expect(m.value(`${DURATION}_count`, { method: 'GET', route: 'unmatched', status: '429' })).toBe(1);
  });
});

describe('metrics on METRICS_PORT', () => {
  let t: TestApp;
  let metricsUrl: string;

  beforeAll(async () => {
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const port = (probe.address() as { port: number }).port;
    await new Promise((resolve) => probe.close(resolve));
    t = await startTestApp({ METRICS_PORT: String(port) });
    expect(t.app.get(MetricsServer).port).toBe(port);
    metricsUrl = `http://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    await t.close();
  });

  it('are served there only, for the traffic of the main port', async () => {
    await request(t.url).get('/api/v1/health').expect(200);
    await request(t.url).get('/metrics').expect(404);
    const m = await scrape(metricsUrl);
    expect(m.value(`${DURATION}_count`, { method: 'GET', route: '/api/v1/health', status: '200' })).toBe(1);
    expect(m.value(`${DURATION}_count`, { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    await request(metricsUrl).get('/api/v1/health').expect(404);
  });
});

describe('metrics in production', () => {
  let t: TestApp;

  beforeAll(async () => {
    // NODE_ENV=production without METRICS_PORT: the scrapes get their listener on 9464.
    t = await startTestApp({ NODE_ENV: 'production', HOST: '127.0.0.1' });
  });

  afterAll(async () => {
    await t.close();
  });

  it('are never served on the API port (404 envelope) but on METRICS_PORT, 9464 by default', async () => {
    for (const path of ['/metrics', '/metrics/', '/api/v1/metrics']) {
      const res = await request(t.url).get(path).expect(404);
      expect(res.body).toEqual({
        code: 404,
        message: 'Not Found',
        data: { details: expect.stringContaining('metrics') },
      });
      expect(res.text).not.toContain('# HELP');
    }
    expect(t.app.get(MetricsServer).port).toBe(9464);
    const m = await scrape('http://127.0.0.1:9464');
    expect(m.value(`${DURATION}_count`, { method: 'GET', route: 'unmatched', status: '404' })).toBe(3);
  });
});
