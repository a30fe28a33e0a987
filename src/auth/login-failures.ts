import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { normalizeIdentifier } from '../common/validation.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { RedisConnection } from '../redis/redis-connection.js';

/** Counts a failure in a window that starts with the first one. KEYS[1] counter; ARGV window ms. */
const RECORD_SCRIPT = `
local failures = redis.call('INCR', KEYS[1])
if failures == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return failures
`;

interface RedisWithRecord extends Redis {
  recordLoginFailure(key: string, windowMs: number): Promise<number>;
}

interface Window {
  failures: number;
  endsAt: number;
}

const SWEEP_INTERVAL_MS = 60_000;

/**
 * Failed password checks per account (the username as login resolves it, whether or not it exists): after
 * LOGIN_MAX_FAILURES within LOGIN_FAILURE_WINDOW the account is locked until that window ends, whichever
 * address the attempts come from. With REDIS_URL the counts are shared by every instance; while Redis is
 * unreachable each instance counts in its own memory.
 */
@Injectable()
export class LoginFailures {
  private readonly logger = new Logger('LoginFailures');
  private readonly redis: RedisWithRecord | null;
  private readonly keyPrefix: string;
  private readonly windows = new Map<string, Window>();
  private lastSweep = Date.now();
  private usingFallback = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    redis: RedisConnection,
  ) {
    this.keyPrefix = `${redis.keyPrefix}login-failures:`;
    redis.client?.defineCommand('recordLoginFailure', { numberOfKeys: 1, lua: RECORD_SCRIPT });
    this.redis = redis.client as RedisWithRecord | null;
  }

  private get windowMs(): number {
    return this.config.sessions.loginFailureWindowSeconds * 1000;
  }

  /** Seconds until the account may try again, or 0 when it is not locked. */
  async lockedFor(username: string): Promise<number> {
    const key = keyOf(username);
    const state = await this.withRedis(
      async (redis) => {
        const [[, failures], [, ttl]] = (await redis
          .multi()
          .get(this.keyPrefix + key)
          .pttl(this.keyPrefix + key)
          .exec()) as [[null, string | null], [null, number]];
        return { failures: Number(failures ?? 0), leftMs: ttl };
      },
      () => {
        const window = this.liveWindow(key);
        return { failures: window?.failures ?? 0, leftMs: window ? window.endsAt - Date.now() : 0 };
      },
    );
    return state.failures >= this.config.sessions.loginMaxFailures
      ? Math.max(1, Math.ceil(state.leftMs / 1000))
      : 0;
  }

  async recordFailure(username: string): Promise<void> {
    const key = keyOf(username);
    await this.withRedis<unknown>(
      (redis) => redis.recordLoginFailure(this.keyPrefix + key, this.windowMs),
      () => {
        const now = Date.now();
        if (now - this.lastSweep >= SWEEP_INTERVAL_MS) this.sweep(now);
        const window = this.liveWindow(key) ?? { failures: 0, endsAt: now + this.windowMs };
        window.failures += 1;
        this.windows.set(key, window);
      },
    );
  }

  /** A successful login starts the count again. */
  async reset(username: string): Promise<void> {
    const key = keyOf(username);
    this.windows.delete(key);
    await this.withRedis<unknown>(
      (redis) => redis.del(this.keyPrefix + key),
      () => undefined,
    );
  }

  private liveWindow(key: string): Window | undefined {
    const window = this.windows.get(key);
    if (window !== undefined && window.endsAt <= Date.now()) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
  }

  private async withRedis<T>(shared: (redis: RedisWithRecord) => Promise<T>, local: () => T): Promise<T> {
    if (this.redis === null) return local();
    try {
      const result = await shared(this.redis);
      if (this.usingFallback) this.logger.log({ msg: 'Redis is back: login failures are shared again' });
      this.usingFallback = false;
      return result;
    } catch (error) {
      if (!this.usingFallback) {
        this.logger.warn({
          msg: 'Redis unavailable: login failures are counted per instance until it returns',
          error: (error as Error).message,
        });
      }
      this.usingFallback = true;
      return local();
    }
  }
}

/**
 * The name as login resolves it: NFKC-normalised like the login body, and ignoring case as usernames are unique,
 * so `alice`, `Alice`, `ａｌｉｃｅ` and `𝐚𝐥𝐢𝐜𝐞` share one count.
 */
const keyOf = (username: string) => normalizeIdentifier(username).toLowerCase();
