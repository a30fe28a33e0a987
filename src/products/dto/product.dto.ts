import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { IsMoney } from '../../common/money.js';
import { SearchPageQueryDto } from '../../common/pagination.js';
import { ToBoolean, ToInteger } from '../../common/query-transforms.js';
import type { Product } from '../product.entity.js';
import { Optional, CodePointLength } from '../../common/validation.js';

export const PRICE_MAX = 9_999_999.99;

/** A path returned by POST /upload (YYYY/MM/<random>.<ext>), or "" for no image. */
export const IMAGE_PATH = /^$|^\d{4}\/\d{2}\/[A-Za-z0-9_-]{8,64}\.[a-z0-9]{2,5}$/;

export class CreateProductDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Espresso cup' })
  @IsString()
  @CodePointLength(1, 200)
  name: string;

  @ApiPropertyOptional({
    maxLength: 5000,
    example: 'Porcelain, 90 ml',
    description: 'Default on create: "" (empty)',
  })
  @Optional()
  @IsString()
  @CodePointLength(0, 5000)
  description?: string;

  @ApiProperty({ minimum: 0.01, maximum: PRICE_MAX, example: 19.99, description: 'At most 2 decimal places' })
  @IsMoney()
  @Min(0.01)
  @Max(PRICE_MAX)
  price: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 1_000_000_000,
    example: 25,
    description: 'Default on create: 0',
  })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(1_000_000_000)
  stock?: number;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    example: 3,
    description:
      'An unknown id creates a placeholder category (`Category N`, slug `category-N`); with ' +
      'CATEGORIES_STRICT=true it is a 400 instead',
  })
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  category_id: number;
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

  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'Products of exactly this category' })
  @Optional()
  @ToInteger()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  category_id?: number;

  @ApiPropertyOptional({
    description: 'With category_id: the products of that category and of every category below it',
  })
  @Optional()
  @ToBoolean()
  @IsBoolean()
  include_descendants?: boolean;

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
