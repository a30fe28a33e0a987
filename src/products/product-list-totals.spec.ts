import { describe, expect, it } from '@jest/globals';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import type { Metrics } from '../observability/metrics.js';
import type { ProductListFilter, ProductListQuery } from './product-list.query.js';
import { ProductListTotals } from './product-list-totals.js';

/** The database as the totals see it: a generation, and a count per filter that records each call. */
function setUp(ttlSeconds = 60) {
  const database = { generation: 7, counts: [] as ProductListFilter[], total: 100 };
  const dataSource = {
    query: async () => [{ generation: String(database.generation) }],
  } as unknown as DataSource;
  const listQuery = {
    count: async (filter: ProductListFilter) => {
      database.counts.push(filter);
      return database.total;
    },
  } as unknown as ProductListQuery;
  const results: string[] = [];
  const metrics = { productTotals: { inc: ({ result }: { result: string }) => results.push(result) } };
  const config = { productTotalsTtlSeconds: ttlSeconds } as AppConfig;
  const totals = new ProductListTotals(dataSource, config, listQuery, metrics as unknown as Metrics);
  return { totals, database, results };
}

describe('ProductListTotals', () => {
  it('counts a filter once per generation and counts again when the generation moves', async () => {
    const { totals, database, results } = setUp();
    const filter = { active: true, categoryId: 3 };

    expect(await totals.total(filter)).toBe(100);
    database.total = 101;
    expect(await totals.total({ active: true, categoryId: 3 })).toBe(100);
    expect(await totals.total({ active: true, categoryId: 4 })).toBe(101);
    database.generation = 8;
    expect(await totals.total(filter)).toBe(101);

    expect(database.counts).toEqual([filter, { active: true, categoryId: 4 }, filter]);
    expect(results).toEqual(['miss', 'hit', 'miss', 'miss']);
  });

  it('always counts in_stock filters, and every filter when the TTL is 0', async () => {
    const inStock = setUp();
    await inStock.totals.total({ active: true, inStock: true });
    await inStock.totals.total({ active: true, inStock: true });
    expect(inStock.database.counts).toHaveLength(2);

    const uncached = setUp(0);
    await uncached.totals.total({ active: true });
    await uncached.totals.total({ active: true });
    expect(uncached.database.counts).toHaveLength(2);
  });

  it('keeps at most 10 000 filters, forgetting the least recently used', async () => {
    const { totals, database } = setUp();
    for (let id = 0; id < 10_000; id++) await totals.total({ categoryId: id });
    await totals.total({ categoryId: 0 });
    await totals.total({ categoryId: 10_000 });
    database.counts = [];

    // Category 0 was the first counted but used again since: category 1 was the least recently used.
    await totals.total({ categoryId: 0 });
    await totals.total({ categoryId: 2 });
    await totals.total({ categoryId: 10_000 });
    expect(database.counts).toEqual([]);
    await totals.total({ categoryId: 1 });
    expect(database.counts).toEqual([{ categoryId: 1 }]);
  });
});
