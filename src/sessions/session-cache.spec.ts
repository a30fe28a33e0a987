import { describe, expect, it, jest } from '@jest/globals';
import type { AuthUser } from '../auth/auth-user.js';
import type { AppConfig } from '../config/app-config.js';
import type { RedisConnection } from '../redis/redis-connection.js';
import { SessionCache } from './session-cache.js';

const cacheOf = (ttlMs: number) =>
  new SessionCache(
    { sessions: { cacheTtlMs: ttlMs } } as AppConfig,
    {
      client: null,
      keyPrefix: 'test:',
    } as unknown as RedisConnection,
  );

/** Three sessions of user 1 and one of user 2. */
const SESSIONS = [
  [1, 'a'],
  [1, 'b'],
  [1, 'c'],
  [2, 'd'],
] as const;

const caller = (id: number, sessionId: string): AuthUser => ({
  id,
  username: `u${id}`,
  role: 'user',
  sessionId,
});

describe('SessionCache (one instance, no Redis)', () => {
  it('reads a session once within the TTL, and again after it', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    try {
      const cache = cacheOf(5_000);
      const load = jest.fn(async () => caller(1, 's1'));
      expect(await cache.find(1, 's1', load)).toEqual(caller(1, 's1'));
      expect(await cache.find(1, 's1', load)).toEqual(caller(1, 's1'));
      expect(load).toHaveBeenCalledTimes(1);
      jest.setSystemTime(1_005_000);
      await cache.find(1, 's1', load);
      expect(load).toHaveBeenCalledTimes(2);
    } finally {
      jest.useRealTimers();
    }
  });

  it('never remembers a session found ended, nor answers for another user id with the same session', async () => {
    const cache = cacheOf(5_000);
    const ended = jest.fn(async () => null);
    expect(await cache.find(1, 's1', ended)).toBeNull();
    expect(await cache.find(1, 's1', ended)).toBeNull();
    expect(ended).toHaveBeenCalledTimes(2);
    await cache.find(1, 's2', async () => caller(1, 's2'));
    const other = jest.fn(async () => null);
    expect(await cache.find(2, 's2', other)).toBeNull();
    expect(other).toHaveBeenCalledTimes(1);
  });

  it('forgets a revoked session at once, and all of a user’s sessions but the one kept', async () => {
    const cache = cacheOf(5_000);
    for (const [user, session] of SESSIONS) {
      await cache.find(user, session, async () => caller(user, session));
    }
    await cache.revoked({ userId: 1, sessionId: 'a', exceptSessionId: null });
    await cache.revoked({ userId: 1, sessionId: null, exceptSessionId: 'c' });
    const reads: string[] = [];
    const load = (user: number, session: string) => async () => {
      reads.push(session);
      return caller(user, session);
    };
    for (const [user, session] of SESSIONS) {
      await cache.find(user, session, load(user, session));
    }
    expect(reads).toEqual(['a', 'b']);
  });

  it('does not remember a lookup that a revocation overtook (read as live before the revocation committed)', async () => {
    const cache = cacheOf(5_000);
    let finishRead!: () => void;
    const read = new Promise<void>((resolve) => (finishRead = resolve));
    const lookup = cache.find(1, 's1', async () => {
      await read;
      return caller(1, 's1');
    });
    await cache.revoked({ userId: 1, sessionId: 's1', exceptSessionId: null });
    finishRead();
    expect(await lookup).toEqual(caller(1, 's1'));
    const again = jest.fn(async () => null);
    expect(await cache.find(1, 's1', again)).toBeNull();
    expect(again).toHaveBeenCalledTimes(1);
  });

  it('with a TTL of 0 reads every time', async () => {
    const cache = cacheOf(0);
    const load = jest.fn(async () => caller(1, 's1'));
    await cache.find(1, 's1', load);
    await cache.find(1, 's1', load);
    expect(load).toHaveBeenCalledTimes(2);
  });
});
