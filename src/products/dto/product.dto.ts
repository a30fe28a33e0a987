import {
  ApiExtraModels,
  ApiProperty,
  ApiPropertyOptional,
  getSchemaPath,
  PartialType,
} from '@nestjs/swagger';
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
} from 'class-validator';
import { fromCents, IsMoney } from '../../common/money.js';
import { PageMetaDto } from '../../common/openapi.js';
import { SearchPageQueryDto } from '../../common/pagination.js';
import { ToBoolean, ToInteger } from '../../common/query-transforms.js';
import type { Product } from '../product.entity.js';
import type { ProductImage } from '../product-statements.js';
import { SLUG_MAX_LENGTH, SLUG_PATTERN } from '../../common/slug.js';
import { Optional, CodePointLength } from '../../common/validation.js';
import { IsTaxClass, TAX_CLASS_MAX_LENGTH, TAX_CLASS_PATTERN } from '../../common/tax-class.js';
import { type CurrencyAmounts, currencyPriceList } from '../../pricing/currency-prices.js';
import {
  CalculatedPriceDto,
  CurrencyPriceDto,
  PricesInput,
  PricesOutput,
} from '../../pricing/dto/currency-price.dto.js';

export const PRICE_MAX = 9_999_999.99;

/** A path returned by POST /upload (YYYY/MM/<random>.<ext>), or "" for no image. */
export const IMAGE_PATH = /^$|^\d{4}\/\d{2}\/[A-Za-z0-9_-]{8,64}\.[a-z0-9]{2,5}$/;

/** Most images a product may have. */
export const MAX_IMAGES = 20;

/** What `prices` on a write does, for products and variants. */
export const PRICES_WRITE =
  'Prices per currency; replaces the whole list. An entry for the default currency (CURRENCY) sets `price` ' +
  '(400 `prices` rule `matchesPrice` when `price` is sent too and differs); each other currency keeps its ' +
  'amount in minor units. Amounts have no more decimals than the currency (400 `prices.N.amount` rule ' +
  '`isAmountIn`); codes are lower-case ISO 4217 (rule `isCurrencyCode`), each at most once (rule `unique`).';
/** A path returned by POST /upload (never ""). */
const UPLOADED_PATH = new RegExp(IMAGE_PATH.source.replace('^$|', ''));

/** Lowercased before the check, so that slugs are unique ignoring case. */
const ToLowerCase = () => Transform(({ value }) => (typeof value === 'string' ? value.toLowerCase() : value));

export class ProductImageInputDto {
  @ApiProperty({ example: '2026/11/9f86d081884c7d65.png', description: 'A path returned by POST /upload' })
  @IsString()
  @Matches(UPLOADED_PATH, { message: 'url must be a path returned by /upload (YYYY/MM/name.ext)' })
  url: string;

  @ApiPropertyOptional({ maxLength: 255, example: 'The cup from the side', description: 'Default ""' })
  @Optional()
  @IsString()
  @CodePointLength(0, 255)
  alt?: string;
}

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

  // Defaults in descriptions, not as `default`: typed clients read a default as a field always sent, and a PUT
  // (the partial type of this one) leaves an absent field as it is.
  @ApiPropertyOptional({ maxLength: 5000, example: 'Porcelain, 90 ml', description: 'Default "" on create' })
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
    description: 'Default 0 on create',
  })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(1_000_000_000)
  stock?: number;

  @PricesInput(
    [
      { currency_code: 'usd', amount: 19.99 },
      { currency_code: 'eur', amount: 18.5 },
    ],
    PRICES_WRITE,
  )
  prices?: CurrencyPriceDto[];

  @ApiPropertyOptional({
    maxLength: TAX_CLASS_MAX_LENGTH,
    pattern: TAX_CLASS_PATTERN.source,
    example: 'standard',
    description: 'The tax rates that apply (`tax_rates.tax_class`); default "standard" on create',
  })
  @Optional()
  @IsTaxClass()
  tax_class?: string;

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

  @ApiPropertyOptional({
    maxLength: SLUG_MAX_LENGTH,
    example: 'espresso-cup',
    description:
      'Lowercase ASCII letters and digits joined by single hyphens, with at least one letter (upper case is ' +
      'lowered); unique among live products. Generated from the name when not given (a numeric suffix on a ' +
      'collision).',
  })
  @Optional()
  @IsString()
  @ToLowerCase()
  @CodePointLength(1, SLUG_MAX_LENGTH)
  @Matches(SLUG_PATTERN, {
    message: 'slug must be lowercase letters and digits joined by single hyphens, with at least one letter',
  })
  slug?: string;

  @ApiPropertyOptional({
    type: [ProductImageInputDto],
    maxItems: MAX_IMAGES,
    description:
      'The images in order (position 0 first), each a file uploaded through /upload, no file twice; replaces ' +
      'all of them. `image` becomes the first one\'s url ("" for none).',
  })
  @Optional()
  @IsArray()
  @ArrayMaxSize(MAX_IMAGES)
  @IsObject({ each: true, message: 'each value in images must be an object {url, alt}' })
  @ValidateNested({ each: true })
  @Type(() => ProductImageInputDto)
  images?: ProductImageInputDto[];

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
    description:
      'A path returned by POST /upload, or "". Without `images` it replaces the first image (its alt becomes ' +
      '""; the others stay), and "" removes the first image; with `images` it must equal their first url.',
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

