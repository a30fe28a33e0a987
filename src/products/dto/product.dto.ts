import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsObject,
  ValidateNested,
  IsIn,
  IsInt,
  IsString,
  Matches,
  Max,
  Min,
  ValidateBy,
  buildMessage,
} from 'class-validator';
import { SearchPageQueryDto } from '../../common/pagination.js';
import { ToBoolean, ToInteger } from '../../common/query-transforms.js';
import type { Product } from '../product.entity.js';
import { Optional, CodePointLength } from '../../common/validation.js';

export const PRICE_MAX = 9_999_999.99;

/** A finite number with at most 2 decimal places (19.99 and 0.1 pass; 0.001 and 1e-7 do not). */
export const IsMoney = () =>
  ValidateBy({
    name: 'isMoney',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'number' &&
        Number.isFinite(value) &&
        Math.abs(value * 100 - Math.round(value * 100)) < 1e-6,
      defaultMessage: buildMessage(
        (prefix) => `${prefix}$property must be a number with at most 2 decimal places`,
      ),
    },
  });

/** A path returned by POST /upload (YYYY/MM/<random>.<ext>), or "" for no image. */
export const IMAGE_PATH = /^$|^\d{4}\/\d{2}\/[A-Za-z0-9_-]{8,64}\.[a-z0-9]{2,5}$/;

export const MAX_OPTIONS = 3;
export const MAX_OPTION_VALUES = 100;

export class ProductOptionDto {
  @ApiProperty({ minLength: 1, maxLength: 50, example: 'Size' })
  @IsString()
  @CodePointLength(1, 50)
  name: string;

  @ApiProperty({
    type: [String],
    minItems: 1,
    maxItems: MAX_OPTION_VALUES,
    example: ['S', 'M', 'L'],
    description: 'Each 1 to 50 characters',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_OPTION_VALUES)
  @IsString({ each: true })
  values: string[];
}

export class CreateProductDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Espresso cup' })
  @IsString()
  @CodePointLength(1, 200)
  name: string;

  @ApiPropertyOptional({ maxLength: 5000, default: '', example: 'Porcelain, 90 ml' })
  @Optional()
  @IsString()
  @CodePointLength(0, 5000)
  description?: string;

  @ApiProperty({ minimum: 0.01, maximum: PRICE_MAX, example: 19.99, description: 'At most 2 decimal places' })
  @IsMoney()
  @Min(0.01)
  @Max(PRICE_MAX)
  price: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: 1_000_000_000, default: 0, example: 25 })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(1_000_000_000)
  stock?: number;

  @ApiProperty({ type: 'integer', minimum: 1, example: 3 })
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  category_id: number;

  @ApiPropertyOptional({
    type: [ProductOptionDto],
    maxItems: MAX_OPTIONS,
    description:
      'Options its variants choose from. Names unique ignoring case; values unique ignoring case within an ' +
      'option. With live variants, every one of them must still match (values may be added or reordered).',
  })
  @Optional()
  @IsArray()
  @ArrayMaxSize(MAX_OPTIONS)
  @IsObject({ each: true, message: 'each value in options must be an object {name, values}' })
  @ValidateNested({ each: true })
  @Type(() => ProductOptionDto)
  options?: ProductOptionDto[];
}

export class UpdateProductDto extends PartialType(CreateProductDto, { skipNullProperties: false }) {
  @ApiPropertyOptional({
    example: '2026/11/9f86d081884c7d65.png',
    description: 'A path returned by POST /upload, or ""',
  })
  @Optional()
  @IsString()
  @Matches(IMAGE_PATH, { message: 'image must be a path returned by /upload (YYYY/MM/name.ext) or ""' })
  image?: string;

  @ApiPropertyOptional({ example: true })
  @Optional()
  @IsBoolean()
  is_active?: boolean;
}

