/**
 * The SQL of a product search over `product_words` (src/products/product-words.ts), in both dialects, chosen so
 * that no search makes the database score or sort more than a bounded number of rows. Pure (no Nest): the
 * service (ProductListQuery) and the benchmark's baselines build the same statements from it. The design and
 * its EXPLAINs: docs/benchmarks.md, "Search".
 *
 * Every word of a search must match, the last one as a prefix; a term matches any of its variants (the word,
 * its typos, stems and synonyms: SearchDictionary), each in a tier that ranks it. A term's postings (its rows in
 * product_words) are counted, up to the rank limit (termPostings); then
 * - `ranked` (some term has at most `rankLimit` postings): the rarest term's postings drive, the other terms
 *   are looked up by primary key, and at most `rankLimit` rows are scored (sum of the terms' weights) and
 *   sorted by the requested sort;
 * - `merged` (a search of several words, every term common but none past twenty times the rank limit, as
 *   termPostings counts them): every term's postings are read once, grouped per product and kept where every
 *   term matched, then scored and sorted: at most terms × 20 × rankLimit postings read, none probed one by
 *   one (a primary-key probe per posting costs several times a posting read in a range, and two words that
 *   rarely meet would probe every posting of the rarer);
 * - `postings` (every term is common, relevance order): the driver's postings are walked in index order
 *   (best weight first, then id; for a prefix by word first), the other terms and the filters checked per
 *   row, until the page is full: the pre-ranked order, nothing sorted; a driver with variants of several tiers
 *   is walked tier by tier (tieredPostings). A count that checks each posting reads a budget of them
 *   (countBudget);
 * - `products` (every term is common and another sort is asked, or the filter names the products by id or
 *   slug): the products are walked in the sort's index, every term looked up per product, until the page is
 *   full.
 */

import { placeholders } from '../database/raw-query.js';
import { INACTIVE_RANK, WORD_WEIGHT_MAX } from './product-words.js';

/**
 * How well an indexed word matches a term, best first: the word itself (or, for the last word, a word it begins),
 * one typo, two typos, the same stem, a synonym. A product's relevance adds its best match per term as
 * tier × TIER_STEP + weight, so that fewer or lighter differences always rank above more, whatever the weights.
 */
export const MATCH_TIER = { exact: 5, oneTypo: 4, twoTypos: 3, stem: 2, synonym: 1 } as const;
/** Above the most a search's weights can add (SEARCH_MAX_WORDS × WORD_WEIGHT_MAX = 800). */
const TIER_STEP = 1000;

/** One indexed word (or, with `prefix`, every word it begins) a term matches, and how well (MATCH_TIER). */
export interface TermVariant {
  word: string;
  prefix: boolean;
  tier: number;
  /** For a prefix: the end of its words (exclusive) when a better variant's words were cut out of its range. */
  until?: string;
}

/**
 * One word of a search, normalized (normalizedWords); the last one matches as a prefix. `variants` are the
 * indexed words it matches: itself first, then its typos, stems and synonyms (SearchDictionary), best tier first.
 */
export interface SearchTerm {
  word: string;
  prefix: boolean;
  variants: TermVariant[];
}

/** Whether a term can match several words of one product (a prefix, or variants): its postings need grouping. */
const matchesSeveral = (term: SearchTerm) => term.prefix || term.variants.length > 1;

/** A term's identity for remembered counts: its variants. */
export const termKey = (term: SearchTerm) =>
  term.variants.map((v) => `${v.prefix ? '*' : '='}${v.word}`).join('\u0000');

export type SearchPlan = 'ranked' | 'merged' | 'postings' | 'products';

/**
 * Past this many times the rank limit a term's postings are too many to merge (termPostings counts that far).
 * Chosen by measurement at a million products: 10 left twice the database time to two-word searches whose
 * rarer word was just past it (walked with a probe per posting); 40 gained nothing more.
 */
const MERGE_FACTOR = 20;

/** Sorts after every character a word can hold: [w, w + PREFIX_END) is every word that starts with w. */
const PREFIX_END = '\u{10FFFF}';

/**
 * A posting's weight from its rank (WORD_WEIGHT_MAX - weight, plus INACTIVE_RANK when inactive): the word
 * index holds the rank but not the weight, and reading `weight` would read every driving posting's row.
 */
const weightFromRank = (alias: string) => `(${WORD_WEIGHT_MAX} - ${alias}.\`rank\` % ${INACTIVE_RANK})`;

