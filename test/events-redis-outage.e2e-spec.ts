import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/config/app-config.js';
import { buildDataSourceOptions } from '../src/database/data-source-options.js';
import { ADMIN_ENV, createAccount, loginAdmin } from './support/accounts.js';
import { buildService, freePort, startAppProcess, type AppProcess } from './support/app-process.js';
import { eventually } from './support/eventually.js';
import { placeOrder } from './support/orders.js';
import { createProduct } from './support/products.js';
import { RedisProcess } from './support/redis-server.js';
import { TestSmtpServer } from './support/smtp-server.js';
import { createTestDatabase } from './support/test-app.js';
import {
  hasValidSignature,
  registerWebhook,
  startWebhookReceiver,
  type WebhookReceiver,
} from './support/webhook-receiver.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Order {
  id: number;
  order_number: string;
}

interface OutboxRow {
  id: string;
  type: string;
  data: string;
  attempts: number | string;
  dispatched_at: unknown;
  last_error: string | null;
}

/**
 * Orders placed before, during and after an outage of the queue's Redis (BullMQ), with two instances of the
 * service as OS processes on one database. Redis is a redis-server of this test's own, killed with SIGKILL (a
 * crash or an OOM kill) and started again on the same append-only file, which is the persistence the job queue
 * requires (docs/operations.md, "Job queue"). Runs on SQLite, and on MariaDB/MySQL with a mysql://
 * TEST_DATABASE_URL.
 */
