import type { ThrottlerStorage } from '@nestjs/throttler';

type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

interface Window {
  /** Expiry time of each counted hit, oldest first; entries before `head` have expired. */
  expiries: number[];
  head: number;
  /** End of the fixed window reported in the X-RateLimit-Reset header. */
  resetAt: number;
  blockedUntil: number;
}

const SWEEP_INTERVAL_MS = 60_000;

/**
 * In-memory rate-limit counters with the semantics of @nestjs/throttler's own storage (a sliding log of hits
 * per key, blocked for `blockDuration` once past the limit), at constant cost per request.
 *
 * The library's storage copies every live hit of the key on each request (`Array.filter`) and spreads them
 * into `Math.min`, so a request costs time and garbage in proportion to the hits in the window: with one
 * client behind a proxy or a generous limit, that is tens of thousands of entries per request. Here the hits
 * of a key share one TTL (keys are per throttler) and so expire in the order they were added: expired ones are
 * dropped from the front. Were a route to override the TTL, a hit could wait behind a later-expiring one and
 * count a little longer, never shorter.
 */
export class SlidingWindowThrottlerStorage implements ThrottlerStorage {
  private readonly windows = new Map<string, Window>();
  private lastSweep = Date.now();

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    _throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    const now = Date.now();
    if (now - this.lastSweep >= SWEEP_INTERVAL_MS) this.sweep(now);
    let window = this.windows.get(key);
    if (window === undefined) {
      window = { expiries: [], head: 0, resetAt: now + ttl, blockedUntil: 0 };
      this.windows.set(key, window);
    }
    dropExpired(window, now);
    if (window.resetAt <= now) window.resetAt = now + ttl;
    const timeToExpire = Math.ceil((window.resetAt - now) / 1000);

    if (blockDuration <= 0) {
      // Without blocking: refuse while the window is full, count only the accepted hits.
      const isBlocked = live(window) >= limit;
      if (!isBlocked) window.expiries.push(now + ttl);
      return {
        totalHits: live(window) + (isBlocked ? 1 : 0),
        timeToExpire,
        isBlocked,
        timeToBlockExpire: isBlocked ? Math.ceil((window.expiries[window.head] - now) / 1000) : 0,
      };
    }

    if (window.blockedUntil !== 0 && window.blockedUntil <= now) {
      // The block is over: the key starts again from this hit.
      window.blockedUntil = 0;
      window.expiries = [];
      window.head = 0;
    }
    const blocked = window.blockedUntil !== 0;
    if (!blocked) window.expiries.push(now + ttl);
    if (!blocked && live(window) > limit) window.blockedUntil = now + blockDuration;
    const isBlocked = window.blockedUntil !== 0;
    return {
      totalHits: live(window),
      timeToExpire,
      isBlocked,
      timeToBlockExpire: isBlocked ? Math.ceil((window.blockedUntil - now) / 1000) : 0,
    };
  }

  /** Forgets keys with no live hit and no block, so that memory follows the active clients only. */
  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, window] of this.windows) {
      dropExpired(window, now);
      if (live(window) === 0 && window.blockedUntil <= now) this.windows.delete(key);
    }
  }
}

function live(window: Window): number {
  return window.expiries.length - window.head;
}

function dropExpired(window: Window, now: number): void {
  const { expiries } = window;
  while (window.head < expiries.length && expiries[window.head] <= now) window.head++;
  // Compact once the expired prefix is most of the array, keeping the amortised cost constant.
  if (window.head > 1024 && window.head * 2 > expiries.length) {
    window.expiries = expiries.slice(window.head);
    window.head = 0;
  }
}
