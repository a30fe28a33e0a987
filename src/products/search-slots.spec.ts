import { describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import type { Metrics } from '../observability/metrics.js';
import { SearchSlots } from './search-slots.js';

function setUp(type: 'mysql' | 'better-sqlite3', concurrency: number, queue: number) {
  const refusals: string[] = [];
  const metrics = {
    registry: new Registry(),
    rateLimitRefusals: { inc: ({ limit }: { limit: string }) => refusals.push(limit) },
  } as unknown as Metrics;
  const config = { search: { concurrency, queue } } as AppConfig;
  const slots = new SearchSlots(config, { options: { type } } as DataSource, metrics);
  return { slots, refusals };
}

describe('SearchSlots', () => {
  it('runs SEARCH_CONCURRENCY at once, queues SEARCH_QUEUE in arrival order, refuses the rest', async () => {
    const { slots, refusals } = setUp('mysql', 2, 2);
    const first = await slots.take()!;
    const second = await slots.take()!;
    const started: string[] = [];
    const third = slots.take()!.then((release) => (started.push('third'), release));
    const fourth = slots.take()!.then((release) => (started.push('fourth'), release));
    expect(slots.take()).toBeNull();
    expect(refusals).toEqual(['search']);

    first();
    first(); // a second call gives nothing back twice
    const releaseThird = await third;
    expect(started).toEqual(['third']);
    second();
    const releaseFourth = await fourth;
    expect(started).toEqual(['third', 'fourth']);
    expect(slots.take()).not.toBeNull(); // the queue has room again
    releaseThird();
    releaseFourth();
  });

  it('runs one search at a time on SQLite whatever SEARCH_CONCURRENCY says', async () => {
    const { slots } = setUp('better-sqlite3', 5, 0);
    const release = await slots.take()!;
    expect(slots.take()).toBeNull();
    release();
    expect(slots.take()).not.toBeNull();
  });
});