describe('order events while the job queue’s Redis is killed and started again', () => {
  let redis: RedisProcess;
  let receiver: WebhookReceiver;
  let smtp: TestSmtpServer;
  let database: { url: string; drop(): Promise<void> };
  let dataSource: DataSource;
  const instances: AppProcess[] = [];
  let endpoints: Record<'/first' | '/second', { id: number; secret: string }>;
  let email: string;
  let place: (i: number) => Promise<Order>;
  const orders: Order[] = [];

  beforeAll(async () => {
    buildService();
    redis = new RedisProcess(await freePort());
    await redis.start();
    receiver = await startWebhookReceiver();
    smtp = await TestSmtpServer.create();
    database = await createTestDatabase();
    const env = {
      ...ADMIN_ENV,
      DATABASE_URL: database.url,
      JWT_SECRET: 'redis-outage-test-secret-shared-by-instances',
      REDIS_URL: redis.url,
      THROTTLE_LIMIT: '100000',
      THROTTLE_AUTH_LIMIT: '100000',
      SMTP_URL: smtp.url,
      MAIL_RETRY_BACKOFF_MS: '200',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s',
      // A failed dispatch is tried again by the sweep of the next second; a job add gives up after 1 s.
      OUTBOX_SWEEP_INTERVAL: '1',
      OUTBOX_REDISPATCH_AFTER: '1',
      JOBS_ADD_TIMEOUT_MS: '1000',
      JOBS_LEASE_MS: '2000',
    };
    instances.push(await startAppProcess(env)); // runs the migrations before the second one starts
    instances.push(await startAppProcess(env));
    dataSource = new DataSource(await buildDataSourceOptions(loadConfig({ DATABASE_URL: database.url })));
    await dataSource.initialize();

    const [a, b] = instances;
    const admin = await loginAdmin(a);
    const register = (path: string) =>
      registerWebhook(a, admin.token, `${receiver.url}${path}`, ['order.created']);
    endpoints = { '/first': await register('/first'), '/second': await register('/second') };
    const customer = await createAccount(a);
    email = `${customer.username}@example.com`;
    const product = await createProduct(a, admin.token, { stock: 100 });
    place = async (i) => {
      const order = (await placeOrder(i % 2 === 0 ? a : b, customer.token, [[product.id, 1]]).expect(201))
        .body.data as Order;
      orders.push(order);
      return order;
    };
  }, 120_000);

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    await dataSource?.destroy();
    await redis?.remove();
    await receiver?.close();
    await smtp?.stop();
    await database?.drop();
  });

  const eventsOf = async (some: Order[]) => {
    const ids = new Set(some.map((order) => order.id));
    const rows = (await dataSource.query(
      "SELECT * FROM outbox_events WHERE type = 'order.created'",
    )) as OutboxRow[];
    return rows.filter((row) => ids.has(JSON.parse(row.data).order.id));
  };
  const confirmations = () => smtp.to(email).filter((mail) => mail.subject.startsWith('Your order '));
  const subjectOf = (order: Order) => `Your order ${order.order_number}`;

  /**
   * Orders placed while Redis is down: the API takes them without it; each instance's dispatch of their events
   * fails on its first job add (JOBS_ADD_TIMEOUT_MS), and the events stay in the outbox for a later dispatch.
   */
  async function placeWhileDown(count: number): Promise<Order[]> {
    const during: Order[] = [];
    for (let i = 0; i < count; i += 1) during.push(await place(i));
    await eventually(async () => (await eventsOf(during)).every((row) => row.last_error !== null), {
      ms: 20_000,
      everyMs: 100,
    });
    for (const row of await eventsOf(during)) {
      expect(row.dispatched_at).toBeNull();
      expect(row.last_error).toMatch(
        /^Redis did not take job '(webhook\.deliver|mail\.send)' within JOBS_ADD_TIMEOUT_MS \(1000 ms\)$/,
      );
    }
    const subjects = new Set(confirmations().map((mail) => mail.subject));
    expect(during.filter((order) => subjects.has(subjectOf(order)))).toEqual([]);
    return during;
  }

  /** Every order so far: its webhooks once per endpoint, its confirmation, its event and deliveries settled. */
  async function expectEveryOrderDelivered(during: Order[]): Promise<void> {
    await receiver.waitFor('/first', orders.length, 40_000);
    await receiver.waitFor('/second', orders.length, 40_000);
    await eventually(() => new Set(confirmations().map((mail) => mail.subject)).size === orders.length, {
      ms: 40_000,
    });
    await sleep(3000); // a few sweeps: time for a duplicate to show

    // Webhooks: exactly once per order and endpoint, signed, whichever instance placed the order.
    for (const [path, endpoint] of Object.entries(endpoints)) {
      const received = receiver.to(path);
      const bodies = received.map((delivery) => JSON.parse(delivery.body));
      expect(bodies.every((body) => body.type === 'order.created')).toBe(true);
      expect(bodies.map((body) => body.data.order.id).sort()).toEqual(orders.map((order) => order.id).sort());
      expect(new Set(received.map((delivery) => delivery.headers['webhook-id'])).size).toBe(orders.length);
      expect(received.every((delivery) => hasValidSignature(endpoint.secret, delivery))).toBe(true);
    }

    // E-mail: at least one confirmation per order. Jobs are keyed by the event's id, so a failed dispatch and
    // the sweep's queue one job: an order of the outage gets exactly one. A job running when Redis died sends
    // again when its lock lapsed during the outage (JOBS_LEASE_MS), as the first order's does when its job is
    // still running at the kill.
    const subjects = confirmations().map((mail) => mail.subject);
    expect([...new Set(subjects)].sort()).toEqual(orders.map(subjectOf).sort());
    for (const order of during) {
      expect(subjects.filter((subject) => subject === subjectOf(order))).toHaveLength(1);
    }

    // Database: every event dispatched (those of the outage by the sweep, after their failed first dispatch),
    // every delivery succeeded at its first attempt.
    await eventually(
      async () =>
        ((await dataSource.query('SELECT dispatched_at FROM outbox_events')) as OutboxRow[]).every(
          (row) => row.dispatched_at !== null,
        ),
      { ms: 5000, everyMs: 100 },
    );
    const events = await eventsOf(orders);
    expect(events).toHaveLength(orders.length);
    for (const row of await eventsOf(during)) expect(Number(row.attempts)).toBeGreaterThanOrEqual(2);
    const deliveries = (await dataSource.query(
      'SELECT webhook_id, event_id, status, attempts FROM webhook_deliveries',
    )) as Array<{ webhook_id: number; event_id: string; status: string; attempts: number | string }>;
    expect(deliveries).toHaveLength(2 * orders.length);
    expect(deliveries.map((row) => ({ status: row.status, attempts: Number(row.attempts) }))).toEqual(
      deliveries.map(() => ({ status: 'succeeded', attempts: 1 })),
    );
    for (const endpoint of Object.values(endpoints)) {
      expect(
        deliveries
          .filter((row) => Number(row.webhook_id) === endpoint.id)
          .map((row) => row.event_id)
          .sort(),
      ).toEqual(events.map((row) => row.id).sort());
    }
  }

  it('every order placed before or during the outage has its webhooks (once) and its e-mail after Redis returns', async () => {
    // Redis is killed right after the last 201, while the jobs of these orders may still be on their way.
    for (let i = 0; i < 4; i += 1) await place(i);
    await redis.kill();
    const during = await placeWhileDown(4);
    await redis.start();
    await expectEveryOrderDelivered(during);
  }, 120_000);

  it('a Redis that returns empty gets the sweeps back: the orders of the outage are delivered all the same', async () => {
    // A new server, or one without its append-only file: the job schedulers (the outbox and webhook sweeps) are
    // gone with the rest, and are stored again by each instance when its connection is back.
    await redis.kill();
    redis.clear();
    const during = await placeWhileDown(2);
    await redis.start();
    await expectEveryOrderDelivered(during);
  }, 120_000);
});
