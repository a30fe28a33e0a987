import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsObject, IsString, Matches, Max, Min } from 'class-validator';
import { CodePointLength, Optional } from '../../common/validation.js';
import {
  CalculatedPriceDto,
  CurrencyPriceDto,
  PricesInput,
  PricesOutput,
} from '../../pricing/dto/currency-price.dto.js';
import { IMAGE_PATH, PRICE_MAX, PRICES_WRITE, ProductOptionDto, ProductResponseDto } from './product.dto.js';
import { IsMoney } from '../../common/money.js';

export const MAX_VARIANTS = 100;
/** Letters, digits, `.`, `_` and `-`, starting with a letter or digit: the same on every database. */
export const SKU_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export class CreateVariantDto {
  @ApiProperty({
    minLength: 1,
    maxLength: 64,
    example: 'TEE-RED-M',
    description: 'Letters, digits, `.`, `_`, `-`; unique ignoring case among live variants of all products',
  })
  @IsString()
  @Matches(SKU_PATTERN, {
    message: 'sku must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit',
  })
  sku: string;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 200,
    example: 'Red / M',
    description: 'Default: the option values in the product\'s option order, joined by " / " (or the SKU)',
  })
  @Optional()
  @IsString()
  @CodePointLength(1, 200)
  title?: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { Colour: 'Red', Size: 'M' },
    description: "One value for every option of the product, each one of that option's values",
  })
  @IsObject()
  options: Record<string, string>;

  @ApiProperty({ minimum: 0.01, maximum: PRICE_MAX, example: 19.99, description: 'At most 2 decimal places' })
  @IsMoney()
  @Min(0.01)
  @Max(PRICE_MAX)
  price: number;

  @PricesInput(
    [
      { currency_code: 'usd', amount: 19.99 },
      { currency_code: 'jpy', amount: 2900 },
    ],
    PRICES_WRITE,
  )
  prices?: CurrencyPriceDto[];

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 1_000_000_000,
    example: 10,
    description: 'Default 0',
  })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(1_000_000_000)
  stock?: number;

  @ApiPropertyOptional({ description: 'Default true' })
  @Optional()
  @IsBoolean()
  is_active?: boolean;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: 10_000,
    description: 'Display order, default 0',
  })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(10_000)
  position?: number;

  @ApiPropertyOptional({
    example: '2026/11/9f86d081884c7d65.png',
    description:
      'A path returned by POST /upload (a stored file, as for the product\'s images), or "" for none; default ""',
  })
  @Optional()
  @IsString()
  @Matches(IMAGE_PATH, { message: 'image must be a path returned by /upload (YYYY/MM/name.ext) or ""' })
  image?: string;
}

export class UpdateVariantDto extends PartialType(CreateVariantDto, { skipNullProperties: false }) {}

export class VariantResponseDto {
  @ApiProperty({ type: 'integer', example: 31 }) id: number;
  @ApiProperty({ example: 'TEE-RED-M' }) sku: string;
  @ApiProperty({ example: 'Red / M' }) title: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { Colour: 'Red', Size: 'M' },
  })
  options: Record<string, string>;
  @ApiProperty({ example: 19.99 }) price: number;
  @PricesOutput(
    [
      { currency_code: 'usd', amount: 19.99 },
      { currency_code: 'jpy', amount: 2900 },
    ],
    'Its own',
  )
  prices: CurrencyPriceDto[];
  @ApiProperty({ example: 'standard', description: "Its product's (read-only here)" }) tax_class: string;
  @ApiPropertyOptional({
    type: CalculatedPriceDto,
    nullable: true,
    description: "Only on a product read with `region_id`: as the product's, for this variant",
  })
  calculated_price?: CalculatedPriceDto | null;
  @ApiProperty({ type: 'integer', example: 10 }) stock: number;
  @ApiProperty({ example: true }) is_active: boolean;
  @ApiProperty({ example: '', description: 'Path returned by /upload, "" when none' }) image: string;
  @ApiProperty({ type: 'integer', example: 0 }) position: number;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) created_at: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) updated_at: string;
}

export class ProductDetailResponseDto extends ProductResponseDto {
  @ApiProperty({ type: [ProductOptionDto], description: '[] for a product without options' })
  options: ProductOptionDto[];

  @ApiProperty({
    type: [VariantResponseDto],
    description: 'Live variants by position then id; the active ones only for non-admins',
  })
  variants: VariantResponseDto[];
}