/** The terms of a search's normalized words: the last one a prefix, repeated words once. */
export function searchTerms(words: string[]): SearchTerm[] {
  const terms: SearchTerm[] = [];
  words.forEach((word, i) => {
    const prefix = i === words.length - 1;
    if (!terms.some((term) => term.word === word && term.prefix === prefix)) {
      terms.push({ word, prefix, variants: [{ word, prefix, tier: MATCH_TIER.exact }] });
    }
  });
  return terms;
}

/** The condition on `alias.word` that postings of any of `variants` meet, and its parameters. */
function variantsCondition(alias: string, variants: TermVariant[]): { sql: string; params: string[] } {
  const parts: string[] = [];
  const params: string[] = [];
  const words = variants.filter((v) => !v.prefix).map((v) => v.word);
  if (words.length === 1) parts.push(`${alias}.word = ?`);
  if (words.length > 1) parts.push(`${alias}.word IN (${placeholders(words.length)})`);
  params.push(...words);
  for (const variant of variants.filter((v) => v.prefix)) {
    parts.push(`${alias}.word >= ? AND ${alias}.word < ?`);
    params.push(variant.word, variant.until ?? variant.word + PREFIX_END);
  }
  return {
    sql: parts.length === 1 ? parts[0] : `(${parts.map((part) => `(${part})`).join(' OR ')})`,
    params,
  };
}

/** The condition on `alias.word` that a term's postings meet, and its parameters. */
const termCondition = (alias: string, term: SearchTerm) => variantsCondition(alias, term.variants);

/**
 * A posting's part of the relevance for its term: its weight, plus its variant's tier × TIER_STEP when the term
 * has variants of several tiers (a term of one tier adds the same to every product).
 */
function postingScore(alias: string, term: SearchTerm): { sql: string; params: string[] } {
  const weight = weightFromRank(alias);
  const tiers = tiersOf(term);
  if (tiers.length === 1) return { sql: weight, params: [] };
  const params: string[] = [];
  const branches = tiers.slice(0, -1).map((tier) => {
    const condition = variantsCondition(
      alias,
      term.variants.filter((v) => v.tier === tier),
    );
    params.push(...condition.params);
    return `WHEN ${condition.sql} THEN ${tier * TIER_STEP}`;
  });
  return { sql: `(CASE ${branches.join(' ')} ELSE ${tiers.at(-1)! * TIER_STEP} END + ${weight})`, params };
}

/**
 * The terms' postings as the plan needs them, from `count(term, cap)` (a capped count): each up to
 * rankLimit + 1, which tells rare from common; when every term of a search of several is common, again up to
 * MERGE_FACTOR (20) times that, so that they may be merged or the rarer common term drives (a common word beside a prefix of a few thousand
 * postings), at a few milliseconds of index reading per term.
 */
export async function termPostings(
  terms: SearchTerm[],
  rankLimit: number,
  count: (term: SearchTerm, cap: number) => Promise<number>,
): Promise<number[]> {
  const counts: number[] = [];
  for (const term of terms) counts.push(await count(term, rankLimit + 1));
  if (terms.length > 1 && counts.every((n) => n > rankLimit)) {
    for (const [i, term] of terms.entries()) counts[i] = await count(term, MERGE_FACTOR * rankLimit + 1);
  }
  return counts;
}

/**
 * The driver's postings: the term's, within the rank band of active products (`active` true) or of inactive ones
 * (false), so that the products' visibility is checked in the word index.
 */
function driverCondition(term: SearchTerm, active: boolean | undefined): { sql: string; params: unknown[] } {
  const condition = termCondition('d', term);
  if (active === undefined) return condition;
  return {
    sql: `${condition.sql} AND d.\`rank\` ${active ? '<' : '>='} ${INACTIVE_RANK}`,
    params: condition.params,
  };
}

/**
 * The merged plan's derived table `d (product_id, weight)`: every term's postings in one read of the word index
 * (within the rank band of `active`), grouped per product, kept where every term matched; `weight` is the sum
 * of each term's best weight, as the other plans score.
 */
