import { placeholders } from '../database/raw-query.js';
import { fromCents } from '../common/money.js';
import type { PriceFacetBucketDto } from './dto/product.dto.js';

/**
 * The SQL of the product list's facets, in the text both SQLite and MySQL/MariaDB accept. Each facet counts over
 * the matches of its filter (the list's, its own part left out): their ids are read once per such filter (at
 * most cap + 1, ProductListQuery.facets), then counted by primary key, FACET_ID_CHUNK ids per statement: the
 * category and price facets in one pass over the products' rows, the options from their option values' index.
 */

/** Most values a facet gives (per option name for the options facet). */
export const FACET_VALUES_MAX = 20;

/**
 * The price buckets' lower edges in cents of the default currency (the unit of `price_cents`): 0-10, 10-25,
 * 25-50, 50-100, 100-250, 250-500, 500-1000, 1000 and more, in the unit of `price`.
 */
export const PRICE_BUCKET_EDGES = [0, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000];

/** Ids per statement of a facet's count: well under SQLite's 32 766 bound parameters. */
export const FACET_ID_CHUNK = 5000;

/** The bucket (an index into PRICE_BUCKET_EDGES) of a price in cents. */
function priceBucket(column: string): string {
  const cases = PRICE_BUCKET_EDGES.slice(1).map((edge, i) => `WHEN ${column} < ${edge} THEN ${i}`);
  return `CASE ${cases.join(' ')} ELSE ${PRICE_BUCKET_EDGES.length - 1} END`;
}

/**
 * The products of `count` ids grouped by category and price bucket, one pass over their rows for both facets:
 * rows `(category_id, bucket, n)`.
 */
export function productFacetSql(count: number): string {
  const bucket = priceBucket('price_cents');
  return (
    `SELECT category_id, ${bucket} AS bucket, COUNT(*) AS n FROM products WHERE id IN (${placeholders(count)}) ` +
    `GROUP BY category_id, ${bucket}`
  );
}

/** Which option names an options count takes: one name, or all but some (or all). */
export type OptionNames = { only: string } | { except: string[] };

/**
 * The option values of `count` products, per name and folded value, from the option values' primary key alone:
 * rows `(name, value_key, value, n)`, `value` the first spelling in code-point order.
 */
export function optionFacetSql(count: number, names: OptionNames): { sql: string; params: unknown[] } {
  let condition = '';
  const params: unknown[] = [];
  if ('only' in names) {
    condition = ' AND name = ?';
    params.push(names.only);
  } else if (names.except.length > 0) {
    condition = ` AND name NOT IN (${placeholders(names.except.length)})`;
    params.push(...names.except);
  }
  return {
    sql:
      'SELECT name, value_key, MIN(value) AS value, COUNT(*) AS n FROM product_option_values ' +
      `WHERE product_id IN (${placeholders(count)})${condition} GROUP BY name, value_key`,
    params,
  };
}

/** The first FACET_VALUES_MAX of counted values, most first, ties by value. */
export function topValues<T extends string | number>(
  counts: Map<T, number>,
): Array<{ value: T; count: number }> {
  return [...counts]
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
    .slice(0, FACET_VALUES_MAX);
}

/** The price facet's bucket as the API shows it, in the unit of `price`. */
export function priceBucketOf(index: number, count: number): PriceFacetBucketDto {
  const max = PRICE_BUCKET_EDGES[index + 1];
  return { min: fromCents(PRICE_BUCKET_EDGES[index]), max: max === undefined ? null : fromCents(max), count };
}
