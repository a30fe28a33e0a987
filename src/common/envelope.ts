import { STATUS_CODES } from 'node:http';

export interface PageMeta {
  page: number;
  page_size: number;
  total: number;
  total_page: number;
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
    page: number,
    pageSize: number,
  ) {
    this.meta = { page, page_size: pageSize, total, total_page: Math.ceil(total / pageSize) };
  }
}

export function statusMessage(code: number): string {
  return STATUS_CODES[code] ?? 'Error';
}