function mergedPostings(
  terms: SearchTerm[],
  active: boolean | undefined,
): { sql: string; params: unknown[] } {
  const conditions = terms.map((term) => termCondition('g', term));
  const params = conditions.flatMap((condition) => condition.params);
  const band = active === undefined ? '' : ` AND g.\`rank\` ${active ? '<' : '>='} ${INACTIVE_RANK}`;
  const scores = terms.map((term) => postingScore('g', term));
  const weight = conditions
    .map((c, i) => `MAX(CASE WHEN ${c.sql} THEN ${scores[i].sql} ELSE 0 END)`)
    .join(' + ');
  const weightParams = conditions.flatMap((c, i) => [...c.params, ...scores[i].params]);
  const any = conditions.map((c) => `(${c.sql})`).join(' OR ');
  const every = conditions.map((c) => `SUM(CASE WHEN ${c.sql} THEN 1 ELSE 0 END) > 0`).join(' AND ');
  return {
    sql:
      `(SELECT g.product_id, ${weight} AS weight FROM product_words g WHERE (${any})${band} ` +
      `GROUP BY g.product_id HAVING ${every}) d`,
    params: [...weightParams, ...params, ...params],
  };
}

/**
 * A search's matches counted up to `cap` in the word index alone, for a filter that is only the products'
 * visibility (`active`; deleted products have no words): for the merged plan its groups; otherwise the
 * driver's postings, one per product (for a prefix of several words DISTINCT, stopping at `cap` products), the
 * other terms looked up by primary key. No product row is read.
 */
export function wordsCountSql(
  terms: SearchTerm[],
  plan: SearchPlan,
  driver: number,
  options: { mysql: boolean; active: boolean | undefined; cap: number; budget?: number },
): { sql: string; params: unknown[] } {
  if (plan === 'merged') {
    const merged = mergedPostings(terms, options.active);
    return { sql: `SELECT COUNT(*) AS n FROM ${merged.sql}`, params: merged.params };
  }
  const join = options.mysql ? 'STRAIGHT_JOIN' : 'CROSS JOIN';
  const condition = driverCondition(terms[driver], options.active);
  let from = 'product_words d';
  const fromParams: unknown[] = [];
  const where = [condition.sql];
  const whereParams: unknown[] = [...condition.params];
  if (options.budget !== undefined) {
    const budgeted = budgetedDriver(condition, options.budget);
    from = budgeted.sql;
    fromParams.push(...budgeted.params);
    where[0] = '1 = 1';
    whereParams.length = 0;
  }
  terms.forEach((term, i) => {
    if (i === driver) return;
    const alias = `w${i}`;
    const check = termCondition(alias, term);
    if (matchesSeveral(term)) {
      where.push(
        `(SELECT 1 FROM product_words ${alias} WHERE ${alias}.product_id = d.product_id AND ${check.sql} LIMIT 1) IS NOT NULL`,
      );
      whereParams.push(...check.params);
    } else {
      from += ` ${join} product_words ${alias} ON ${alias}.product_id = d.product_id AND ${check.sql}`;
      fromParams.push(...check.params);
    }
  });
  const matches = `FROM ${from} WHERE ${where.join(' AND ')} LIMIT ?`;
  const params = [...fromParams, ...whereParams, options.cap];
  const postings = `(SELECT COUNT(*) FROM (SELECT 1 ${matches}) postings)`;
  // An exact word has one posting per product; so has a prefix that only one word has (its first and last word
  // in the index are the same, two index dives), which spares the DISTINCT's temporary table.
  if (!matchesSeveral(terms[driver])) return { sql: `SELECT ${postings} AS n`, params };
  const distinct = `(SELECT COUNT(*) FROM (SELECT DISTINCT d.product_id ${matches}) products)`;
  if (terms[driver].variants.length > 1) return { sql: `SELECT ${distinct} AS n`, params };
  const range = termCondition('x', terms[driver]);
  const edge = (fn: string) => `(SELECT ${fn}(x.word) FROM product_words x WHERE ${range.sql})`;
  return {
    sql: `SELECT CASE WHEN ${edge('MIN')} = ${edge('MAX')} THEN ${postings} ELSE ${distinct} END AS n`,
    params: [...range.params, ...range.params, ...params, ...params],
  };
}

/** A term's postings counted up to `cap` (the statement reads at most `cap` index entries). */
export function postingsCountSql(term: SearchTerm, cap: number): { sql: string; params: unknown[] } {
  const condition = termCondition('w', term);
  return {
    sql: `SELECT COUNT(*) AS n FROM (SELECT 1 FROM product_words w WHERE ${condition.sql} LIMIT ?) c`,
    params: [...condition.params, cap],
  };
}

/**
 * The term that drives a ranked or postings plan: the fewest postings (counts capped: termPostings), then an
 * exact word before the prefix (its postings are in rank order and one per product), then the longer word.
 */
