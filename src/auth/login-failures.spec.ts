import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import type { RedisConnection } from '../redis/redis-connection.js';
import { LoginFailures } from './login-failures.js';

const config = { sessions: { loginMaxFailures: 3, loginFailureWindowSeconds: 60 } } as AppConfig;

/** A Redis client that is down: every command fails, as ioredis's do without an offline queue. */
const unreachableRedis = {
  keyPrefix: 'test:',
  client: {
    defineCommand: () => undefined,
    recordLoginFailure: () => Promise.reject(new Error('Connection is closed.')),
    multi: () => ({
      get: function () {
        return this;
      },
      pttl: function () {
        return this;
      },
      exec: () => Promise.reject(new Error('Connection is closed.')),
    }),
    del: () => Promise.reject(new Error('Connection is closed.')),
  },
} as unknown as RedisConnection;

describe('LoginFailures', () => {
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('locks a username (ignoring case) after the maximum of failures until the window ends', async () => {
    jest.useFakeTimers({ now: Date.UTC(2026, 10, 23, 12, 0, 0) });
    const failures = new LoginFailures(config, { keyPrefix: 'test:', client: null } as RedisConnection);
    for (let i = 0; i < 2; i += 1) await failures.recordFailure('Alice');
    expect(await failures.lockedFor('alice')).toBe(0);
    jest.advanceTimersByTime(20_000);
    await failures.recordFailure('ALICE');
    // The window started with the first failure: 40 s of 60 s are left.
    expect(await failures.lockedFor('alice')).toBe(40);
    expect(await failures.lockedFor('bob')).toBe(0);
    jest.advanceTimersByTime(40_000);
    expect(await failures.lockedFor('alice')).toBe(0);
  });

  it('counts every form NFKC folds to one username as that username', async () => {
    const failures = new LoginFailures(config, { keyPrefix: 'test:', client: null } as RedisConnection);
    await failures.recordFailure('ｆｉｋ２'); // full-width
    await failures.recordFailure('\uFB01\u212A\u00B2'); // ligature fi, Kelvin sign, superscript two
    await failures.recordFailure('\u{1D41F}\u{1D422}\u{1D424}2'); // mathematical bold
    for (const name of ['fik2', 'FIK2', 'ＦＩＫ２'])
      expect(await failures.lockedFor(name)).toBeGreaterThan(0);
    expect(await failures.lockedFor('fík2')).toBe(0);
  });

  it('starts again after a reset (a successful login)', async () => {
    const failures = new LoginFailures(config, { keyPrefix: 'test:', client: null } as RedisConnection);
    for (let i = 0; i < 3; i += 1) await failures.recordFailure('carol');
    expect(await failures.lockedFor('carol')).toBeGreaterThan(0);
    await failures.reset('Carol');
    expect(await failures.lockedFor('carol')).toBe(0);
  });

  it('counts in memory while Redis is unreachable, and says so once', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const failures = new LoginFailures(config, unreachableRedis);
    for (let i = 0; i < 3; i += 1) await failures.recordFailure('dave');
    expect(await failures.lockedFor('dave')).toBeGreaterThan(0);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toMatchObject({
      msg: 'Redis unavailable: login failures are counted per instance until it returns',
    });
  });
});
