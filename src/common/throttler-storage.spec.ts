import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { ThrottlerStorageService } from '@nestjs/throttler';
import { SlidingWindowThrottlerStorage } from './throttler-storage.js';

describe('SlidingWindowThrottlerStorage', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: new Date('2026-11-22T08:00:00.000Z') });
  });

  afterEach(() => {
    jest.useRealTimers();
  });

  it('blocks past the limit for blockDuration, then counts afresh', async () => {
    const storage = new SlidingWindowThrottlerStorage();
    const hit = () => storage.increment('k', 60_000, 3, 30_000, 'default');
    expect(await hit()).toEqual({ totalHits: 1, timeToExpire: 60, isBlocked: false, timeToBlockExpire: 0 });
    await hit();
    expect((await hit()).isBlocked).toBe(false);
    expect(await hit()).toEqual({ totalHits: 4, timeToExpire: 60, isBlocked: true, timeToBlockExpire: 30 });
    jest.advanceTimersByTime(29_000);
    expect(await hit()).toMatchObject({ isBlocked: true, timeToBlockExpire: 1 });
    jest.advanceTimersByTime(1_000);
    expect(await hit()).toEqual({ totalHits: 1, timeToExpire: 30, isBlocked: false, timeToBlockExpire: 0 });
  });

  it('lets each hit count for ttl only (a sliding window, not a fixed one)', async () => {
    const storage = new SlidingWindowThrottlerStorage();
    const hit = () => storage.increment('k', 10_000, 2, 10_000, 'default');
    await hit();
    jest.advanceTimersByTime(6_000);
    await hit();
    jest.advanceTimersByTime(4_000);
    // The first hit has expired, the second still counts.
    expect(await hit()).toMatchObject({ totalHits: 2, isBlocked: false });
    expect(await hit()).toMatchObject({ totalHits: 3, isBlocked: true });
  });

  it('keeps keys apart', async () => {
    const storage = new SlidingWindowThrottlerStorage();
    await storage.increment('a', 60_000, 1, 60_000, 'default');
    expect((await storage.increment('a', 60_000, 1, 60_000, 'default')).isBlocked).toBe(true);
    expect((await storage.increment('b', 60_000, 1, 60_000, 'default')).isBlocked).toBe(false);
  });

  it('answers as the library storage does for the same sequence of hits', async () => {
    const ours = new SlidingWindowThrottlerStorage();
    const reference = new ThrottlerStorageService();
    // Hits 700 ms apart against a limit of 5 per 3 s, blocked for 2 s: windows slide, fill, block and reopen.
    for (let i = 0; i < 40; i++) {
      const expected = await reference.increment('k', 3_000, 5, 2_000, 'default');
      const actual = await ours.increment('k', 3_000, 5, 2_000, 'default');
      expect({ i, ...actual }).toEqual({
        i,
        ...expected,
        timeToBlockExpire: expected.isBlocked ? expected.timeToBlockExpire : 0,
      });
      jest.advanceTimersByTime(700);
    }
    reference.onApplicationShutdown();
  });

  it('counts a window of 200 000 live hits exactly, and drops them once expired', async () => {
    const storage = new SlidingWindowThrottlerStorage();
    for (let i = 0; i < 200_000; i++) await storage.increment('k', 60_000, 1_000_000, 60_000, 'default');
    const record = await storage.increment('k', 60_000, 1_000_000, 60_000, 'default');
    expect(record).toMatchObject({ totalHits: 200_001, isBlocked: false });
    jest.advanceTimersByTime(60_000);
    expect(await storage.increment('k', 60_000, 1_000_000, 60_000, 'default')).toMatchObject({
      totalHits: 1,
    });
  });
});
