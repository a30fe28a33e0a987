import { ApiPropertyOptional } from '@nestjs/swagger';
import { ToInteger } from './query-transforms.js';
import { IsInt, IsString, Max, Min } from 'class-validator';
import { CodePointLength, fieldError, Optional } from './validation.js';

/** `page` and `page_size`, shared by every list endpoint. */
export class PageQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, example: 1, description: 'Default: 1' })
  @Optional()
  @ToInteger()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  page: number = 1;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    example: 10,
    description: 'Default: 10; at most PAGE_SIZE_MAX (100)',
  })
  @Optional()
  @ToInteger()
  @IsInt()
  @Min(1)
  page_size: number = 10;
}

/** A list with a free-text `search` besides the page. */
export class SearchPageQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ maxLength: 100, description: 'Case-insensitive substring; % and _ match literally' })
  @Optional()
  @IsString()
  @CodePointLength(0, 100)
  search?: string;
}

export interface PageWindow {
  page: number;
  pageSize: number;
  skip: number;
}

/** Checks `page_size` against PAGE_SIZE_MAX (a setting, so not a static decorator) and gives the offset. */
export function pageWindow(query: PageQueryDto, pageSizeMax: number): PageWindow {
  if (query.page_size > pageSizeMax) {
    throw fieldError('page_size', 'max', `page_size must not be greater than ${pageSizeMax}`);
  }
  return { page: query.page, pageSize: query.page_size, skip: (query.page - 1) * query.page_size };
}

/** The escape character used with LIKE; `!` behaves the same in SQLite and MySQL string literals. */
export const LIKE_ESCAPE = '!';

/** A `%term%` LIKE pattern in which the user's `%`, `_` and `!` match themselves. */
export function containsPattern(term: string): string {
  return `%${term.replace(/[!%_]/g, (c) => LIKE_ESCAPE + c)}%`;
}

/** Where a keyset page starts: after the row with this sort value (absent for an id sort) and id. */
export interface CursorPosition {
  value?: number | string;
  id: number;
}

/** An opaque cursor (base64url JSON) naming the sort it belongs to and the last row's sort value and id. */
export function encodeCursor(sort: string, position: CursorPosition): string {
  return Buffer.from(JSON.stringify({ s: sort, v: position.value, i: position.id })).toString('base64url');
}

/**
 * The position in a `cursor` made by encodeCursor for `sort`; 400 naming `cursor` for anything else (garbage,
 * another sort's cursor, a value of the wrong type per `isValue`).
 */
export function decodeCursor(
  raw: string,
  sort: string,
  isValue: (value: unknown) => value is number | string | undefined,
): CursorPosition {
  let decoded: unknown;
  try {
    decoded = /^[A-Za-z0-9_-]{1,1024}$/.test(raw)
      ? JSON.parse(Buffer.from(raw, 'base64url').toString())
      : null;
  } catch {
    decoded = null;
  }
  const cursor = decoded as { s?: unknown; v?: unknown; i?: unknown } | null;
  if (
    typeof cursor !== 'object' ||
    cursor === null ||
    typeof cursor.s !== 'string' ||
    !Number.isSafeInteger(cursor.i) ||
    (cursor.i as number) < 1
  ) {
    throw fieldError('cursor', 'cursor', 'cursor must be a next_cursor returned by this list');
  }
  if (cursor.s !== sort) {
    throw fieldError(
      'cursor',
      'cursorSort',
      `cursor belongs to sort=${cursor.s.slice(0, 20)}, not sort=${sort}`,
    );
  }
  if (!isValue(cursor.v)) {
    throw fieldError('cursor', 'cursor', 'cursor must be a next_cursor returned by this list');
  }
  return { value: cursor.v as number | string | undefined, id: cursor.i as number };
}
