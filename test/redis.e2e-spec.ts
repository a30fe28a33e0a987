import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { ConsoleLogger } from '@nestjs/common';
import { ThrottlerStorageService } from '@nestjs/throttler';
import { Redis } from 'ioredis';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { RedisThrottlerStorage } from '../src/common/redis-throttler-storage.js';
import { RedisConnection } from '../src/redis/redis-connection.js';
import { ADMIN_ENV, createAccount, loginAdmin } from './support/accounts.js';
import { scrape } from './support/metrics.js';
import { TcpProxy } from './support/tcp-proxy.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { TestSocket } from './support/ws-client.js';

// Selected by jest.config.cjs only when TEST_REDIS_URL is set (.ci/run sets it).
const REDIS_URL = process.env.TEST_REDIS_URL as string;
const TTL = 60_000;
const BLOCK = 30_000;

type Storage = { increment: RedisThrottlerStorage['increment'] };

/** The outcome as the throttler guard reads it (the in-memory storage reports junk block times when not blocked). */
async function hit(storage: Storage, key: string, limit: number, blockDuration = BLOCK) {
  const record = await storage.increment(key, TTL, limit, blockDuration, 'default');
  return { ...record, timeToBlockExpire: record.isBlocked ? record.timeToBlockExpire : 0 };
}

