import { placeholders } from '../database/raw-query.js';
import type { OptionFacetValueDto, PriceFacetBucketDto } from './dto/product.dto.js';

/**
 * The SQL of the product list's facets, in the text both SQLite and MySQL/MariaDB accept: one statement per
 * facet over the matches of its filter (the list's, its own filter left out). The matches are a statement
 * `SELECT <id> AS id … LIMIT cap + 1` (ProductListQuery.facets), numbered in the order the database finds them:
 * the counts take the first `cap`, and the highest number tells whether there were more.
 */

/** Most values a facet gives (per option name for the options facet). */
export const FACET_VALUES_MAX = 20;

/**
 * The price buckets' lower edges in cents of the default currency (the unit of `price_cents`): 0-10, 10-25,
 * 25-50, 50-100, 100-250, 250-500, 500-1000, 1000 and more, in the unit of `price`.
 */
export const PRICE_BUCKET_EDGES = [0, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000];

/** A facet's matches statement and its parameters. */
export interface FacetMatches {
  sql: string;
  params: unknown[];
}

/** One facet's statement; its rows give `matches`, the matches seen (at most cap + 1). */
export interface FacetSql {
  sql: string;
  params: unknown[];
}

/** The matches numbered 1, 2, … as `m (id, r)`. */
const numbered = (matches: FacetMatches) =>
  `(SELECT q.id, ROW_NUMBER() OVER () AS r FROM (${matches.sql}) q) m`;

/** Counts the rows of the first `cap` matches; `seen` is the highest number of a match in the group. */
const counted = (cap: number, r: string) =>
  `SUM(CASE WHEN ${r} <= ${cap} THEN 1 ELSE 0 END) AS n, MAX(${r}) AS seen`;

/** The bucket (an index into PRICE_BUCKET_EDGES) of a price in cents. */
function priceBucket(column: string): string {
  const cases = PRICE_BUCKET_EDGES.slice(1).map((edge, i) => `WHEN ${column} < ${edge} THEN ${i}`);
  return `CASE ${cases.join(' ')} ELSE ${PRICE_BUCKET_EDGES.length - 1} END`;
}

/**
 * The category or price facet: the matches' products grouped by category id or price bucket, the first
 * FACET_VALUES_MAX groups (categories: most products first, ties by id; buckets: in price order). Rows
 * `(facet_value, n, matches)`.
 */
export function productColumnFacetSql(
  facet: 'category_id' | 'price',
  matches: FacetMatches,
  cap: number,
): FacetSql {
  const value = facet === 'category_id' ? 'f.category_id' : priceBucket('f.price_cents');
  const order = facet === 'category_id' ? 'g.n DESC, g.facet_value' : 'g.facet_value';
  const groups =
    `SELECT ${value} AS facet_value, ${counted(cap, 'm.r')} FROM ${numbered(matches)} ` +
    `INNER JOIN products f ON f.id = m.id GROUP BY ${value}`;
  return {
    sql:
      'SELECT t.facet_value, t.n, t.matches FROM (SELECT g.facet_value, g.n, ' +
      `ROW_NUMBER() OVER (ORDER BY ${order}) AS place, MAX(g.seen) OVER () AS matches FROM (${groups}) g) t ` +
      `WHERE t.place <= ${FACET_VALUES_MAX} ORDER BY t.place`,
    params: matches.params,
  };
}

/** Which option names a branch of the options facet counts: one name, or all but some (or all). */
export type OptionNames = { only: string } | { except: string[] };

/**
 * The options facet: per branch (matches of a filter, and the option names counted over them), the option
 * values of the matching products; grouped by name and folded value, the first FACET_VALUES_MAX values per
 * name (most products first, ties by value). A value is shown as the products spell it, the first spelling in
 * code-point order. Rows `(name, facet_value, n, matches)`; a NULL name stands for matches without a counted
 * value (it carries their numbers only).
 */
export function optionsFacetSql(
  branches: Array<{ matches: FacetMatches; names: OptionNames }>,
  cap: number,
): FacetSql {
  const params: unknown[] = [];
  const union = branches.map(({ matches, names }) => {
    params.push(...matches.params);
    let condition = '';
    if ('only' in names) {
      condition = ' AND v.name = ?';
      params.push(names.only);
    } else if (names.except.length > 0) {
      condition = ` AND v.name NOT IN (${placeholders(names.except.length)})`;
      params.push(...names.except);
    }
    return (
      `SELECT v.name, v.value_key, v.value, m.r FROM ${numbered(matches)} ` +
      `LEFT JOIN product_option_values v ON v.product_id = m.id${condition}`
    );
  });
  const groups =
    `SELECT x.name, MIN(x.value) AS facet_value, ${counted(cap, 'x.r')} ` +
    `FROM (${union.join(' UNION ALL ')}) x GROUP BY x.name, x.value_key`;
  return {
    sql:
      'SELECT t.name, t.facet_value, t.n, t.matches FROM (SELECT g.name, g.facet_value, g.n, ' +
      'ROW_NUMBER() OVER (PARTITION BY g.name ORDER BY g.n DESC, g.facet_value) AS place, ' +
      `MAX(g.seen) OVER () AS matches FROM (${groups}) g) t ` +
      `WHERE t.place <= ${FACET_VALUES_MAX} ORDER BY t.name, t.place`,
    params,
  };
}

/** The price facet's bucket as the API shows it, in the unit of `price` (cents / 100). */
export function priceBucketOf(index: number, count: number): PriceFacetBucketDto {
  const max = PRICE_BUCKET_EDGES[index + 1];
  return { min: PRICE_BUCKET_EDGES[index] / 100, max: max === undefined ? null : max / 100, count };
}

/** The options facet's rows as `{name: [{value, count}]}`, names in order (any name, `__proto__` too). */
export function optionsFacetOf(
  rows: Array<{ name: string | null; facet_value: string; n: number | string }>,
): Record<string, OptionFacetValueDto[]> {
  const byName = new Map<string, OptionFacetValueDto[]>();
  for (const row of rows) {
    if (row.name === null || Number(row.n) === 0) continue;
    const values = byName.get(row.name) ?? [];
    values.push({ value: row.facet_value, count: Number(row.n) });
    byName.set(row.name, values);
  }
  return Object.fromEntries(byName);
}
