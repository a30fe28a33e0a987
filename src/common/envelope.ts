import { STATUS_CODES } from 'node:http';

export interface PageMeta {
  /** null on a page fetched by `cursor`. */
  page: number | null;
  page_size: number;
  total: number;
  /** Searches: whether `total` is the exact count (false: there are more than `total`, SEARCH_TOTAL_LIMIT). */
  total_exact?: boolean;
  total_page: number;
  /** Lists with keyset pagination: the `cursor` of the next page, null on the last one. */
  next_cursor?: string | null;
  /** The product list with `facets`: the matching products counted per value, and whether exactly. */
  facets?: object;
  facets_exact?: boolean;
}

export interface Envelope<T = unknown> {
  code: number;
  message: string;
  data: T;
  meta?: PageMeta;
}

/** A page of a list; the envelope interceptor turns it into `data` (the items) and `meta`. */
export class Paginated<T> {
  readonly meta: PageMeta;

  constructor(
    readonly items: T[],
    total: number,
    page: number | null,
    pageSize: number,
    nextCursor?: string | null,
    totalExact?: boolean,
  ) {
    const exact = totalExact === undefined ? {} : { total_exact: totalExact };
    this.meta = { page, page_size: pageSize, total, ...exact, total_page: Math.ceil(total / pageSize) };
    if (nextCursor !== undefined) this.meta.next_cursor = nextCursor;
  }
}

export function statusMessage(code: number): string {
  return STATUS_CODES[code] ?? 'Error';
}