describe('RedisThrottlerStorage on a real Redis', () => {
  let redis: Redis;
  let storage: RedisThrottlerStorage;
  const prefix = `test:${randomBytes(6).toString('hex')}:`;

  beforeAll(() => {
    redis = new Redis(REDIS_URL);
    storage = new RedisThrottlerStorage(redis, prefix);
  });

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('answers like the in-memory storage: counts up to the limit, blocks the next hit, does not count blocked hits', async () => {
    const memory = new ThrottlerStorageService();
    const fromRedis = [];
    const fromMemory = [];
    for (let i = 0; i < 4; i += 1) {
      fromRedis.push(await hit(storage, 'same', 2));
      fromMemory.push(await hit(memory, 'same', 2));
    }
    memory.onApplicationShutdown();
    expect(fromRedis).toEqual(fromMemory);
    expect(fromRedis.map((record) => [record.totalHits, record.isBlocked])).toEqual([
      [1, false],
      [2, false],
      [3, true],
      [3, true],
    ]);
    expect(fromRedis[2]).toMatchObject({ timeToExpire: 60, timeToBlockExpire: 30 });
    expect(await redis.get(`${prefix}same`)).toBe('3');
    const blockLeft = await redis.pttl(`${prefix}same:blocked`);
    expect(blockLeft).toBeGreaterThan(0);
    expect(blockLeft).toBeLessThanOrEqual(BLOCK);
  });

  it('starts counting again once a block is over', async () => {
    for (let i = 0; i < 2; i += 1) await hit(storage, 'after-block', 1);
    await redis.del(`${prefix}after-block:blocked`); // what its expiry does
    expect(await hit(storage, 'after-block', 1)).toMatchObject({ totalHits: 1, isBlocked: false });
    expect(await redis.get(`${prefix}after-block`)).toBe('1');
  });

  it('without a block duration, refuses hits past the limit until the window ends', async () => {
    expect(await hit(storage, 'no-block', 1, 0)).toMatchObject({ totalHits: 1, isBlocked: false });
    const refused = await hit(storage, 'no-block', 1, 0);
    expect(refused).toMatchObject({ totalHits: 2, isBlocked: true, timeToBlockExpire: 60 });
    expect(await redis.exists(`${prefix}no-block:blocked`)).toBe(0);
  });

  it('counts in this process while Redis is unreachable, and logs that once', async () => {
    const warn = jest.spyOn(ConsoleLogger.prototype, 'warn').mockImplementation(() => undefined);
    const unreachable = new Redis({
      port: 1,
      lazyConnect: true,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    try {
      const offline = new RedisThrottlerStorage(unreachable, prefix);
      expect(await hit(offline, 'offline', 1)).toMatchObject({ totalHits: 1, isBlocked: false });
      expect(await hit(offline, 'offline', 1)).toMatchObject({ totalHits: 2, isBlocked: true });
      const messages = warn.mock.calls.map((call) => JSON.stringify(call[0]));
      expect(
        messages.filter((message) => message.includes('rate limits are counted per instance')),
      ).toHaveLength(1);
    } finally {
      warn.mockRestore();
      unreachable.disconnect();
    }
    expect(await redis.exists(`${prefix}offline`)).toBe(0);
  });
});

describe('Redis outage: the service keeps serving and recovers', () => {
  const proxy = new TcpProxy(new URL(REDIS_URL).hostname, Number(new URL(REDIS_URL).port || 6379));
  const prefix = `test:${randomBytes(6).toString('hex')}:`;
  const logged: string[] = [];
  const waiters: { text: string; resolve: () => void }[] = [];
  let redis: Redis;

  /** Resolves when a log entry containing `text` is written (or was already). */
  const logEntry = (text: string) =>
    new Promise<void>((resolve) => {
      if (logged.some((entry) => entry.includes(text))) resolve();
      else waiters.push({ text, resolve });
    });

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    await proxy.start();
    for (const level of ['log', 'warn', 'error'] as const) {
      jest.spyOn(ConsoleLogger.prototype, level).mockImplementation((message: unknown) => {
        const entry = JSON.stringify(message);
        logged.push(entry);
        for (const waiter of waiters.filter((w) => entry.includes(w.text))) waiter.resolve();
      });
    }
  });

  afterEach(() => {
    logged.length = 0;
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await proxy.stop();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('serves HTTP and WebSocket while Redis is down, logs the loss and the return, reports it in /metrics, and shares counters again', async () => {
    const t = await startTestApp({ REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_KEY_PREFIX: prefix });
    try {
      const account = await createAccount(t); // two requests, counted in Redis
      const before = await scrape(t.url); // scrapes are not rate limited: not counted
      expect(before.value('commerce_redis_connected', { connection: 'commands' })).toBe(1);
      const counter = `${prefix}throttle:default:127.0.0.1`;
      expect(await redis.get(counter)).toBe('2');
      // Signed in, the account's own counter.
      const accountCounter = `${prefix}throttle:default:user:${account.id}`;

      const commands = t.app.get(RedisConnection).client!;
      const lost = once(commands, 'close');
      await proxy.stop();
      await lost;
      await Promise.all([logEntry('Redis connection lost'), logEntry('Redis unavailable')]);

      // A rate-limited route (the health endpoints are never limited).
      const listProducts = () =>
        request(t.url).get('/api/v1/products').auth(account.token, { type: 'bearer' });
      await listProducts().expect(200);
      const down = await scrape(t.url);
      expect(down.value('commerce_redis_connected', { connection: 'commands' })).toBe(0);
      expect(down.value('commerce_redis_connected', { connection: 'subscriber' })).toBe(0);
      const socket = await TestSocket.authenticated(t, account.token);
      socket.send({ type: 'message', data: { content: 'while Redis is down' } });
      expect((await socket.next()).data.content).toBe('while Redis is down');
      expect(await redis.get(counter)).toBe('2');
      expect(await redis.get(accountCounter)).toBeNull();
      await logEntry('rate limits are counted per instance until it returns');
      await logEntry('realtime frames reach this instance only');

      await proxy.start();
      await Promise.all([logEntry('Redis reconnected'), logEntry('Realtime fan-out subscribed')]);
      // That log may be the subscriber's: the commands connection is back when its gauge says so.
      const connected = async (connection: string) =>
        (await scrape(t.url)).value('commerce_redis_connected', { connection });
      for (let i = 0; i < 100 && (await connected('commands')) !== 1; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await connected('commands')).toBe(1);
      expect(await connected('subscriber')).toBe(1);
      await listProducts().expect(200);
      // The request made while Redis was down was counted in this process only.
      expect(await redis.get(accountCounter)).toBe('1');
      expect(await redis.get(counter)).toBe('2');
      await logEntry('Redis is back: rate limits are shared again');

      // The subscription is back: a frame published by another instance reaches this one's client.
      const payload = JSON.stringify({ type: 'message', data: { content: 'from another instance' } });
      await redis.publish(
        `${prefix}realtime`,
        JSON.stringify({ origin: 'elsewhere', userId: null, payload }),
      );
      expect((await socket.next()).data.content).toBe('from another instance');
      await socket.close();
    } finally {
      await t.close();
    }
  });
});

describe('rate limits per account, shared through Redis', () => {
  const prefix = `test:${randomBytes(6).toString('hex')}:`;
  let redis: Redis;
  let t: TestApp;

  beforeAll(async () => {
    redis = new Redis(REDIS_URL);
    t = await startTestApp({
      ...ADMIN_ENV,
      REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      TRUST_PROXY: 'loopback',
      THROTTLE_LIMIT: '3',
      THROTTLE_STAFF_LIMIT: '6',
      THROTTLE_AUTH_LIMIT: '100',
    });
  });

  afterAll(async () => {
    await t?.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('counts a customer in throttle:default:user:<id> and staff in throttle:staff:user:<id>, whatever the address', async () => {
    const admin = await loginAdmin(t);
    const customer = await createAccount(t);
    const me = (token: string, address: string) =>
      request(t.url).get('/api/v1/me').set('X-Forwarded-For', address).auth(token, { type: 'bearer' });
    // From three addresses, one account: one counter.
    for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3'])
      await me(customer.token, address).expect(200);
    const refused = await me(customer.token, '203.0.113.4').expect(429);
    expect(refused.body).toEqual({
      code: 429,
      message: 'Too Many Requests',
      data: { details: expect.stringMatching(/^Too many requests: at most 3 per 60 s, retry in \d+ s$/) },
    });
    expect(await redis.get(`${prefix}throttle:default:user:${customer.id}`)).toBe('4');
    expect(await redis.pttl(`${prefix}throttle:default:user:${customer.id}:blocked`)).toBeGreaterThan(0);
    // Staff: six requests from the customer's last address, none refused, counted in the staff bucket.
    for (let i = 0; i < 6; i++) await me(admin.token, '203.0.113.4').expect(200);
    await me(admin.token, '203.0.113.4').expect(429);
    expect(await redis.get(`${prefix}throttle:staff:user:${admin.id}`)).toBe('7');
    // None of it counted for the addresses.
    expect(await redis.keys(`${prefix}throttle:default:203.0.113.*`)).toEqual([]);
    const anonymous = await request(t.url)
      .get('/api/v1/products')
      .set('X-Forwarded-For', '203.0.113.4')
      .expect(401);
    expect(anonymous.headers['x-ratelimit-remaining']).toBe('2');
  });
});
