import { Logger } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { SlidingWindowThrottlerStorage } from './throttler-storage.js';
import type { Redis } from 'ioredis';

/**
 * One atomic step of a fixed-window counter with blocking, mirroring @nestjs/throttler's in-memory
 * storage: a blocked client is not counted; the hit past the limit starts a block of `blockDuration`;
 * after a block the count starts again. Replies [totalHits, windowLeftMs, isBlocked, blockLeftMs].
 *
 * KEYS[1] hit counter, KEYS[2] block marker; ARGV ttl ms, limit, block duration ms.
 */
const INCREMENT_SCRIPT = `
local ttl = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local blockMs = tonumber(ARGV[3])
local blockLeft = redis.call('PTTL', KEYS[2])
if blockLeft > 0 then
  local hits = tonumber(redis.call('GET', KEYS[1]) or limit + 1)
  return {hits, math.max(redis.call('PTTL', KEYS[1]), 0), 1, blockLeft}
end
local hits = redis.call('INCR', KEYS[1])
if blockMs > 0 and hits > limit + 1 then
  hits = 1
  redis.call('SET', KEYS[1], 1, 'PX', ttl)
end
local windowLeft = redis.call('PTTL', KEYS[1])
if windowLeft < 0 then
  redis.call('PEXPIRE', KEYS[1], ttl)
  windowLeft = ttl
end
if hits <= limit then
  return {hits, windowLeft, 0, 0}
end
if blockMs > 0 then
  redis.call('SET', KEYS[2], 1, 'PX', blockMs)
  return {hits, windowLeft, 1, blockMs}
end
return {hits, windowLeft, 1, windowLeft}
`;

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;
type IncrementReply = [number, number, number, number];

interface RedisWithIncrement extends Redis {
  throttleIncrement(
    hitsKey: string,
    blockKey: string,
    ttlMs: number,
    limit: number,
    blockMs: number,
  ): Promise<IncrementReply>;
}

const toSeconds = (ms: number) => Math.ceil(ms / 1000);

/**
 * Rate-limit counters shared by every instance through Redis. While Redis is unreachable each instance
 * counts in its own memory (the limit then holds per instance) and goes back to Redis once it answers.
 */
export class RedisThrottlerStorage implements ThrottlerStorage {
  private readonly logger = new Logger('RateLimit');
  private readonly redis: RedisWithIncrement;
  private readonly fallback = new SlidingWindowThrottlerStorage();
  private usingFallback = false;

  constructor(
    redis: Redis,
    private readonly keyPrefix: string,
  ) {
    redis.defineCommand('throttleIncrement', { numberOfKeys: 2, lua: INCREMENT_SCRIPT });
    this.redis = redis as RedisWithIncrement;
  }

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    const hitsKey = `${this.keyPrefix}${key}`;
    let reply: IncrementReply;
    try {
      reply = await this.redis.throttleIncrement(hitsKey, `${hitsKey}:blocked`, ttl, limit, blockDuration);
    } catch (error) {
      if (!this.usingFallback) {
        this.usingFallback = true;
        this.logger.warn({
          msg: 'Redis unavailable: rate limits are counted per instance until it returns',
          error: (error as Error).message,
        });
      }
      return this.fallback.increment(key, ttl, limit, blockDuration, throttlerName);
    }
    if (this.usingFallback) {
      this.usingFallback = false;
      this.logger.log({ msg: 'Redis is back: rate limits are shared again' });
    }
    const [totalHits, windowLeftMs, blocked, blockLeftMs] = reply;
    return {
      totalHits,
      timeToExpire: toSeconds(windowLeftMs),
      isBlocked: blocked === 1,
      timeToBlockExpire: toSeconds(blockLeftMs),
    };
  }
}
