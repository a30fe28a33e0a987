import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import type { Tx } from '../database/transaction-runner.js';
import { Metrics } from '../observability/metrics.js';
import { ProductListFilter, ProductListQuery } from './product-list.query.js';

const GENERATION = 'SELECT generation FROM catalog_state WHERE id = 1';
const NEXT_GENERATION = 'UPDATE catalog_state SET generation = generation + 1 WHERE id = 1';
/** Filters remembered at most; the least recently used is forgotten first. */
const MAX_TOTALS = 10_000;

interface Counted {
  generation: number;
  total: number;
  countedAt: number;
}

/**
 * The product lists' `meta.total`, counted once per filter and catalogue generation. Every product write of
 * the service raises `catalog_state.generation` in its transaction (`catalogChanged`), and a total is reused
 * only under the generation read before it was counted, so it is what a count would give, on every instance.
 * Stock moves with every order without raising the generation, so `in_stock` and `max_stock` lists are always counted, and
 * so are `include_descendants` lists, whose subtree changes with category writes.
 * PRODUCT_TOTALS_TTL bounds how long a change made outside the service (SQL by hand) can go unseen.
 */
@Injectable()
export class ProductListTotals {
  private readonly totals = new Map<string, Counted>();
  private readonly ttlMs: number;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly listQuery: ProductListQuery,
    private readonly metrics: Metrics,
  ) {
    this.ttlMs = config.productTotalsTtlSeconds * 1000;
  }

  /** Marks the catalogue changed, in the writing transaction (as its last statement, after the product rows). */
  static async catalogChanged(tx: Tx): Promise<void> {
    await tx.query(NEXT_GENERATION);
  }

  async total(filter: ProductListFilter): Promise<number> {
    if (
      this.ttlMs === 0 ||
      filter.inStock !== undefined ||
      filter.maxStock !== undefined ||
      filter.includeDescendants === true
    ) {
      return this.listQuery.count(filter);
    }
    // Read before counting: a write committed in between then gives the next request a new generation.
    const [{ generation }]: Array<{ generation: number | string }> = await this.dataSource.query(GENERATION);
    const key = JSON.stringify(filter);
    const now = Date.now();
    const known = this.totals.get(key);
    this.totals.delete(key);
    if (
      known !== undefined &&
      known.generation === Number(generation) &&
      now - known.countedAt < this.ttlMs
    ) {
      this.totals.set(key, known);
      this.metrics.productTotals.inc({ result: 'hit' });
      return known.total;
    }
    const total = await this.listQuery.count(filter);
    this.totals.set(key, { generation: Number(generation), total, countedAt: now });
    if (this.totals.size > MAX_TOTALS) this.totals.delete(this.totals.keys().next().value as string);
    this.metrics.productTotals.inc({ result: 'miss' });
    return total;
  }
}
