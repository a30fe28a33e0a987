import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { Redis } from 'ioredis';
import { randomBytes, randomInt } from 'node:crypto';
import request from 'supertest';
import { ORDER_CREATED, type OrderEventPayload } from '../src/orders/order-events.js';
import { createAccount, type Account } from './support/accounts.js';
import { startTestApp, TestApp } from './support/test-app.js';
import { TestSocket, type Frame } from './support/ws-client.js';

// Selected by jest.config.cjs only when TEST_REDIS_URL is set (.ci/run sets it).
const REDIS_URL = process.env.TEST_REDIS_URL as string;
const THROTTLE_LIMIT = 10;

/**
 * Two instances of the service (each its own Nest application, HTTP server, Redis connections and
 * in-memory state) on different ports, sharing one database and one Redis, as behind a load balancer.
 */
describe('scale-out: two instances sharing one database and one Redis', () => {
  let a: TestApp;
  let b: TestApp;
  let redis: Redis;
  let alice: Account;
  let bob: Account;
  const prefix = `test:${randomBytes(6).toString('hex')}:`;
  const sockets: TestSocket[] = [];

  const connect = async (instance: TestApp, account: Account) => {
    const socket = await TestSocket.authenticated(instance, account.token);
    sockets.push(socket);
    return socket;
  };
  const say = (socket: TestSocket, content: string) => socket.send({ type: 'message', data: { content } });
  const nextFrames = async (socket: TestSocket, count: number) => {
    const frames: Frame[] = [];
    for (let i = 0; i < count; i += 1) frames.push(await socket.next());
    return frames;
  };

  beforeAll(async () => {
    const env = {
      REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      THROTTLE_LIMIT: String(THROTTLE_LIMIT),
      TRUST_PROXY: 'loopback',
    };
    a = await startTestApp(env);
    b = await startTestApp({ ...env, DATABASE_URL: a.databaseUrl });
    redis = new Redis(REDIS_URL);
    alice = await createAccount(a);
    bob = await createAccount(b);
  });

  afterAll(async () => {
    await Promise.all(sockets.map((socket) => socket.close()));
    await b?.close();
    await a?.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('serves an account registered on one instance from the other (one database, one JWT secret)', async () => {
    const res = await request(b.url)
      .get(`/api/v1/users/${alice.id}`)
      .set('Authorization', `Bearer ${alice.token}`)
      .expect(200);
    expect(res.body.data.username).toBe(alice.username);
  });

  it('delivers a message sent on B to a client on A, and every message exactly once to each connection', async () => {
    const aliceOnA = await connect(a, alice);
    const bobOnB = await connect(b, bob);

    say(bobOnB, 'one, from B');
    expect(await aliceOnA.next()).toEqual({
      type: 'message',
      data: {
        content: 'one, from B',
        timestamp: expect.any(String),
        user: { id: bob.id, username: bob.username },
      },
    });
    say(aliceOnA, 'two, from A');
    expect((await bobOnB.next()).data.content).toBe('one, from B');
    expect((await bobOnB.next()).data.content).toBe('two, from A');
    say(bobOnB, 'three, from B');

    // Frames relayed by Redis arrive in publication order: had an instance also received its own
    // publication back, that duplicate would show up before the next relayed message.
    const contents = (frames: Frame[]) => frames.map((frame) => frame.data.content);
    expect(contents(await nextFrames(aliceOnA, 2))).toEqual(['two, from A', 'three, from B']);
    expect(contents(await nextFrames(bobOnB, 1))).toEqual(['three, from B']);
    expect(aliceOnA.pending + bobOnB.pending).toBe(0);
  });

  it("pushes an order event emitted on B to the owner's connections on A and B, and to nobody else", async () => {
    const aliceOnA = await connect(a, alice);
    const aliceOnB = await connect(b, alice);
    const bobOnA = await connect(a, bob);
    const bobOnB = await connect(b, bob);
    const event: OrderEventPayload = {
      userId: alice.id,
      order: {
        id: 7001,
        order_number: 'ORD-20261122-SCALE01',
        total_amount: 12.5,
        status: 'pending',
        shipping_address: '2 Side St',
        payment_method: 'card',
        payment_status: 'unpaid',
        created_at: '2026-11-22T10:00:00.000Z',
        updated_at: '2026-11-22T10:00:00.000Z',
      },
    };

    b.app.get(EventEmitter2).emit(ORDER_CREATED, event);
    say(aliceOnB, 'after the order, from B');
    // Redis relays B's publications in order, so Bob on A sees the event first if it was sent to him.
    expect((await bobOnA.next()).data.content).toBe('after the order, from B');
    say(bobOnA, 'last, from A');

    const kinds = async (socket: TestSocket, count: number) =>
      (await nextFrames(socket, count)).map(
        (frame) => `${frame.type}:${frame.data.content ?? frame.data.id}`,
      );
    const ownerSees = ['order.created:7001', 'message:after the order, from B', 'message:last, from A'];
    expect(await kinds(aliceOnA, 3)).toEqual(ownerSees);
    expect(await kinds(aliceOnB, 3)).toEqual(ownerSees);
    expect(await kinds(bobOnB, 2)).toEqual(['message:after the order, from B', 'message:last, from A']);
    expect(await kinds(bobOnA, 1)).toEqual(['message:last, from A']);
  });

  it('refuses with 429 a client that exceeds the rate limit by alternating between A and B', async () => {
    const client = `203.0.113.${randomInt(1, 255)}`;
    for (let i = 1; i <= THROTTLE_LIMIT; i += 1) {
      const instance = i % 2 === 1 ? a : b;
      const res = await request(instance.url)
        .get('/api/v1/health')
        .set('X-Forwarded-For', client)
        .expect(200);
      // One counter for both instances: each answer counts the requests made to either.
      expect(res.headers['x-ratelimit-remaining']).toBe(String(THROTTLE_LIMIT - i));
    }
    const refused = await request(b.url).get('/api/v1/health').set('X-Forwarded-For', client).expect(429);
    expect(refused.body).toEqual({
      code: 429,
      message: 'Too Many Requests',
      data: { details: expect.stringMatching(/^Too many requests: at most 10 per 60 s/) },
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    await request(a.url).get('/api/v1/health').set('X-Forwarded-For', client).expect(429);

    const key = `${prefix}throttle:default:${client}`;
    expect(await redis.get(key)).toBe(String(THROTTLE_LIMIT + 1));
    expect(await redis.pttl(`${key}:blocked`)).toBeGreaterThan(0);
    // Another client is not affected.
    await request(a.url).get('/api/v1/health').set('X-Forwarded-For', '198.51.100.1').expect(200);
  });
});
