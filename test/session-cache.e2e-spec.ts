import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/config/app-config.js';
import { buildDataSourceOptions } from '../src/database/data-source-options.js';
import { ADMIN_ENV, createAccount, loginAdmin, loginSession, sessionIdOf } from './support/accounts.js';
import { buildService, freePort, startAppProcess, type AppProcess } from './support/app-process.js';
import { eventually } from './support/eventually.js';
import { RedisProcess } from './support/redis-server.js';
import { createTestDatabase } from './support/test-app.js';

const TTL_MS = 4_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The session cache (SESSION_CACHE_TTL_MS) with two instances of the service as OS processes on one database
 * and a redis-server of this test's own, which it freezes: a session an instance has checked is trusted for the
 * TTL, yet every revocation through the service is refused at once on both instances, and an instance that
 * cannot hear revocations stops trusting its cache. Runs on SQLite, and on MariaDB/MySQL with a mysql://
 * TEST_DATABASE_URL.
 */
describe('session cache across two instances', () => {
  let redis: RedisProcess;
  let database: { url: string; drop(): Promise<void> };
  let dataSource: DataSource;
  let a: AppProcess;
  let b: AppProcess;
  let username: string;

  const me = (instance: AppProcess, token: string) =>
    request(instance.url).get('/api/v1/me').auth(token, { type: 'bearer' });
  const revokedAt = async (token: string) =>
    (await dataSource.query('SELECT revoked_at FROM sessions WHERE id = ?', [sessionIdOf(token)]))[0]
      .revoked_at;
  /** A revocation the service does not know of: only the TTL ends a cached session after it. */
  const revokeBehindItsBack = (token: string) =>
    dataSource.query('UPDATE sessions SET revoked_at = expires_at WHERE id = ?', [sessionIdOf(token)]);
  /** A new session of the user, checked on both instances so that both hold it in their cache. */
  const cachedOnBoth = async () => {
    const { token } = await loginSession(a, username);
    await me(a, token).expect(200);
    await me(b, token).expect(200);
    return token;
  };

  beforeAll(async () => {
    buildService();
    redis = new RedisProcess(await freePort());
    await redis.start();
    database = await createTestDatabase();
    const env = {
      ...ADMIN_ENV,
      DATABASE_URL: database.url,
      JWT_SECRET: 'session-cache-secret-shared-by-both-instances',
      REDIS_URL: redis.url,
      SESSION_CACHE_TTL_MS: String(TTL_MS),
      THROTTLE_LIMIT: '100000',
      THROTTLE_AUTH_LIMIT: '1000',
    };
    // One after the other: the first applies the migrations.
    a = await startAppProcess(env);
    b = await startAppProcess(env);
    dataSource = new DataSource(await buildDataSourceOptions(loadConfig({ DATABASE_URL: database.url })));
    await dataSource.initialize();
    username = (await createAccount(a)).username;
  }, 180_000);

  afterAll(async () => {
    redis.signal('SIGCONT');
    await Promise.all([a?.stop(), b?.stop()]);
    await dataSource?.destroy();
    await database?.drop();
    await redis?.remove();
  });

  it('trusts a checked session for SESSION_CACHE_TTL_MS: a revocation written behind the service’s back shows only after it', async () => {
    const token = await cachedOnBoth();
    await revokeBehindItsBack(token);
    const revokedAtMs = Date.now();
    // Both instances answer from their cache; a login's new session, never checked, reads the database.
    await me(a, token).expect(200);
    await me(b, token).expect(200);
    await eventually(async () => (await me(a, token)).status === 401, { ms: TTL_MS + 3_000 });
    await eventually(async () => (await me(b, token)).status === 401, { ms: TTL_MS + 3_000 });
    expect(Date.now() - revokedAtMs).toBeGreaterThanOrEqual(TTL_MS - 1_000);
  });

  it('a logout on one instance is refused at once on both', async () => {
    const token = await cachedOnBoth();
    await request(a.url).post('/api/v1/logout').auth(token, { type: 'bearer' }).expect(200);
    const onB = await me(b, token);
    expect(onB.status).toBe(401);
    expect(onB.body).toMatchObject({ code: 401, data: { details: 'Token is no longer valid' } });
    await me(a, token).expect(401);
    expect(await revokedAt(token)).not.toBeNull();
  });

  it('signing out everywhere else on one instance ends the other sessions on both at once, and keeps the current', async () => {
    const kept = await cachedOnBoth();
    const ended = await cachedOnBoth();
    const res = await request(b.url).delete('/api/v1/sessions').auth(kept, { type: 'bearer' }).expect(200);
    expect(res.body.data.revoked).toBeGreaterThanOrEqual(1);
    await me(a, ended).expect(401);
    await me(b, ended).expect(401);
    await me(a, kept).expect(200);
    await me(b, kept).expect(200);
    expect(await revokedAt(kept)).toBeNull();
  });

  it('an admin’s change of role on one instance ends the user’s cached sessions on both at once', async () => {
    const other = await createAccount(a);
    await me(a, other.token).expect(200);
    await me(b, other.token).expect(200);
    const admin = await loginAdmin(b);
    await request(b.url)
      .put(`/api/v1/users/${other.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ role: 'admin' })
      .expect(200);
    await me(a, other.token).expect(401);
    await me(b, other.token).expect(401);
    const [row] = await dataSource.query('SELECT role FROM users WHERE id = ?', [other.id]);
    expect(row.role).toBe('admin');
  });

  it('while Redis is frozen an instance stops trusting its cache, requests still succeed, and a logout still ends the session on both', async () => {
    const behindItsBack = await cachedOnBoth();
    const loggedOut = await cachedOnBoth();
    redis.signal('SIGSTOP');
    try {
      // Each instance pings Redis every second and gives it 500 ms: within 2 s neither trusts its cache.
      await sleep(2_500);
      await revokeBehindItsBack(behindItsBack);
      await me(a, behindItsBack).expect(401);
      await me(b, behindItsBack).expect(401);
      // The logout cannot reach Redis (it gives up after 500 ms) and still succeeds.
      await request(a.url).post('/api/v1/logout').auth(loggedOut, { type: 'bearer' }).expect(200);
      await me(b, loggedOut).expect(401);
      const live = (await loginSession(b, username)).token;
      await me(a, live).expect(200);
      await me(b, live).expect(200);
    } finally {
      redis.signal('SIGCONT');
    }
    // Once Redis answers again the cache is trusted again: a session checked after that outlives a revocation
    // behind the service's back until the TTL.
    await sleep(2_000);
    const token = await cachedOnBoth();
    await revokeBehindItsBack(token);
    await me(a, token).expect(200);
    await me(b, token).expect(200);
  });
});
