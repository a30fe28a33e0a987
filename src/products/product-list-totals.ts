import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import type { Tx } from '../database/transaction-runner.js';
import { Metrics } from '../observability/metrics.js';
import type { ProductFacet } from './dto/product.dto.js';
import {
  ListCount,
  ListFacets,
  PRODUCT_SEARCH,
  ProductListFilter,
  type ProductSearch,
} from './product-list.query.js';

const GENERATION = 'SELECT generation FROM catalog_state WHERE id = 1';
const NEXT_GENERATION = 'UPDATE catalog_state SET generation = generation + 1 WHERE id = 1';
/** Filters remembered at most; the least recently used is forgotten first. */
const MAX_TOTALS = 10_000;

interface Counted {
  generation: number;
  value: unknown;
  countedAt: number;
}

/**
 * The product lists' `meta.total` and `meta.facets`, counted once per filter and catalogue generation. Every
 * product write of the service raises `catalog_state.generation` in its transaction (`catalogChanged`), and a
 * count is reused only under the generation read before it was counted, so it is what a count would give, on
 * every instance. Stock moves with every order without raising the generation, so `in_stock` and `max_stock`
 * lists are always counted, and so are `include_descendants` lists, whose subtree changes with category writes.
 * PRODUCT_TOTALS_TTL bounds how long a change made outside the service (SQL by hand) can go unseen.
 */
@Injectable()
export class ProductListTotals {
  private readonly counted = new Map<string, Counted>();
  private readonly ttlMs: number;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
    @Inject(PRODUCT_SEARCH) private readonly listQuery: ProductSearch,
    private readonly metrics: Metrics,
  ) {
    this.ttlMs = config.productTotalsTtlSeconds * 1000;
  }

  /** Marks the catalogue changed, in the writing transaction (as its last statement, after the product rows). */
  static async catalogChanged(tx: Tx): Promise<void> {
    await tx.query(NEXT_GENERATION);
  }

  total(filter: ProductListFilter): Promise<ListCount> {
    return this.remembered(JSON.stringify(filter), filter, () => this.listQuery.count(filter), true);
  }

  facets(filter: ProductListFilter, asked: ProductFacet[]): Promise<ListFacets> {
    return this.remembered(`facets ${asked.join()} ${JSON.stringify(filter)}`, filter, () =>
      this.listQuery.facets(filter, asked),
    );
  }

  /** The value kept for the key under the current generation, or counted; `metered`: a total (the metric's). */
  private async remembered<T>(
    key: string,
    filter: ProductListFilter,
    count: () => Promise<T>,
    metered = false,
  ): Promise<T> {
    if (
      this.ttlMs === 0 ||
      filter.inStock !== undefined ||
      filter.maxStock !== undefined ||
      filter.includeDescendants === true
    ) {
      return count();
    }
    // Read before counting: a write committed in between then gives the next request a new generation.
    const [{ generation }]: Array<{ generation: number | string }> = await this.dataSource.query(GENERATION);
    const now = Date.now();
    const known = this.counted.get(key);
    this.counted.delete(key);
    if (
      known !== undefined &&
      known.generation === Number(generation) &&
      now - known.countedAt < this.ttlMs
    ) {
      this.counted.set(key, known);
      if (metered) this.metrics.productTotals.inc({ result: 'hit' });
      return known.value as T;
    }
    const value = await count();
    this.counted.set(key, { generation: Number(generation), value, countedAt: now });
    if (this.counted.size > MAX_TOTALS) this.counted.delete(this.counted.keys().next().value as string);
    if (metered) this.metrics.productTotals.inc({ result: 'miss' });
    return value;
  }
}