/** The facets a product list may add to its `meta.facets`. */
export const PRODUCT_FACETS = ['category_id', 'options', 'price'] as const;
export type ProductFacet = (typeof PRODUCT_FACETS)[number];

/** A comma-separated list of PRODUCT_FACETS (rule `isIn`); a repeated name counts once. */
const IsFacetList = () =>
  ValidateBy({
    name: 'isIn',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'string' &&
        value.split(',').every((name) => (PRODUCT_FACETS as readonly string[]).includes(name)),
      defaultMessage: () => `facets must be a comma-separated list of: ${PRODUCT_FACETS.join(', ')}`,
    },
  });

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

  @ApiPropertyOptional({
    maxLength: SLUG_MAX_LENGTH,
    description: 'The product with this slug (ignoring case): a list of one, or empty',
  })
  @Optional()
  @IsString()
  @ToLowerCase()
  @CodePointLength(1, SLUG_MAX_LENGTH)
  slug?: string;

  @ApiPropertyOptional({
    description:
      'Comma-separated product ids (at most PAGE_SIZE_MAX, positive integers): those the caller may see, in the ' +
      'order asked (unless `sort` is given), all on one page (`page` and `page_size` do not apply); unknown, ' +
      'repeated or invisible ids are simply absent. Combines with the other filters.',
  })
  @Optional()
  @IsString()
  @Matches(/^\d{1,10}(,\d{1,10})*$/, { message: 'ids must be positive integers separated by commas' })
  ids?: string;

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

  @ApiPropertyOptional({
    minimum: 0,
    description: 'The same bound as `min_price` (both given and different: 400 rule `sameAsMinPrice`)',
  })
  @Optional()
  @ToMoney()
  @IsMoney()
  @Min(0)
  price_min?: number;

  @ApiPropertyOptional({
    minimum: 0,
    description: 'The same bound as `max_price` (both given and different: 400 rule `sameAsMaxPrice`)',
  })
  @Optional()
  @ToMoney()
  @IsMoney()
  @Min(0)
  price_max?: number;

  // Documented by the controller's @ApiQuery (a deepObject); its rules are optionFilters'.
  @Optional()
  @IsObject({ message: 'option must be given as option[Name]=value' })
  option?: Record<string, unknown>;

  @ApiPropertyOptional({
    example: 'category_id,options,price',
    description:
      'Comma-separated facets to add to `meta.facets`, any of `category_id`, `options`, `price`: counts of the ' +
      'matching products per value, each facet leaving its own filter out (docs/api.md, Facets)',
  })
  @Optional()
  @IsFacetList()
  facets?: string;

  @ApiPropertyOptional({ description: 'true: stock > 0; false: stock = 0' })
  @Optional()
  @ToBoolean()
  @IsBoolean()
  in_stock?: boolean;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    description: 'Stock at most this (low stock: `max_stock=5`); with `in_stock` both apply',
  })
  @Optional()
  @ToInteger()
  @IsInt()
  @Min(0)
  @Max(2_147_483_647)
  max_stock?: number;

  @ApiPropertyOptional({ description: 'Admins only' })
  @Optional()
  @ToBoolean()
  @IsBoolean()
  is_active?: boolean;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    description:
      "Adds each product's `calculated_price` in this region's currency (400 rule `exists` for an unknown " +
      "region). Filters and sorts by price stay in the default currency's `price`",
  })
  @Optional()
  @ToInteger()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  region_id?: number;

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

export class ProductImageResponseDto {
  @ApiProperty({ example: '2026/11/9f86d081884c7d65.png', description: 'Path returned by /upload' })
  url: string;
  @ApiProperty({ example: 'The cup from the side' }) alt: string;
  @ApiProperty({ type: 'integer', example: 0, description: '0 for the first image' }) position: number;
}

