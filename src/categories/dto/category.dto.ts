import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';
import { PageQueryDto } from '../../common/pagination.js';
import { ToInteger } from '../../common/query-transforms.js';
import { CodePointLength, Optional } from '../../common/validation.js';
import type { Category } from '../category.entity.js';

/** Letters and digits in runs joined by single hyphens: `desk-lamps`, `tshirts-2`. */
export const SLUG = /^[A-Za-z0-9]+(-[A-Za-z0-9]+)*$/;
export const SLUG_MAX_LENGTH = 120;

export class CreateCategoryDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Desk lamps' })
  @IsString()
  @CodePointLength(1, 200)
  name: string;

  @ApiPropertyOptional({
    maxLength: SLUG_MAX_LENGTH,
    example: 'desk-lamps',
    description:
      'ASCII letters and digits in runs joined by single hyphens; unique ignoring case among categories not ' +
      'deleted. Generated from the name when not given (lower case, a numeric suffix when taken).',
  })
  @Optional()
  @IsString()
  @CodePointLength(1, SLUG_MAX_LENGTH)
  @Matches(SLUG, { message: 'slug must be ASCII letters and digits in runs joined by single hyphens' })
  slug?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    nullable: true,
    example: 2,
    description: 'The parent category; null or absent for a top-level category',
  })
  @ValidateIf((_object, value) => value !== undefined && value !== null)
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  parent_id?: number | null;

  // Defaults in descriptions, not as `default`: typed clients read a default as a field always sent, and a PUT
  // (the partial type of this one) leaves an absent field as it is.
  @ApiPropertyOptional({
    maxLength: 5000,
    example: 'Lamps for the desk and the workshop',
    description: 'Default "" on create',
  })
  @Optional()
  @IsString()
  @CodePointLength(0, 5000)
  description?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 1_000_000,
    example: 1,
    description: 'Default 0 on create',
  })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  position?: number;

  @ApiPropertyOptional({
    example: true,
    description: 'Inactive categories are shown to admins only; default true on create',
  })
  @Optional()
  @IsBoolean()
  is_active?: boolean;
}

export class UpdateCategoryDto extends PartialType(CreateCategoryDto, { skipNullProperties: false }) {}

export class CategoryListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    description: 'Children of this category; 0 for the top-level categories',
  })
  @Optional()
  @ToInteger()
  @IsInt()
  @Min(0)
  @Max(2_147_483_647)
  parent_id?: number;

  @ApiPropertyOptional({ maxLength: SLUG_MAX_LENGTH, description: 'Exact slug, ignoring case' })
  @Optional()
  @IsString()
  @CodePointLength(1, SLUG_MAX_LENGTH)
  slug?: string;
}

export class CategoryResponseDto {
  @ApiProperty({ type: 'integer', example: 3 }) id: number;
  @ApiProperty({ example: 'Desk lamps' }) name: string;
  @ApiProperty({ example: 'desk-lamps' }) slug: string;
  @ApiProperty({ type: 'integer', nullable: true, example: 2 }) parent_id: number | null;
  @ApiProperty({ example: 'Lamps for the desk and the workshop' }) description: string;
  @ApiProperty({ type: 'integer', example: 1 }) position: number;
  @ApiProperty({ example: true }) is_active: boolean;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) created_at: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) updated_at: string;
}

export function toCategoryResponse(category: Category): CategoryResponseDto {
  return {
    id: category.id,
    name: category.name,
    slug: category.slug,
    parent_id: category.parentId === null ? null : Number(category.parentId),
    description: category.description,
    position: Number(category.position),
    is_active: Boolean(category.isActive),
    created_at: category.createdAt.toISOString(),
    updated_at: category.updatedAt.toISOString(),
  };
}