export function driverOf(terms: SearchTerm[], counts: number[]): number {
  let best = 0;
  for (let i = 1; i < terms.length; i++) {
    const [a, b] = [terms[i], terms[best]];
    const better =
      counts[i] !== counts[best]
        ? counts[i] < counts[best]
        : matchesSeveral(a) !== matchesSeveral(b)
          ? !matchesSeveral(a)
          : [...a.word].length > [...b.word].length;
    if (better) best = i;
  }
  return best;
}

/** The plan for a search whose terms have `counts` postings (capped: termPostings). */
/**
 * A count checking each of its driver's postings reads at most this many times the rank limit of them (2 000 by
 * default, about 20 ms of primary-key probes at a million products): at 20 (10 000) a never-seen pair of common
 * words still took 60-160 ms for its count.
 */
const COUNT_BUDGET_FACTOR = 4;

/**
 * How many of the driver's postings a count reads at most when every one is checked (against other terms or
 * filters) and the driver has more: past it the count is a lower bound, so that a count never probes more than
 * that many postings, however sparsely its words or filters meet. `driverPostings` is the driver's count, capped
 * past the budget (termPostings counts several common terms that far).
 */
export function countBudget(rankLimit: number, driverPostings: number): number | undefined {
  return driverPostings > COUNT_BUDGET_FACTOR * rankLimit ? COUNT_BUDGET_FACTOR * rankLimit : undefined;
}

/** How far a lone term's postings are counted to tell whether its count needs a budget (countBudget). */
export const budgetPostings = (rankLimit: number) => COUNT_BUDGET_FACTOR * rankLimit + 1;

/**
 * The driver's postings as a count with a budget reads them: the first `budget` in index order, as a derived
 * table `d (product_id, word, rank)`.
 */
function budgetedDriver(condition: { sql: string; params: unknown[] }, budget: number) {
  return {
    sql:
      `(SELECT d.product_id, d.word, d.\`rank\` FROM product_words d WHERE ${condition.sql} ` +
      'ORDER BY d.word, d.`rank`, d.product_id LIMIT ?) d',
    params: [...condition.params, budget],
  };
}

export function searchPlan(
  counts: number[],
  rankLimit: number,
  options: { relevance: boolean; fewProducts: boolean },
): SearchPlan {
  if (options.fewProducts) return 'products';
  if (Math.min(...counts) <= rankLimit) return 'ranked';
  if (counts.length > 1 && Math.max(...counts) <= MERGE_FACTOR * rankLimit) return 'merged';
  return options.relevance ? 'postings' : 'products';
}

/** A search's part of the list statement: what it adds to the FROM, the WHERE and the SELECT list. */
export interface SearchSql {
  /** The product's id in the statement: `p.id`, or `d.product_id` when no product row is read. */
  id: string;
  /** Whether the statement reads no product row: the filter's conditions on `p` must be left out. */
  wordsOnly: boolean;
  /** Starts the FROM (the driver, joined to `products p`), or follows `products p` for the products plan. */
  from: string;
  fromParams: unknown[];
  /** `products p` first (true) or after `from` (false). */
  productsFirst: boolean;
  where: string[];
  whereParams: unknown[];
  /** The relevance (sum of the terms' weights); '0' when the plan does not score. */
  score: string;
  scoreParams: unknown[];
  /** The postings plan's order (the driver's index order), with the columns the outer statement orders by. */
  postingsOrder?: { inner: string; columns: string; outer: string };
}

/**
 * The search's SQL for a plan. `join` is the dialect's join that keeps the written order (MySQL STRAIGHT_JOIN,
 * SQLite CROSS JOIN): the planners would otherwise start from whichever table they estimate smaller, and sort.
 */