export class ProductResponseDto {
  @ApiProperty({ type: 'integer', example: 12 }) id: number;
  @ApiProperty({ example: 'Espresso cup' }) name: string;
  @ApiProperty({ example: 'Porcelain, 90 ml' }) description: string;
  @ApiProperty({ example: 19.99 }) price: number;
  @ApiProperty({ type: 'integer', example: 25 }) stock: number;
  @ApiProperty({ type: 'integer', example: 3 }) category_id: number;
  @ApiProperty({ example: '', description: 'Path returned by /upload, "" when none: the first image\'s url' })
  image: string;
  @ApiProperty({ example: 'espresso-cup', description: 'Unique among live products' }) slug: string;
  @ApiProperty({ type: [ProductImageResponseDto], description: 'In position order' })
  images: ProductImageResponseDto[];
  @ApiProperty({ example: true }) is_active: boolean;
  @PricesOutput(
    [
      { currency_code: 'usd', amount: 19.99 },
      { currency_code: 'eur', amount: 18.5 },
    ],
    "With active variants, each currency's lowest price among them (as `price`)",
  )
  prices: CurrencyPriceDto[];
  @ApiProperty({ example: 'standard', description: 'The tax rates that apply to it' }) tax_class: string;
  @ApiPropertyOptional({
    type: CalculatedPriceDto,
    nullable: true,
    description:
      "Only with `region_id`: the caller's price in the region's currency; null when the product has no " +
      'price in that currency',
  })
  calculated_price?: CalculatedPriceDto | null;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) created_at: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) updated_at: string;
}

export class CategoryFacetValueDto {
  @ApiProperty({ type: 'integer', example: 3, description: 'A category id' }) value: number;
  @ApiProperty({ type: 'integer', minimum: 1, example: 12 }) count: number;
}

export class OptionFacetValueDto {
  @ApiProperty({
    example: 'M',
    description:
      'The value as the products spell it (of spellings differing in case, the first in code-point order)',
  })
  value: string;
  @ApiProperty({ type: 'integer', minimum: 1, example: 12 }) count: number;
}

export class PriceFacetBucketDto {
  @ApiProperty({ example: 10, description: 'Inclusive, in the unit of `price` (the default currency)' })
  min: number;
  @ApiProperty({
    type: 'number',
    nullable: true,
    example: 25,
    description: 'Exclusive; null for the last bucket (no upper bound)',
  })
  max: number | null;
  @ApiProperty({ type: 'integer', minimum: 1, example: 12 }) count: number;
}

@ApiExtraModels(OptionFacetValueDto)
export class ProductFacetsDto {
  @ApiPropertyOptional({
    type: [CategoryFacetValueDto],
    description:
      'With `facets=category_id`: the products per category (their own category), the category filter left out',
  })
  category_id?: CategoryFacetValueDto[];

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'array', items: { $ref: getSchemaPath(OptionFacetValueDto) } },
    example: { Size: [{ value: 'M', count: 12 }], Color: [{ value: 'Red', count: 7 }] },
    description:
      "With `facets=options`: per option name, the products per value, each name's own `option[Name]` filter " +
      'left out',
  })
  options?: Record<string, OptionFacetValueDto[]>;

  @ApiPropertyOptional({
    type: [PriceFacetBucketDto],
    description:
      'With `facets=price`: the products per price bucket, in price order, the price bounds left out',
  })
  price?: PriceFacetBucketDto[];
}

/** The product list's `meta`: the page's, and the facets when asked. */
export class ProductListMetaDto extends PageMetaDto {
  @ApiPropertyOptional({
    type: ProductFacetsDto,
    description:
      'Only with `facets`: the asked ones, over every product the list matches (not only the page); at most 20 ' +
      'values per facet (per option name), most products first, ties by value',
  })
  facets?: ProductFacetsDto;

  @ApiPropertyOptional({
    example: true,
    description:
      "Only with `facets`: false when a facet's products were more than SEARCH_TOTAL_LIMIT (10 000), which it " +
      'then counted over the first SEARCH_TOTAL_LIMIT of them only',
  })
  facets_exact?: boolean;
}

export function toProductResponse(
  product: Product,
  images: ProductImage[],
  defaultCurrency: string,
): ProductResponseDto {
  return {
    id: product.id,
    name: product.name,
    description: product.description,
    price: fromCents(product.priceCents),
    stock: product.stock,
    category_id: product.categoryId,
    image: product.image,
    slug: product.slug as string,
    images,
    is_active: Boolean(product.isActive),
    prices: currencyPriceList(defaultCurrency, product.priceCents, product.prices as CurrencyAmounts | null),
    tax_class: product.taxClass,
    created_at: product.createdAt.toISOString(),
    updated_at: product.updatedAt.toISOString(),
  };
}
