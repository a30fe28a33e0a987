import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsNumber, IsObject, IsString, ValidateNested } from 'class-validator';
import { Optional } from '../../common/validation.js';
import { type CurrencyPrice, IsAmountInCurrency, IsCurrencyCode, MAX_PRICES } from '../currency-prices.js';

/** One price of a product, variant or shipping option, as it is written and read. */
export class CurrencyPriceDto {
  @ApiProperty({
    minLength: 3,
    maxLength: 3,
    example: 'eur',
    description: 'Lower-case ISO 4217 code',
  })
  @IsString()
  @IsCurrencyCode()
  currency_code: string;

  @ApiProperty({
    minimum: 0,
    example: 19.99,
    description: "In the currency's major units, with no more decimals than it has (`jpy` whole, `eur` 2)",
  })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @IsAmountInCurrency()
  amount: number;
}

/** The price a catalogue read for a region gives the caller (DESIGN.md §16). */
export class CalculatedPriceDto {
  @ApiProperty({ example: 19.99, description: "What the caller pays for one unit, in the region's currency" })
  amount: number;

  @ApiProperty({
    example: 24.99,
    description: "The product's (or variant's) own price in the region's currency, before any price list",
  })
  original_amount: number;

  @ApiProperty({ example: 'eur', description: "The region's currency (lower-case ISO 4217)" })
  currency_code: string;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: null,
    description:
      'The price list that gave `amount` (sale: the lowest price; override: it replaces the own price, the lowest ' +
      'override when several apply); null: the product’s own price',
  })
  price_list_id: number | null;

  @ApiProperty({
    example: false,
    description: "Whether the amount includes tax (the region's prices_include_tax)",
  })
  includes_tax: boolean;
}

/**
 * The optional `prices` of a create or update body (a list of CurrencyPriceDto, at most MAX_PRICES), documented
 * with `example` and `description`.
 */
export function PricesInput(example: CurrencyPrice[], description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: [CurrencyPriceDto], maxItems: MAX_PRICES, example, description }),
    Optional(),
    IsArray(),
    ArrayMaxSize(MAX_PRICES),
    IsObject({ each: true, message: 'each value in prices must be an object {currency_code, amount}' }),
    ValidateNested({ each: true }),
    Type(() => CurrencyPriceDto),
  );
}

/** The `prices` of a response: the default currency's first (the same amount as `price`), then the others by code. */
export function PricesOutput(example: CurrencyPrice[], description?: string): PropertyDecorator {
  return ApiProperty({
    type: [CurrencyPriceDto],
    example,
    description:
      "The default currency's first (the same amount as `price`), then the others by code" +
      (description === undefined ? '' : `. ${description}`),
  });
}
