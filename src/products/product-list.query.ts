import { Inject, Injectable, InternalServerErrorException, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { CursorPosition } from '../common/pagination.js';
import { CATEGORY_SUBTREE_CTE } from '../categories/category-directory.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { queryWithTimeout } from '../database/mysql-driver.js';
import { SQLITE_READER_TIMEOUT, SqliteReader } from '../database/sqlite-reader.js';
import { sqlDatetime } from '../database/timestamps.js';
import { toProductResponse, type ProductListSort, type ProductResponseDto } from './dto/product.dto.js';
import {
  imagesOf,
  PRODUCT_COLUMNS,
  productFromRow,
  type ProductImage,
  type ProductRow,
} from './product-statements.js';
import { placeholders } from '../database/raw-query.js';
import type { ProductFacet, ProductFacetsDto } from './dto/product.dto.js';
import {
  FACET_ID_CHUNK,
  optionFacetSql,
  type OptionNames,
  priceBucketOf,
  productFacetSql,
  topValues,
} from './product-facets.js';
import type { OptionFilter } from './product-option-values.js';
import {
  budgetPostings,
  countBudget,
  driverOf,
  postingsCountSql,
  searchPlan,
  searchSql,
  searchTerms,
  type SearchSql,
  type SearchTerm,
  termKey,
  termPostings,
  wordsCountSql,
} from './product-search.js';
import { SearchDictionary } from './search-dictionary.js';

/** What a product list filters on; `search` is already split into normalized words (searchQueryWords). */
export interface ProductListFilter {
  active?: boolean;
  categoryId?: number;
  /** With categoryId: the category and every category below it. */
  includeDescendants?: boolean;
  minCents?: number;
  maxCents?: number;
  inStock?: boolean;
  maxStock?: number;
  searchWords?: string[];
  slug?: string;
  ids?: number[];
  /** `option[Name]=value`: for each option, a product has it with one of the values (by name). */
  options?: OptionFilter[];
}

export interface ProductPageRequest {
  sort: ProductListSort;
  limit: number;
  offset: number;
  after?: CursorPosition;
}

export interface ProductPage {
  products: ProductResponseDto[];
  /** The position of the last product when more follow it. */
  last: CursorPosition | null;
}

const SORT_COLUMNS: Record<string, string> = {
  id: 'p.id',
  price: 'p.price_cents',
  name: 'p.name',
  created_at: 'p.created_at',
};
const COLUMNS = PRODUCT_COLUMNS.join(', ');

/** Most words a search may have: each is one more list of postings for the database to read and check. */
export const SEARCH_MAX_WORDS = 8;
/** Words shorter than this are short words. */
export const SHORT_WORD_LENGTH = 3;
/**
 * Most short words a search may have: the last word matches as a prefix, and a short one is the prefix of many
 * words (kept from the full-text indexes' days, when short words were a scan; see docs/api.md#search-limits).
 */
export const SEARCH_MAX_SHORT_WORDS = 3;

/** Why a search's words are refused, as the 400's rule and message; null when they are within the bounds. */
export function searchWordsProblem(words: string[]): { rule: string; message: string } | null {
  if (words.length > SEARCH_MAX_WORDS) {
    return { rule: 'maxWords', message: `search must have at most ${SEARCH_MAX_WORDS} words` };
  }
  const short = words.filter((word) => [...word].length < SHORT_WORD_LENGTH).length;
  if (short > SEARCH_MAX_SHORT_WORDS) {
    return {
      rule: 'maxShortWords',
      message: `search must have at most ${SEARCH_MAX_SHORT_WORDS} words shorter than ${SHORT_WORD_LENGTH} characters`,
    };
  }
  return null;
}

/** A search statement that outlived SEARCH_TIMEOUT_MS: a 500 envelope saying so (the API has no 503). */
export class SearchTimeoutException extends InternalServerErrorException {
  constructor(timeoutMs: number) {
    super(`The search took longer than ${timeoutMs} ms and was stopped: try more or longer words`);
  }
}

/** Adds `n` to the count of `key`. */
function add<K>(counts: Map<K, number>, key: K, n: number): void {
  counts.set(key, (counts.get(key) ?? 0) + n);
}

/** The option filters without the one of `name` (undefined when none is left). */
function optionsBut(options: OptionFilter[], name: string): OptionFilter[] | undefined {
  const others = options.filter((option) => option.name !== name);
  return others.length === 0 ? undefined : others;
}

/** Whether nothing but the products' visibility (`active`) filters besides the search's words. */
function onlyVisibility(filter: ProductListFilter): boolean {
  const { active: _active, searchWords: _words, ...others } = filter;
  return Object.values(others).every((value) => value === undefined);
}

/** What a filter's SQL is for: a page in relevance order, a page in another order, or the count. */
type SearchUse = 'relevance' | 'sorted' | 'count';

/** How long a term's counted postings are reused to choose a plan (the results never depend on them). */
const POSTINGS_COUNT_TTL_MS = 60_000;
/** Terms whose counts are remembered at most; the oldest is forgotten first. */
const MAX_POSTINGS_COUNTS = 10_000;

/** The FROM, WHERE and relevance of a filter, in one dialect; parameters in the order their text comes. */
interface FilterSql {
  /** A WITH clause the statement starts with, and its parameters (they come first). */
  with: string;
  withParams: unknown[];
  score: string;
  scoreParams: unknown[];
  from: string;
  fromParams: unknown[];
  where: string[];
  params: unknown[];
  /** The product's id in the inner statement (`p.id` unless the search reads no product row). */
  id: string;
  /** A search walking a word's postings: their index order replaces the requested one. */
  postingsOrder?: SearchSql['postingsOrder'];
  /** A count that read only its budget of the driver's postings (countBudget): at least what it counts. */
  lowerBound?: boolean;
}

/**
 * The port of the product list's reads: a page, a count and the facets of a filter, with or without search
 * words. ProductListQuery answers it from the database (the word index, src/products/product-search.ts); another
 * engine (OpenSearch, Meilisearch, …) can take its place under PRODUCT_SEARCH: docs/extending.md, "Replacing the
 * search", states the contract.
 */
export interface ProductSearch {
  page(filter: ProductListFilter, request: ProductPageRequest): Promise<ProductPage>;
  /** With `budgeted` false, a search's count is never cut at its budget (never `lowerBound`). */
  count(filter: ProductListFilter, options?: { budgeted: boolean }): Promise<ListCount>;
  facets(filter: ProductListFilter, asked: ProductFacet[]): Promise<ListFacets>;
}

export const PRODUCT_SEARCH = Symbol('ProductSearch');

/** A list's facets; `exact` false when some facet was counted over the first SEARCH_TOTAL_LIMIT matches only. */
export interface ListFacets {
  facets: ProductFacetsDto;
  exact: boolean;
}

/** A list's count; `lowerBound` when it stopped at its budget of postings (countBudget): at least `total`. */
export interface ListCount {
  total: number;
  lowerBound: boolean;
}

/**
 * The product list page and its count as fixed SQL per dialect (the hottest list of the service), mapped by
 * hand to the response. The page's ids are found in an index first (with the offset or after the cursor), then
 * only those rows are read: a deferred join (docs/benchmarks.md, "Queries and indexes"). A search reads
 * `product_words` with a plan per request (product-search.ts), each of its statements bounded by
 * SEARCH_TIMEOUT_MS, and its count stops at SEARCH_TOTAL_LIMIT + 1.
 */
@Injectable()
export class ProductListQuery implements ProductSearch {
  private readonly logger = new Logger('ProductSearch');
  private readonly mysql: boolean;
  private readonly search: AppConfig['search'];
  private readonly currency: string;
  private readonly postingCounts = new Map<string, { count: number; countedAt: number }>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly sqliteReader: SqliteReader,
    private readonly dictionary: SearchDictionary,
  ) {
    this.mysql = dataSource.options.type === 'mysql';
    this.search = config.search;
    this.currency = config.payments.currency;
  }

  /**
   * A search's statements run bounded by SEARCH_TIMEOUT_MS: on MySQL/MariaDB killed past it, on SQLite in the
   * reader's thread (so that they never hold up the event loop), answered at the deadline.
   */
  private async run<T>(filter: ProductListFilter, sql: string, params: unknown[]): Promise<T[]> {
    if (filter.searchWords === undefined) return this.dataSource.query<T[]>(sql, params);
    const timeoutMs = this.search.timeoutMs;
    try {
      return this.mysql
        ? await queryWithTimeout<T>(this.dataSource, sql, params, timeoutMs)
        : await this.sqliteReader.query<T>(sql, params, timeoutMs);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'PROTOCOL_SEQUENCE_TIMEOUT' || code === SQLITE_READER_TIMEOUT) {
        this.logger.warn({
          msg: 'Search statement stopped at SEARCH_TIMEOUT_MS',
          timeoutMs,
          words: filter.searchWords,
        });
        throw new SearchTimeoutException(timeoutMs);
      }
      throw error;
    }
  }

  async page(filter: ProductListFilter, request: ProductPageRequest): Promise<ProductPage> {
    const relevance = request.sort === 'relevance';
    const sql = await this.filterSql(
      filter,
      relevance ? 'relevance' : 'sorted',
      request.offset + request.limit + 1,
    );
    const descending = relevance || request.sort.startsWith('-');
    const field = relevance ? 'relevance' : request.sort.replace(/^-/, '');
    const direction = descending ? 'DESC' : 'ASC';
    const keyset: string[] = [];
    const keysetParams: unknown[] = [];
    if (request.after !== undefined) {
      const before = descending ? '<' : '>';
      if (field === 'id') {
        keyset.push(`p.id ${before} ?`);
        keysetParams.push(request.after.id);
      } else {
        const column = SORT_COLUMNS[field];
        keyset.push(`(${column} ${before} ? OR (${column} = ? AND p.id ${before} ?))`);
        const { value, id } = request.after;
        keysetParams.push(value, value, id);
      }
    }
    const sorted = relevance
      ? `score DESC, ${sql.id} ASC`
      : field === 'id'
        ? `p.id ${direction}`
        : `${SORT_COLUMNS[field]} ${direction}, p.id ${direction}`;
    const order = sql.postingsOrder?.inner ?? sorted;
    const outerOrder = sql.postingsOrder?.outer ?? (relevance ? 'page.score DESC, p.id ASC' : sorted);
    const columns = sql.postingsOrder === undefined ? '' : `, ${sql.postingsOrder.columns}`;
    const rows = await this.run<ProductRow>(
      filter,
      `${sql.with}SELECT ${COLUMNS} FROM ${this.withPage(
        `SELECT ${sql.id} AS id, ${sql.score} AS score${columns} ` +
          `FROM ${sql.from} WHERE ${[...sql.where, ...keyset].join(' AND ')} ` +
          `ORDER BY ${order} LIMIT ? OFFSET ?`,
      )} ORDER BY ${outerOrder}`,
      [
        ...sql.withParams,
        ...sql.scoreParams,
        ...sql.fromParams,
        ...sql.params,
        ...keysetParams,
        request.limit + 1,
        request.offset,
      ],
    );
    const more = rows.length > request.limit;
    const page = more ? rows.slice(0, request.limit) : rows;
    const last = page.at(-1);
    const products = await this.withImages(filter, page);
    if (!more || last === undefined) return { products, last: null };
    // created_at as the database's own text (SQLite keeps what was written, with or without milliseconds).
    const value =
      field === 'price'
        ? last.price_cents
        : field === 'name'
          ? last.name
          : field === 'created_at'
            ? typeof last.created_at === 'string'
              ? last.created_at
              : sqlDatetime(last.created_at)
            : undefined;
    return { products, last: { value, id: last.id } };
  }

  /**
   * The page's products joined to the statement that finds their ids. SQLite gets the page first by CROSS JOIN:
   * it would otherwise walk every product in the outer sort's index to skip the sort of the page's rows.
   */
  private withPage(inner: string): string {
    return this.mysql
      ? `products p INNER JOIN (${inner}) page ON page.id = p.id`
      : `(${inner}) page CROSS JOIN products p ON p.id = page.id`;
  }

  /** The rows as responses, with their images read in one statement for the page (none without images). */
  private async withImages(filter: ProductListFilter, rows: ProductRow[]): Promise<ProductResponseDto[]> {
    // `image` is the first image's path: a page of products without one needs no statement.
    const ids = rows.filter((row) => row.image !== '').map((row) => Number(row.id));
    if (ids.length === 0) return rows.map((row) => toProductResponse(productFromRow(row), [], this.currency));
    const imageRows = await this.run<{
      product_id: number | string;
      path: string;
      alt: string;
      position: number;
    }>(filter, imagesOf(ids.length), ids);
    const images = new Map<number, ProductImage[]>();
    for (const row of imageRows) {
      const id = Number(row.product_id);
      const list = images.get(id) ?? [];
      list.push({ url: row.path, alt: row.alt, position: Number(row.position) });
      images.set(id, list);
    }
    return rows.map((row) =>
      toProductResponse(productFromRow(row), images.get(Number(row.id)) ?? [], this.currency),
    );
  }

  /**
   * How many products the filter matches; for a search at most SEARCH_TOTAL_LIMIT + 1 (the statement stops
   * there): more than the limit is told by that.
   */
  async count(
    filter: ProductListFilter,
    options: { budgeted: boolean } = { budgeted: true },
  ): Promise<ListCount> {
    const words = filter.searchWords ?? [];
    if (words.length > 0 && onlyVisibility(filter)) {
      // Only the visibility besides the words: counted in the word index (the rank band of active products).
      const terms = await this.dictionary.withVariants(searchTerms(words));
      const counts = await this.termPostings(filter, terms);
      const cap = this.search.totalLimit + 1;
      const plan = searchPlan(counts, this.search.rankLimit, { relevance: true, fewProducts: false });
      const driver = driverOf(terms, counts);
      // A lone term's postings are not checked: its count stops at the cap by itself.
      const budget =
        options.budgeted && plan === 'postings' && terms.length > 1
          ? countBudget(this.search.rankLimit, counts[driver])
          : undefined;
      const { sql, params } = wordsCountSql(terms, plan, driver, {
        mysql: this.mysql,
        active: filter.active,
        cap,
        budget,
      });
      const [row] = await this.run<{ n: number | string }>(filter, sql, params);
      return { total: Number(row.n), lowerBound: budget !== undefined };
    }
    const sql = await this.filterSql(filter, 'count', 0, options.budgeted);
    const matches = `FROM ${sql.from} WHERE ${sql.where.join(' AND ')}`;
    const capped = filter.searchWords !== undefined && filter.searchWords.length > 0;
    const rows = await this.run<{ n: number | string }>(
      filter,
      capped
        ? `${sql.with}SELECT COUNT(*) AS n FROM (SELECT DISTINCT ${sql.id} ${matches} LIMIT ?) matches`
        : `${sql.with}SELECT COUNT(*) AS n ${matches}`,
      [...sql.withParams, ...sql.fromParams, ...sql.params, ...(capped ? [this.search.totalLimit + 1] : [])],
    );
    return { total: Number(rows[0].n), lowerBound: sql.lowerBound === true };
  }

  /**
   * The asked facets of the products the filter matches, each over the filter without its own part (the category
   * facet without the category, the price facet without the price bounds, each option name's values without
   * that option's filter). The ids of each such filter's matches are read once (at most SEARCH_TOTAL_LIMIT + 1;
   * the facets sharing a filter share them), then counted by primary key; `exact` is false when a filter had
   * more (its facets count the first SEARCH_TOTAL_LIMIT the database found).
   */
  async facets(filter: ProductListFilter, asked: ProductFacet[]): Promise<ListFacets> {
    const cap = this.search.totalLimit;
    const category = asked.includes('category_id');
    const price = asked.includes('price');
    /** Per filter (its JSON): the filter, the facets of the products' rows and the option names counted over it. */
    const over = new Map<string, { own: ProductListFilter; rows: ProductFacet[]; names: OptionNames[] }>();
    const count = (own: ProductListFilter, facet: ProductFacet, names?: OptionNames) => {
      const key = JSON.stringify(own);
      const entry = over.get(key) ?? { own, rows: [], names: [] };
      if (names === undefined) entry.rows.push(facet);
      else entry.names.push(names);
      over.set(key, entry);
    };
    if (category) count({ ...filter, categoryId: undefined, includeDescendants: undefined }, 'category_id');
    if (price) count({ ...filter, minCents: undefined, maxCents: undefined }, 'price');
    if (asked.includes('options')) {
      const filtered = filter.options ?? [];
      count(filter, 'options', { except: filtered.map((option) => option.name) });
      for (const option of filtered) {
        count({ ...filter, options: optionsBut(filtered, option.name) }, 'options', { only: option.name });
      }
    }
    const categories = new Map<number, number>();
    const buckets = new Map<number, number>();
    const options = new Map<string, Map<string, { value: string; count: number }>>();
    let exact = true;
    for (const { own, rows: facetsOfRows, names } of over.values()) {
      const ids = await this.facetMatches(own, cap);
      if (ids.length > cap) exact = false;
      const counted = ids.slice(0, cap);
      for (let start = 0; start < counted.length; start += FACET_ID_CHUNK) {
        const chunk = counted.slice(start, start + FACET_ID_CHUNK);
        if (facetsOfRows.length > 0) {
          const rows = await this.run<{
            category_id: number | string;
            bucket: number | string;
            n: number | string;
          }>(own, productFacetSql(chunk.length), chunk);
          for (const row of rows) {
            if (facetsOfRows.includes('category_id')) add(categories, Number(row.category_id), Number(row.n));
            if (facetsOfRows.includes('price')) add(buckets, Number(row.bucket), Number(row.n));
          }
        }
        for (const which of names) {
          const { sql, params } = optionFacetSql(chunk.length, which);
          const rows = await this.run<{ name: string; value_key: string; value: string; n: number | string }>(
            own,
            sql,
            [...chunk, ...params],
          );
          for (const row of rows) {
            const values = options.get(row.name) ?? new Map<string, { value: string; count: number }>();
            const known = values.get(row.value_key);
            values.set(row.value_key, {
              value: known === undefined || row.value < known.value ? row.value : known.value,
              count: (known?.count ?? 0) + Number(row.n),
            });
            options.set(row.name, values);
          }
        }
      }
    }
    const facets: ProductFacetsDto = {};
    if (category) facets.category_id = topValues(categories);
    if (price) {
      facets.price = [...buckets].sort(([a], [b]) => a - b).map(([bucket, n]) => priceBucketOf(bucket, n));
    }
    if (asked.includes('options')) {
      const names = [...options.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      facets.options = Object.fromEntries(
        names.map((name) => [
          name,
          topValues(new Map([...options.get(name)!.values()].map((v) => [v.value, v.count]))),
        ]),
      );
    }
    return { facets, exact };
  }

  /** The ids of the filter's matches, at most `cap` + 1, in the order the database finds them. */
  private async facetMatches(filter: ProductListFilter, cap: number): Promise<number[]> {
    const sql = await this.filterSql(filter, 'count');
    const rows = await this.run<{ id: number | string }>(
      filter,
      // A search's driver may list a product once per word it matches.
      `${sql.with}SELECT ${filter.searchWords === undefined ? '' : 'DISTINCT '}${sql.id} AS id ` +
        `FROM ${sql.from} WHERE ${sql.where.join(' AND ')} LIMIT ?`,
      [...sql.withParams, ...sql.fromParams, ...sql.params, cap + 1],
    );
    return rows.map((row) => Number(row.id));
  }

  /**
   * The filter's SQL for a page in relevance order, a page in another order, or a count; `pageRows` is how many
   * rows a page needs (offset + limit + 1).
   */
  private async filterSql(
    filter: ProductListFilter,
    use: SearchUse,
    pageRows = 0,
    budgeted = false,
  ): Promise<FilterSql> {
    const sql: FilterSql = {
      with: '',
      withParams: [],
      id: 'p.id',
      score: '0',
      scoreParams: [],
      from: 'products p',
      fromParams: [],
      where: ['p.deleted_at IS NULL'],
      params: [],
    };
    // Literal 1/0: both databases store the flag so, and the list indexes start with is_active.
    if (filter.active !== undefined) sql.where.push(`p.is_active = ${filter.active ? 1 : 0}`);
    if (filter.categoryId !== undefined && filter.includeDescendants === true) {
      sql.with = `${CATEGORY_SUBTREE_CTE} `;
      sql.withParams.push(filter.categoryId);
      sql.where.push('p.category_id IN (SELECT id FROM category_subtree)');
    } else if (filter.categoryId !== undefined) {
      sql.where.push('p.category_id = ?');
      sql.params.push(filter.categoryId);
    }
    if (filter.minCents !== undefined) {
      sql.where.push('p.price_cents >= ?');
      sql.params.push(filter.minCents);
    }
    if (filter.maxCents !== undefined) {
      sql.where.push('p.price_cents <= ?');
      sql.params.push(filter.maxCents);
    }
    if (filter.inStock !== undefined) sql.where.push(filter.inStock ? 'p.stock > 0' : 'p.stock = 0');
    if (filter.maxStock !== undefined) {
      sql.where.push('p.stock <= ?');
      sql.params.push(filter.maxStock);
    }
    if (filter.slug !== undefined) {
      sql.where.push('p.slug = ?');
      sql.params.push(filter.slug);
    }
    if (filter.ids !== undefined) {
      sql.where.push(`p.id IN (${placeholders(filter.ids.length)})`);
      sql.params.push(...filter.ids);
    }
    for (const option of filter.options ?? []) {
      // Read in the option values' index (name, value_key, product_id), never in the products' options.
      sql.where.push(
        'p.id IN (SELECT v.product_id FROM product_option_values v ' +
          `WHERE v.name = ? AND v.value_key IN (${placeholders(option.keys.length)}))`,
      );
      sql.params.push(option.name, ...option.keys);
    }
    if (filter.searchWords !== undefined) {
      if (filter.searchWords.length === 0) sql.where.push('1 = 0');
      else await this.addSearch(sql, filter, use, pageRows, budgeted);
    }
    return sql;
  }

  /**
   * The search's plan from its terms' postings (counted as termPostings says) and its SQL added to the
   * filter's. A count walks postings like a relevance page: the products plan would walk every product.
   */
  private async addSearch(
    sql: FilterSql,
    filter: ProductListFilter,
    use: SearchUse,
    pageRows: number,
    budgeted: boolean,
  ): Promise<void> {
    const terms = await this.dictionary.withVariants(searchTerms(filter.searchWords!));
    const counts = await this.termPostings(filter, terms);
    const fewProducts = filter.ids !== undefined || filter.slug !== undefined;
    const plan = searchPlan(counts, this.search.rankLimit, { relevance: use !== 'sorted', fewProducts });
    const score = use === 'relevance';
    const driver = driverOf(terms, counts);
    // A count checks each of its driver's postings against the filter (and the other terms): a budget of them.
    let budget: number | undefined;
    if (budgeted && use === 'count' && plan === 'postings') {
      const driverPostings =
        terms.length > 1
          ? counts[driver]
          : await this.postingsCount(filter, terms[driver], budgetPostings(this.search.rankLimit));
      budget = countBudget(this.search.rankLimit, driverPostings);
    }
    sql.lowerBound = budget !== undefined;
    const search = searchSql(terms, plan, driver, {
      budget,
      distinct: use === 'count',
      mysql: this.mysql,
      score,
      active: filter.active,
      wordsOnly: onlyVisibility(filter),
      page: score ? { rows: pageRows, where: sql.where, params: sql.params } : undefined,
    });
    sql.from = search.productsFirst ? `products p${search.from}` : search.from;
    sql.fromParams = search.fromParams;
    // Reading no product row, the filter's conditions are in the rank band (the visibility) or in the search's
    // own statements.
    if (search.wordsOnly) {
      sql.where = [];
      sql.params = [];
    }
    sql.where.push(...search.where);
    sql.params.push(...search.whereParams);
    sql.id = search.id;
    sql.score = search.score;
    sql.scoreParams = search.scoreParams;
    sql.postingsOrder = search.postingsOrder;
  }

  /** The terms' postings counted (termPostings), each count remembered for a minute: they only choose the plan. */
  private termPostings(filter: ProductListFilter, terms: SearchTerm[]): Promise<number[]> {
    return termPostings(terms, this.search.rankLimit, (term, cap) => this.postingsCount(filter, term, cap));
  }

  private async postingsCount(filter: ProductListFilter, term: SearchTerm, cap: number): Promise<number> {
    const key = `${cap}${termKey(term)}`;
    const now = Date.now();
    const known = this.postingCounts.get(key);
    if (known !== undefined && now - known.countedAt < POSTINGS_COUNT_TTL_MS) return known.count;
    const { sql, params } = postingsCountSql(term, cap);
    const [row] = await this.run<{ n: number | string }>(filter, sql, params);
    this.postingCounts.delete(key);
    this.postingCounts.set(key, { count: Number(row.n), countedAt: now });
    if (this.postingCounts.size > MAX_POSTINGS_COUNTS) {
      this.postingCounts.delete(this.postingCounts.keys().next().value as string);
    }
    return Number(row.n);
  }
}
