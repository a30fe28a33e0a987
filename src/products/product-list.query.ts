import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { CursorPosition } from '../common/pagination.js';
import { CATEGORY_SUBTREE_CTE } from '../categories/category-directory.js';
import { SqliteReader } from '../database/sqlite-reader.js';
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

/** What a product list filters on; `search` is already split into words (searchWords). */
export interface ProductListFilter {
  active?: boolean;
  categoryId?: number;
  /** With categoryId: the category and every category below it. */
  includeDescendants?: boolean;
  minCents?: number;
  maxCents?: number;
  inStock?: boolean;
  searchWords?: string[];
  slug?: string;
  ids?: number[];
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
  /** A search's matches in all, counted with the page (when it is by `page` and not empty). */
  matched?: number;
}

const SORT_COLUMNS: Record<string, string> = {
  id: 'p.id',
  price: 'p.price_cents',
  name: 'p.name',
  created_at: 'p.created_at',
};
const COLUMNS = PRODUCT_COLUMNS.join(', ');

/** The words of a search: runs of letters (with their combining marks), digits and `_`; all else separates them. */
export function searchWords(search: string): string[] {
  return search.match(/[\p{L}\p{M}\p{N}_]+/gu) ?? [];
}

/** Most words a search may have: each is one more list of matches for the database to read and intersect. */
export const SEARCH_MAX_WORDS = 8;
/** Words shorter than this (InnoDB's default innodb_ft_min_token_size) are short words. */
export const SHORT_WORD_LENGTH = 3;
/**
 * Most short words a search may have. On MySQL/MariaDB each is a regular expression on every row the other
 * words found, or on every visible product when the search has only short words (one scan, with at most
 * this many expressions per row).
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

/** The FROM, WHERE and relevance of a filter, in one dialect. */
interface FilterSql {
  /** A WITH clause the statement starts with, and its parameters (they come first). */
  with: string;
  withParams: unknown[];
  from: string;
  where: string[];
  params: unknown[];
  score: string;
  scoreParams: unknown[];
}

/**
 * The product list page and its count as fixed SQL per dialect (the hottest list of the service), mapped by
 * hand to the response. The page's ids are found in an index first (with the offset or after the cursor), then
 * only those rows are read: a deferred join (docs/benchmarks.md, "Queries and indexes").
 */
