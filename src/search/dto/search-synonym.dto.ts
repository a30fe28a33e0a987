import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsString, ValidateIf } from 'class-validator';
import { CodePointLength } from '../../common/validation.js';
import type { SearchSynonym } from '../search-synonym.entity.js';

export const WORDS_MIN = 2;
export const WORDS_MAX = 20;
export const WORD_MAX_LENGTH = 64;

export class CreateSearchSynonymDto {
  @ApiProperty({
    type: 'array',
    items: { type: 'string', minLength: 1, maxLength: WORD_MAX_LENGTH },
    minItems: WORDS_MIN,
    maxItems: WORDS_MAX,
    example: ['T-shirt', 'tee', 'top'],
    description:
      'Each one search word: letters, digits and `_`, with hyphens or apostrophes between them (`t-shirt` is ' +
      'the word `tshirt`); a space or other separator is 400 rule `singleWord`. Distinct once normalized (case and ' +
      'accents ignored; 400 rule `unique`). Errors about one word name it as `words.<index>`.',
  })
  @IsArray()
  @ArrayMinSize(WORDS_MIN)
  @ArrayMaxSize(WORDS_MAX)
  @IsString({ each: true })
  words: string[];

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    minLength: 1,
    maxLength: WORD_MAX_LENGTH,
    example: 'tee',
    description:
      'One of `words` (compared normalized; 400 rule `oneOfWords` otherwise): only a search for it also finds the ' +
      'other words, which do not find it nor each other. Null or absent: every word finds the others.',
  })
  @ValidateIf((_object, value) => value !== undefined && value !== null)
  @IsString()
  @CodePointLength(1, WORD_MAX_LENGTH)
  one_way_from?: string | null;
}

export class UpdateSearchSynonymDto extends PartialType(CreateSearchSynonymDto, {
  skipNullProperties: false,
}) {}

export class SearchSynonymResponseDto {
  @ApiProperty({ type: 'integer', example: 3 }) id: number;
  @ApiProperty({ type: [String], example: ['T-shirt', 'tee', 'top'], description: 'As written' })
  words: string[];
  @ApiProperty({ type: 'string', nullable: true, example: 'tee', description: 'As written; null: two-way' })
  one_way_from: string | null;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) created_at: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) updated_at: string;
}

export function toSearchSynonymResponse(synonym: SearchSynonym): SearchSynonymResponseDto {
  return {
    id: synonym.id,
    words: synonym.words,
    one_way_from: synonym.oneWayFrom,
    created_at: synonym.createdAt.toISOString(),
    updated_at: synonym.updatedAt.toISOString(),
  };
}
