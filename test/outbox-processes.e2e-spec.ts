import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/config/app-config.js';
import { buildDataSourceOptions } from '../src/database/data-source-options.js';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { buildService, startAppProcess, type AppProcess } from './support/app-process.js';
import { scrape } from './support/metrics.js';
import { placeOrder } from './support/orders.js';
import { createProduct } from './support/products.js';
import { eventually } from './support/eventually.js';
import { createTestDatabase } from './support/test-app.js';
import { TestSocket } from './support/ws-client.js';

// With TEST_REDIS_URL the instances share a Redis too, and the WebSocket frames are checked across them.
const REDIS_URL = process.env.TEST_REDIS_URL;
// One SQLite file is never shared by several instances (docs/operations.md): two at once run on MySQL/MariaDB.
const isMysql = /^(mysql|mariadb):/.test(process.env.TEST_DATABASE_URL ?? '');

/** Processes answer within seconds; the database is polled every 100 ms. */
const WAIT = { ms: 30_000, everyMs: 100 };

interface OutboxRow {
  id: string;
  type: string;
  attempts: number | string;
  dispatched_at: Date | string | null;
}

/** The service as separate OS processes on one database: killed, restarted, and two at once. */
describe('the outbox across processes', () => {
  let databaseUrl: string;
  let dropDatabase: () => Promise<void>;
  let db: DataSource;
  let redis: Redis | undefined;
  const prefix = `test:${randomBytes(6).toString('hex')}:`;
  const processes: AppProcess[] = [];
  const env = (extra: Record<string, string> = {}) => ({
    ...ADMIN_ENV,
    DATABASE_URL: databaseUrl,
    JWT_SECRET: 'outbox-test-secret-shared-by-every-instance',
    THROTTLE_LIMIT: '100000',
    THROTTLE_AUTH_LIMIT: '100000',
    ...(REDIS_URL === undefined ? {} : { REDIS_URL, REDIS_KEY_PREFIX: prefix }),
    ...extra,
  });
  const start = async (extra?: Record<string, string>) => {
    const instance = await startAppProcess(env(extra));
    processes.push(instance);
    return instance;
  };
  const rows = (type: string): Promise<OutboxRow[]> =>
    db.query(
      'SELECT id, type, attempts, dispatched_at FROM outbox_events WHERE type = ? ORDER BY created_at',
      [type],
    );
  const dispatchedOn = async (instance: AppProcess, type: string) =>
    (await scrape(instance.url)).value('commerce_events_dispatched_total', { type }) ?? 0;

  beforeAll(async () => {
    buildService();
    const database = await createTestDatabase();
    databaseUrl = database.url;
    dropDatabase = database.drop;
    if (REDIS_URL !== undefined) redis = new Redis(REDIS_URL);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(processes.map((instance) => instance.stop()));
    if (db?.isInitialized) await db.destroy();
    await dropDatabase?.();
    if (redis !== undefined) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    }
  });

  it('an order committed by a process killed (SIGKILL) right after its 201 is dispatched by the sweep after a restart', async () => {
    // Claims run out after 2 s and the restarted instance sweeps every second, so the test waits seconds.
    const crashing = await start({ OUTBOX_REDISPATCH_AFTER: '2', OUTBOX_SWEEP_INTERVAL: '1' });
    db = new DataSource(await buildDataSourceOptions(loadConfig({ DATABASE_URL: databaseUrl })));
    await db.initialize();
    const admin = await loginAdmin(crashing);
    const buyer = await createAccount(crashing);
    const product = await createProduct(crashing, admin.token, { stock: 5 });

    const placed = await placeOrder(crashing, buyer.token, [[product.id, 1]]).expect(201);
    process.kill(crashing.pid, 'SIGKILL');
    expect(await crashing.exited).toEqual({ code: null, signal: 'SIGKILL' });

    // Committed with the order, and not recorded as dispatched when the process died.
    const [before] = await rows('order.created');
    expect(before).toMatchObject({ attempts: expect.anything(), dispatched_at: null });
    expect(Number(before.attempts)).toBe(1);
    const data = JSON.parse(
      (await db.query('SELECT data FROM outbox_events WHERE id = ?', [before.id]))[0].data,
    );
    expect(data.order).toEqual(placed.body.data);

    const restarted = await start({ OUTBOX_REDISPATCH_AFTER: '2', OUTBOX_SWEEP_INTERVAL: '1' });
    await eventually(async () => (await rows('order.created'))[0].dispatched_at !== null, WAIT);
    const [after] = await rows('order.created');
    expect(Number(after.attempts)).toBe(2);
    // The restarted instance ran the handlers of that event (its sweep, not a publication of its own).
    expect(await dispatchedOn(restarted, 'order.created')).toBe(1);
    await restarted.stop();
  });

  (isMysql ? it : it.skip)(
    'two instances on one database dispatch every event exactly once in normal operation',
    async () => {
      const a = await start();
      const b = await start();
      const admin = await loginAdmin(a);
      const buyers: Account[] = [await createAccount(a), await createAccount(b)];
      const product = await createProduct(b, admin.token, { stock: 1000 });
      const watcher = REDIS_URL === undefined ? null : await TestSocket.authenticated(a, admin.token);
      if (watcher !== null) {
        watcher.send({ type: 'subscribe', data: { channel: 'orders' } });
        expect((await watcher.next()).type).toBe('subscribed');
      }
      const createdBefore = (await rows('order.created')).length;

      // 20 orders through both instances, 10 at a time; half of them cancelled through the other instance.
      const instances = [a, b];
      const placed: number[] = [];
      for (let round = 0; round < 2; round += 1) {
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            placeOrder(instances[i % 2], buyers[i % 2].token, [[product.id, 1]]).expect(201),
          ),
        );
        placed.push(...results.map((res) => res.body.data.id as number));
      }
      await Promise.all(
        placed.slice(0, 10).map((id, i) =>
          request(instances[(i + 1) % 2].url)
            .post(`/api/v1/orders/${id}/cancel`)
            .auth(buyers[i % 2].token, { type: 'bearer' })
            .expect(200),
        ),
      );

      const created = async () => (await rows('order.created')).slice(createdBefore);
      await eventually(async () => {
        const all = [
          ...(await created()),
          ...(await rows('order.updated')),
          ...(await rows('order.cancelled')),
        ];
        return all.length === 40 && all.every((row) => row.dispatched_at !== null);
      }, WAIT);
      const events = [
        ...(await created()),
        ...(await rows('order.updated')),
        ...(await rows('order.cancelled')),
      ];
      // Each dispatched once: by the instance that published it, never again by the other's sweep.
      expect(events.map((row) => Number(row.attempts))).toEqual(events.map(() => 1));
      for (const [type, count] of [
        ['order.created', 20],
        ['order.updated', 10],
        ['order.cancelled', 10],
      ] as const) {
        expect((await dispatchedOn(a, type)) + (await dispatchedOn(b, type))).toBe(count);
      }
      if (watcher !== null) {
        // The admin connected to A sees each order.created once, whichever instance placed it.
        const frames = [];
        for (let i = 0; i < 30; i += 1) frames.push(await watcher.next());
        const createdIds = frames.filter((f) => f.type === 'order.created').map((f) => f.data.id as number);
        expect(createdIds.sort((x, y) => x - y)).toEqual([...placed].sort((x, y) => x - y));
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(watcher.pending).toBe(0);
        await watcher.close();
      }
    },
  );
});
