import { ApiPropertyOptional } from '@nestjs/swagger';
import { ToInteger } from './query-transforms.js';
import { IsInt, IsString, Max, Min } from 'class-validator';
import { CodePointLength, fieldError, Optional } from './validation.js';

/** `page` and `page_size`, shared by every list endpoint. */
export class PageQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, default: 1, example: 1 })
  @Optional()
  @ToInteger()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  page: number = 1;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    default: 10,
    example: 10,
    description: 'At most PAGE_SIZE_MAX (100)',
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
