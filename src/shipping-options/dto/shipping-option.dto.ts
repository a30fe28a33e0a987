import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsBoolean, IsString, Max, Min } from 'class-validator';
import { IsCountryCode, IsCountryList } from '../../common/country.js';
import { fromCents, IsMoney } from '../../common/money.js';
import { PageQueryDto } from '../../common/pagination.js';
import { ToBoolean } from '../../common/query-transforms.js';
import { CodePointLength, NoInvisibleCharacters, Optional } from '../../common/validation.js';
import { IsTaxClass, TAX_CLASS_MAX_LENGTH, TAX_CLASS_PATTERN } from '../../common/tax-class.js';
import { currencyPriceList } from '../../pricing/currency-prices.js';
import { CurrencyPriceDto, PricesInput, PricesOutput } from '../../pricing/dto/currency-price.dto.js';
import type { ShippingOption } from '../shipping-option.entity.js';

export const SHIPPING_PRICE_MAX = 9_999_999.99;

export class CreateShippingOptionDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Standard (3–5 days)' })
  @IsString()
  @CodePointLength(1, 200)
  @NoInvisibleCharacters()
  name: string;

  @ApiProperty({
    minimum: 0,
    maximum: SHIPPING_PRICE_MAX,
    example: 4.95,
    description: 'At most 2 decimal places',
  })
  @IsMoney()
  @Min(0)
  @Max(SHIPPING_PRICE_MAX)
  price: number;

  @PricesInput(
    [
      { currency_code: 'usd', amount: 4.95 },
      { currency_code: 'eur', amount: 4.5 },
    ],
    'Prices per currency; replaces the whole list. An entry for the default currency (CURRENCY) sets `price` ' +
      '(400 `prices` rule `matchesPrice` when `price` is sent too and differs). Amounts have no more decimals ' +
      'than the currency (rule `isAmountIn`); codes lower-case ISO 4217 (rule `isCurrencyCode`), each once.',
  )
  prices?: CurrencyPriceDto[];

  @ApiPropertyOptional({
    maxLength: TAX_CLASS_MAX_LENGTH,
    pattern: TAX_CLASS_PATTERN.source,
    example: 'standard',
    description: 'The tax rates that apply to the shipping; default "standard" on create',
  })
  @Optional()
  @IsTaxClass()
  tax_class?: string;

  @ApiPropertyOptional({
    type: [String],
    maxItems: 249,
    example: ['DE', 'AT'],
    description:
      'ISO 3166-1 alpha-2 codes (upper case, no repeats) it ships to; empty: everywhere. Default on create: []',
  })
  @Optional()
  @IsCountryList()
  countries?: string[];

  @ApiPropertyOptional({ description: 'Offered to customers. Default on create: true' })
  @Optional()
  @IsBoolean()
  is_active?: boolean;
}

export class UpdateShippingOptionDto extends PartialType(CreateShippingOptionDto, {
  skipNullProperties: false,
}) {}

export class ShippingOptionQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    minLength: 2,
    maxLength: 2,
    description: 'Only the options that ship to this country (ISO 3166-1 alpha-2, upper case)',
  })
  @Optional()
  @IsCountryCode()
  country?: string;

  @ApiPropertyOptional({ description: 'Admins only: filter by `is_active`' })
  @Optional()
  @ToBoolean()
  @IsBoolean()
  is_active?: boolean;
}

export class ShippingOptionResponseDto {
  @ApiProperty({ type: 'integer', example: 3 }) id: number;
  @ApiProperty({ example: 'Standard (3–5 days)' }) name: string;
  @ApiProperty({ example: 4.95 }) price: number;
  @PricesOutput([
    { currency_code: 'usd', amount: 4.95 },
    { currency_code: 'eur', amount: 4.5 },
  ])
  prices: CurrencyPriceDto[];
  @ApiProperty({ example: 'standard' }) tax_class: string;
  @ApiProperty({ type: [String], example: ['DE', 'AT'], description: 'Empty: everywhere' })
  countries: string[];
  @ApiProperty({ example: true }) is_active: boolean;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) created_at: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) updated_at: string;
}

/** The option as the API shows it; `defaultCurrency` is CURRENCY, the currency of `price`. */
export function toShippingOptionResponse(
  option: ShippingOption,
  defaultCurrency: string,
): ShippingOptionResponseDto {
  return {
    id: option.id,
    name: option.name,
    price: fromCents(option.priceCents),
    prices: currencyPriceList(defaultCurrency, option.priceCents, option.prices),
    tax_class: option.taxClass,
    countries: option.countries,
    is_active: Boolean(option.isActive),
    created_at: option.createdAt.toISOString(),
    updated_at: option.updatedAt.toISOString(),
  };
}

/** Whether an option ships to `country`: no countries means everywhere. */
export function shipsTo(option: Pick<ShippingOption, 'countries'>, country: string): boolean {
  return option.countries.length === 0 || option.countries.includes(country);
}