@Injectable()
export class ProductListQuery {
  private readonly mysql: boolean;
  private minTokenSize: Promise<number> | undefined;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sqliteReader: SqliteReader,
  ) {
    this.mysql = dataSource.options.type === 'mysql';
  }

  /** A search's statements on SQLite run in the reader's thread, so that they never hold up the event loop. */
  private run<T>(filter: ProductListFilter, sql: string, params: unknown[]): Promise<T[]> {
    return !this.mysql && filter.searchWords !== undefined
      ? this.sqliteReader.query<T>(sql, params)
      : this.dataSource.query<T[]>(sql, params);
  }

  async page(filter: ProductListFilter, request: ProductPageRequest): Promise<ProductPage> {
    const { with: cte, withParams, from, where, params, score, scoreParams } = await this.filterSql(filter);
    const relevance = request.sort === 'relevance';
    const descending = relevance || request.sort.startsWith('-');
    const field = relevance ? 'relevance' : request.sort.replace(/^-/, '');
    const direction = descending ? 'DESC' : 'ASC';
    const keyset: string[] = [];
    if (request.after !== undefined) {
      const before = descending ? '<' : '>';
      if (field === 'id') {
        keyset.push(`p.id ${before} ?`);
        params.push(request.after.id);
      } else {
        const column = SORT_COLUMNS[field];
        keyset.push(`(${column} ${before} ? OR (${column} = ? AND p.id ${before} ?))`);
        const { value, id } = request.after;
        params.push(value, value, id);
      }
    }
    const order = relevance
      ? 'score DESC, p.id ASC'
      : field === 'id'
        ? `p.id ${direction}`
        : `${SORT_COLUMNS[field]} ${direction}, p.id ${direction}`;
    const outerOrder = relevance ? 'page.score DESC, p.id ASC' : order;
    // On MySQL/MariaDB a search counts its matches in the same statement, so the full-text index is read once,
    // not again by count(). After a cursor the statement sees only the matches past it: counted apart. (SQLite
    // refuses bm25() beside a window function; its searches are counted apart.)
    const countMatches = this.mysql && filter.searchWords !== undefined && request.after === undefined;
    const rows = await this.run<ProductRow & { matched?: number | string }>(
      filter,
      `${cte}SELECT ${COLUMNS}${countMatches ? ', page.matched' : ''} FROM products p INNER JOIN (` +
        `SELECT p.id AS id, ${score} AS score${countMatches ? ', COUNT(*) OVER () AS matched' : ''} ` +
        `FROM ${from} WHERE ${[...where, ...keyset].join(' AND ')} ` +
        `ORDER BY ${order} LIMIT ? OFFSET ?` +
        `) page ON page.id = p.id ORDER BY ${outerOrder}`,
      [...withParams, ...scoreParams, ...params, request.limit + 1, request.offset],
    );
    const more = rows.length > request.limit;
    const page = more ? rows.slice(0, request.limit) : rows;
    const last = page.at(-1);
    const matched = countMatches && rows.length > 0 ? Number(rows[0].matched) : undefined;
    const products = await this.withImages(filter, page);
    if (!more || last === undefined) return { products, last: null, matched };
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
    return { products, last: { value, id: last.id }, matched };
  }

  /** The rows as responses, with their images read in one statement for the page (none without images). */
  private async withImages(filter: ProductListFilter, rows: ProductRow[]): Promise<ProductResponseDto[]> {
    // `image` is the first image's path: a page of products without one needs no statement.
    const ids = rows.filter((row) => row.image !== '').map((row) => Number(row.id));
    if (ids.length === 0) return rows.map((row) => toProductResponse(productFromRow(row), []));
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
    return rows.map((row) => toProductResponse(productFromRow(row), images.get(Number(row.id)) ?? []));
  }

  async count(filter: ProductListFilter): Promise<number> {
    const { with: cte, withParams, from, where, params } = await this.filterSql(filter);
    const rows = await this.run<{ n: number | string }>(
      filter,
      `${cte}SELECT COUNT(*) AS n FROM ${from} WHERE ${where.join(' AND ')}`,
      [...withParams, ...params],
    );
    return Number(rows[0].n);
  }

  private async filterSql(filter: ProductListFilter): Promise<FilterSql> {
    const sql: FilterSql = {
      with: '',
      withParams: [],
      from: 'products p',
      where: ['p.deleted_at IS NULL'],
      params: [],
      score: '0',
      scoreParams: [],
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
    if (filter.slug !== undefined) {
      sql.where.push('p.slug = ?');
      sql.params.push(filter.slug);
    }
    if (filter.ids !== undefined) {
      sql.where.push(`p.id IN (${placeholders(filter.ids.length)})`);
      sql.params.push(...filter.ids);
    }
    if (filter.searchWords !== undefined) {
      if (filter.searchWords.length === 0) sql.where.push('1 = 0');
      else if (this.mysql) await this.mysqlSearch(sql, filter.searchWords);
      else this.sqliteSearch(sql, filter.searchWords);
    }
    return sql;
  }

  /**
   * FTS5 (name, description and search_text, the variants' SKUs and titles): every word as a quoted string (so nothing in it is an operator), the last one as a prefix; the
   * relevance is BM25 (lower is better in SQLite, so negated).
   */
  private sqliteSearch(sql: FilterSql, words: string[]): void {
    sql.from = 'products p INNER JOIN products_fts ON products_fts.rowid = p.id';
    sql.where.push('products_fts MATCH ?');
    sql.params.push(words.map((word, i) => `"${word}"${i === words.length - 1 ? '*' : ''}`).join(' '));
    sql.score = '-bm25(products_fts)';
  }

  /**
   * InnoDB FULLTEXT over name, description and search_text (the variants' SKUs and titles) in boolean mode: `+word` for every word (the last `+word*`). Words have no operator
   * characters (searchWords). InnoDB does not index words shorter than innodb_ft_min_token_size (3 by default),
   * so those are matched as whole words (the last as a word prefix) with REGEXP, on the rows the indexed words
   * found; a search made only of such words reads every visible row.
   */
  private async mysqlSearch(sql: FilterSql, words: string[]): Promise<void> {
    const minTokenSize = await this.mysqlMinTokenSize();
    const terms: string[] = [];
    words.forEach((word, i) => {
      const last = i === words.length - 1;
      if ([...word].length >= minTokenSize) {
        terms.push(`+${word}${last ? '*' : ''}`);
      } else {
        sql.where.push(`CONCAT_WS(' ', p.name, p.description, p.search_text) REGEXP ?`);
        sql.params.push(`\\b${word}${last ? '' : '\\b'}`);
      }
    });
    if (terms.length === 0) return;
    const match = 'MATCH (p.name, p.description, p.search_text) AGAINST (? IN BOOLEAN MODE)';
    // The MATCH in the select list is evaluated once with the one in WHERE, when both are written alike.
    sql.where.unshift(match);
    sql.params.unshift(terms.join(' '));
    sql.score = match;
    sql.scoreParams = [terms.join(' ')];
  }

  private mysqlMinTokenSize(): Promise<number> {
    this.minTokenSize ??= this.dataSource
      .query('SELECT @@innodb_ft_min_token_size AS size')
      .then((rows: Array<{ size: number | string }>) => Number(rows[0].size));
    return this.minTokenSize;
  }
}