export function searchSql(
  terms: SearchTerm[],
  plan: SearchPlan,
  driver: number,
  options: {
    mysql: boolean;
    score: boolean;
    active?: boolean;
    wordsOnly?: boolean;
    /** A page in relevance order: the rows it needs (offset + limit + 1) and the filter's conditions on `p`. */
    page?: { rows: number; where: string[]; params: unknown[] };
    /** A count's budget of driver postings (countBudget). */
    budget?: number;
    /**
     * The caller reads the ids DISTINCT (a count, a facet's matches): a driver matching several words of a
     * product is not cut to one row per product by a probe per posting.
     */
    distinct?: boolean;
  },
): SearchSql {
  if (plan === 'postings' && options.page !== undefined && tiersOf(terms[driver]).length > 1) {
    return tieredPostings(terms, driver, { ...options, page: options.page });
  }
  // A search in relevance order that only visibility filters reads no product row (the rank band is the
  // visibility, deleted products have no words): its postings walk, or its ranking by the words' weights.
  const wordsOnly =
    options.wordsOnly === true &&
    (plan === 'postings' || ((plan === 'ranked' || plan === 'merged') && options.score));
  const product = wordsOnly ? 'd.product_id' : 'p.id';
  const join = options.mysql ? 'STRAIGHT_JOIN' : 'CROSS JOIN';
  const sql: SearchSql = {
    id: product,
    wordsOnly,
    from: '',
    fromParams: [],
    productsFirst: plan === 'products',
    where: [],
    whereParams: [],
    score: '0',
    scoreParams: [],
  };
  if (plan === 'merged') {
    const merged = mergedPostings(terms, options.active);
    sql.from = wordsOnly ? merged.sql : `${merged.sql} ${join} products p ON p.id = d.product_id`;
    sql.fromParams.push(...merged.params);
    if (options.score) sql.score = 'd.weight';
    if (wordsOnly) sql.where.push('1 = 1');
    return sql;
  }
  const scores: string[] = [];
  // The postings plan's order is the index's: it computes no score.
  const scoring = options.score && plan !== 'postings';
  if (plan !== 'products') {
    const term = terms[driver];
    const condition = driverCondition(term, options.active);
    if (plan === 'ranked' && matchesSeveral(term)) {
      // At most rankLimit postings: grouped to one row per product, its best word's weight.
      const score = postingScore('d', term);
      sql.from =
        `(SELECT d.product_id, MAX(${score.sql}) AS weight FROM product_words d WHERE ${condition.sql} ` +
        `GROUP BY d.product_id) d${wordsOnly ? '' : ` ${join} products p ON p.id = d.product_id`}`;
      sql.fromParams.push(...score.params, ...condition.params);
    } else if (options.budget !== undefined) {
      const budgeted = budgetedDriver(condition, options.budget);
      sql.from = wordsOnly ? budgeted.sql : `${budgeted.sql} ${join} products p ON p.id = d.product_id`;
      sql.fromParams.push(...budgeted.params);
    } else {
      sql.from = wordsOnly ? 'product_words d' : `product_words d ${join} products p ON p.id = d.product_id`;
      sql.where.push(condition.sql);
      sql.whereParams.push(...condition.params);
    }
    if (!(plan === 'ranked' && matchesSeveral(term)) && options.distinct !== true) {
      if (term.prefix && term.variants.length === 1) {
        // One row per product: the posting of its first word (in word order) with the prefix.
        sql.where.push(
          'NOT EXISTS (SELECT 1 FROM product_words e WHERE e.product_id = d.product_id AND e.word >= ? AND e.word < d.word)',
        );
        sql.whereParams.push(term.word);
      } else if (matchesSeveral(term)) {
        // One row per product: the posting of its first word (in word order) the term matches.
        const earlier = termCondition('e', term);
        sql.where.push(
          `NOT EXISTS (SELECT 1 FROM product_words e WHERE e.product_id = d.product_id AND ${earlier.sql} AND e.word < d.word)`,
        );
        sql.whereParams.push(...earlier.params);
      }
    }
    scores.push(plan === 'ranked' && matchesSeveral(term) ? 'd.weight' : weightFromRank('d'));
    if (plan === 'postings') {
      sql.postingsOrder = matchesSeveral(term)
        ? {
            inner: 'd.word, d.`rank`, d.product_id',
            columns: 'd.word AS w, d.`rank` AS r',
            outer: 'page.w, page.r, page.id',
          }
        : { inner: 'd.`rank`, d.product_id', columns: 'd.`rank` AS r', outer: 'page.r, page.id' };
    }
  }
  terms.forEach((term, i) => {
    if (plan !== 'products' && i === driver) return;
    const alias = `w${i}`;
    const condition = termCondition(alias, term);
    if (!matchesSeveral(term)) {
      // One row at most (primary key): a join is the lookup and carries the weight.
      sql.from += ` ${join} product_words ${alias} ON ${alias}.product_id = ${product} AND ${condition.sql}`;
      sql.fromParams.push(...condition.params);
      scores.push(`${alias}.weight`);
      return;
    }
    const lookup = `FROM product_words ${alias} WHERE ${alias}.product_id = ${product} AND ${condition.sql}`;
    // A scalar subquery, not EXISTS: MariaDB turns EXISTS into a semi-join that materialises every posting of
    // the prefix (hundreds of thousands for a common one) before the first row.
    sql.where.push(`(SELECT 1 ${lookup} LIMIT 1) IS NOT NULL`);
    sql.whereParams.push(...condition.params);
    if (scoring) {
      const score = postingScore(alias, term);
      scores.push(`(SELECT MAX(${score.sql}) ${lookup})`);
      sql.scoreParams.push(...score.params, ...condition.params);
    }
  });
  if (scoring) sql.score = scores.join(' + ');
  // Read without product rows, the statement's WHERE is the search's alone (the ranked prefix's is inside its
  // derived table).
  if (wordsOnly && sql.where.length === 0) sql.where.push('1 = 1');
  return sql;
}

