import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsString,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { CodePointLength, DateTime, NoInvisibleCharacters, Optional } from '../../common/validation.js';
import { IsAmountInCurrency, IsCurrencyCode } from '../../pricing/currency-prices.js';
import {
  PRICE_LIST_STATUSES,
  PRICE_LIST_TYPES,
  type PriceListStatus,
  type PriceListType,
} from '../price-list.entity.js';

/** Most prices one list holds. */
export const MAX_LIST_PRICES = 1000;
/** Most groups one list is limited to. */
export const MAX_LIST_GROUPS = 100;

const ID_MAX = 2_147_483_647;
/** Absent or null: the field is cleared (dates, description) rather than validated. */
const NullableOptional = () => ValidateIf((_object, value) => value !== undefined && value !== null);

/** One price of a list: of a product without variants (or all its variants) or of one variant, in a currency. */
export class PriceListPriceDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    example: 12,
    description:
      'The product priced (its variants too, unless the list prices a variant itself); give product_id or ' +
      'variant_id, not both',
  })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(ID_MAX)
  product_id?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, example: 31, description: 'The variant priced' })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(ID_MAX)
  variant_id?: number;

  @ApiProperty({ minLength: 3, maxLength: 3, example: 'eur', description: 'Lower-case ISO 4217 code' })
  @IsString()
  @IsCurrencyCode()
  currency_code: string;

  @ApiProperty({
    minimum: 0,
    example: 14.99,
    description: "In the currency's major units, with no more decimals than it has (`jpy` whole, `eur` 2)",
  })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsAmountInCurrency()
  amount: number;
}

export class CreatePriceListDto {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'Black Friday' })
  @IsString()
  @CodePointLength(1, 100)
  @NoInvisibleCharacters()
  name: string;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 500, example: '20% off mugs' })
  @NullableOptional()
  @IsString()
  @CodePointLength(0, 500)
  description?: string | null;

  @ApiProperty({
    enum: PRICE_LIST_TYPES,
    example: 'sale',
    description:
      '`sale`: the line pays the lowest of its own price and the sale prices; `override`: the price replaces ' +
      'its own price (the lowest applicable override when several do)',
  })
  @IsIn(PRICE_LIST_TYPES)
  type: PriceListType;

  @ApiPropertyOptional({
    enum: PRICE_LIST_STATUSES,
    example: 'active',
    description: 'Only an active list applies. Default on create: draft',
  })
  @Optional()
  @IsIn(PRICE_LIST_STATUSES)
  status?: PriceListStatus;

  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    nullable: true,
    example: '2026-11-27T00:00:00.000Z',
    description: 'From when the list applies; null: already',
  })
  @NullableOptional()
  @DateTime()
  starts_at?: string | null;

  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    nullable: true,
    example: '2026-12-01T00:00:00.000Z',
    description: 'Until when (not included) the list applies; null: no end. After starts_at',
  })
  @NullableOptional()
  @DateTime()
  ends_at?: string | null;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'integer', minimum: 1 },
    maxItems: MAX_LIST_GROUPS,
    example: [3],
    description: 'The customer groups the list is limited to; empty: everyone. Default on create: []',
  })
  @Optional()
  @IsArray()
  @ArrayMaxSize(MAX_LIST_GROUPS)
  @ArrayUnique()
  @IsInt({ each: true })
  @Min(1, { each: true })
  @Max(ID_MAX, { each: true })
  customer_group_ids?: number[];

  @ApiPropertyOptional({
    type: [PriceListPriceDto],
    maxItems: MAX_LIST_PRICES,
    description:
      'At most one per product or variant and currency. Sent on update, it replaces the list. Default on create: []',
  })
  @Optional()
  @IsArray()
  @ArrayMaxSize(MAX_LIST_PRICES)
  @IsObject({ each: true, message: 'each value in prices must be an object' })
  @ValidateNested({ each: true })
  @Type(() => PriceListPriceDto)
  prices?: PriceListPriceDto[];
}

export class UpdatePriceListDto extends PartialType(CreatePriceListDto, { skipNullProperties: false }) {}

export class PriceListPriceResponseDto {
  @ApiProperty({ type: 'integer', nullable: true, example: 12, description: 'null for a variant price' })
  product_id: number | null;
  @ApiProperty({ type: 'integer', nullable: true, example: null, description: 'null for a product price' })
  variant_id: number | null;
  @ApiProperty({ example: 'eur' }) currency_code: string;
  @ApiProperty({ example: 14.99, description: "In the currency's major units" }) amount: number;
}

export class PriceListResponseDto {
  @ApiProperty({ type: 'integer', example: 4 }) id: number;
  @ApiProperty({ example: 'Black Friday' }) name: string;
  @ApiProperty({ type: 'string', nullable: true, example: '20% off mugs' }) description: string | null;
  @ApiProperty({ enum: PRICE_LIST_TYPES, example: 'sale' }) type: PriceListType;
  @ApiProperty({ enum: PRICE_LIST_STATUSES, example: 'active' }) status: PriceListStatus;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: '2026-11-27T00:00:00.000Z' })
  starts_at: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: null })
  ends_at: string | null;
  @ApiProperty({
    type: 'array',
    items: { type: 'integer' },
    example: [3],
    description: 'Ascending; empty: for everyone',
  })
  customer_group_ids: number[];
  @ApiProperty({
    type: [PriceListPriceResponseDto],
    description: 'Products first by id, then variants by id; each by currency',
  })
  prices: PriceListPriceResponseDto[];
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) created_at: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) updated_at: string;
}