export const PRODUCT_SORTS = [
  'id',
  '-id',
  'price',
  '-price',
  'name',
  '-name',
  'created_at',
  '-created_at',
] as const;
export type ProductSort = (typeof PRODUCT_SORTS)[number];
/** The list's orders: the sorts, and relevance to a search (best first, ties by id). */
export const PRODUCT_LIST_SORTS = [...PRODUCT_SORTS, 'relevance'] as const;
export type ProductListSort = (typeof PRODUCT_LIST_SORTS)[number];

/** A decimal query value with at most 2 places; anything else stays a string and fails @IsMoney. */
const ToMoney = () =>
  Transform(({ value }) =>
    typeof value === 'string' && /^\d{1,7}(\.\d{1,2})?$/.test(value) ? Number(value) : value,
  );

export class ProductListQueryDto extends SearchPageQueryDto {
  // The rules are SearchPageQueryDto's; only the description differs (full-text words, not a substring).
  @ApiPropertyOptional({
    maxLength: 100,
    description:
      'Full-text: every word (letters, digits, _) must match a word of the name or description, the last word as ' +
      'a prefix; case and accents are ignored; other characters only separate words (never operators, never ' +
      'wildcards). A search with no word matches nothing; an empty one is no filter.',
  })
  search?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1 })
  @Optional()
  @ToInteger()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  category_id?: number;

  @ApiPropertyOptional({ minimum: 0, description: 'Decimal, at most 2 places' })
  @Optional()
  @ToMoney()
  @IsMoney()
  @Min(0)
  min_price?: number;

  @ApiPropertyOptional({ minimum: 0, description: 'Decimal, at most 2 places' })
  @Optional()
  @ToMoney()
  @IsMoney()
  @Min(0)
  max_price?: number;

  @ApiPropertyOptional({ description: 'true: stock > 0; false: stock = 0' })
  @Optional()
  @ToBoolean()
  @IsBoolean()
  in_stock?: boolean;

  @ApiPropertyOptional({ description: 'Admins only' })
  @Optional()
  @ToBoolean()
  @IsBoolean()
  is_active?: boolean;

  @ApiPropertyOptional({
    enum: PRODUCT_LIST_SORTS,
    description:
      'Field to order by; a leading - sorts descending. Ties are broken by id (in the same direction). ' +
      '`relevance` (only with `search`, and its default; otherwise `id` is): best match first, ties by id ascending.',
  })
  @Optional()
  @IsIn(PRODUCT_LIST_SORTS)
  sort?: ProductListSort;

  @ApiPropertyOptional({
    maxLength: 1024,
    description:
      'Keyset pagination: the `meta.next_cursor` of the previous page (same sort and filters); the page after ' +
      'it, read in constant time however deep. `page` is then ignored. Not available with sort=relevance.',
  })
  @Optional()
  @IsString()
  @CodePointLength(1, 1024)
  cursor?: string;
}

export class ProductResponseDto {
  @ApiProperty({ type: 'integer', example: 12 }) id: number;
  @ApiProperty({ example: 'Espresso cup' }) name: string;
  @ApiProperty({ example: 'Porcelain, 90 ml' }) description: string;
  @ApiProperty({ example: 19.99 }) price: number;
  @ApiProperty({ type: 'integer', example: 25 }) stock: number;
  @ApiProperty({ type: 'integer', example: 3 }) category_id: number;
  @ApiProperty({ example: '', description: 'Path returned by /upload, "" when none' }) image: string;
  @ApiProperty({ example: true }) is_active: boolean;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) created_at: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) updated_at: string;
}

export function toProductResponse(product: Product): ProductResponseDto {
  return {
    id: product.id,
    name: product.name,
    description: product.description,
    price: product.priceCents / 100,
    stock: product.stock,
    category_id: product.categoryId,
    image: product.image,
    is_active: Boolean(product.isActive),
    created_at: product.createdAt.toISOString(),
    updated_at: product.updatedAt.toISOString(),
  };
}

/** Exact cents from a validated price (at most 2 decimals): 19.99 -> 1999, 0.1 -> 10. */
export function toCents(price: number): number {
  return Math.round(price * 100);
}