const tiersOf = (term: SearchTerm) => [...new Set(term.variants.map((v) => v.tier))].sort((a, b) => b - a);

/**
 * The postings plan of a driver whose variants have several tiers: the index order of one tier's postings says
 * nothing of another's, and sorting every posting by tier would read them all. So each tier's postings are walked
 * on their own in index order, without the products a better tier matches, up to the rows the page needs; the
 * page is taken from those walks, best tier first. The filter's conditions go into every walk.
 */
function tieredPostings(
  terms: SearchTerm[],
  driver: number,
  options: {
    mysql: boolean;
    active?: boolean;
    wordsOnly?: boolean;
    page: { rows: number; where: string[]; params: unknown[] };
  },
): SearchSql {
  const term = terms[driver];
  const params: unknown[] = [];
  const walks = tiersOf(term).map((tier, i) => {
    const own = withoutBetter(
      term.variants.filter((v) => v.tier === tier),
      term.variants.filter((v) => v.tier > tier),
    );
    const tierTerms = terms.map((t, j) => (j === driver ? { ...t, variants: own } : t));
    const walk = searchSql(tierTerms, 'postings', driver, { ...options, score: false, page: undefined });
    const where = [...walk.where];
    params.push(...walk.fromParams, ...walk.whereParams);
    const better = term.variants.filter((v) => v.tier > tier);
    if (own.length === 0) return null;
    if (better.length > 0) {
      const condition = variantsCondition('x', better);
      where.push(
        `NOT EXISTS (SELECT 1 FROM product_words x WHERE x.product_id = d.product_id AND ${condition.sql})`,
      );
      params.push(...condition.params);
    }
    if (!walk.wordsOnly) {
      where.push(...options.page.where);
      params.push(...options.page.params);
    }
    params.push(options.page.rows);
    return (
      `SELECT * FROM (SELECT d.product_id, ${tier} AS tier, d.word AS w, d.\`rank\` AS r FROM ${walk.from} ` +
      `WHERE ${where.join(' AND ')} ORDER BY ${walk.postingsOrder!.inner} LIMIT ?) t${i}`
    );
  });
  return {
    id: 'd.product_id',
    wordsOnly: true,
    from: `(${walks.filter((walk) => walk !== null).join(' UNION ALL ')}) d`,
    fromParams: params,
    productsFirst: false,
    where: ['1 = 1'],
    whereParams: [],
    score: '0',
    scoreParams: [],
    postingsOrder: {
      inner: 'd.tier DESC, d.w, d.r, d.product_id',
      columns: 'd.tier AS t, d.w AS w, d.r AS r',
      outer: 'page.t DESC, page.w, page.r, page.id',
    },
  };
}

/**
 * A tier's variants without the words of better ones: a word a better variant has is left out, and a prefix's
 * range is cut around a better prefix's (`cupi` without `cupik`: [cupi, cupik) and [cupik + U+10FFFF, cupi +
 * U+10FFFF)), so that a tier's walk never reads the postings a better tier's walk has read.
 */
function withoutBetter(variants: TermVariant[], better: TermVariant[]): TermVariant[] {
  const covered = better
    .map((v) => ({ from: v.word, to: v.prefix ? (v.until ?? v.word + PREFIX_END) : v.word + '\u0000' }))
    .sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  const inCovered = (word: string) => covered.some((c) => word >= c.from && word < c.to);
  const own: TermVariant[] = [];
  for (const variant of variants) {
    if (!variant.prefix) {
      if (!inCovered(variant.word)) own.push(variant);
      continue;
    }
    let from = variant.word;
    const to = variant.until ?? variant.word + PREFIX_END;
    for (const c of covered) {
      if (c.to <= from || c.from >= to) continue;
      if (c.from > from) own.push({ ...variant, word: from, until: c.from });
      from = c.to > from ? c.to : from;
      if (from >= to) break;
    }
    if (from < to) own.push({ ...variant, word: from, until: to });
  }
  return own;
}
