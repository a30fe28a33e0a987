import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsBoolean, IsString, ValidateBy, buildMessage } from 'class-validator';
import { IsCountryList } from '../../common/country.js';
import { CodePointLength, NoInvisibleCharacters, Optional } from '../../common/validation.js';

/** The ISO 4217 codes the runtime knows (its ICU data), in lower case as the API writes them. */
const CURRENCIES = new Set(Intl.supportedValuesOf('currency').map((code) => code.toLowerCase()));

/** A lower-case ISO 4217 currency code the runtime knows (`eur`, `jpy`); `EUR` and `xyz` are refused. */
export const IsCurrencyCode = () =>
  ValidateBy({
    name: 'isCurrencyCode',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'string' && /^[a-z]{3}$/.test(value) && CURRENCIES.has(value),
      defaultMessage: buildMessage(
        (prefix) => `${prefix}$property must be an ISO 4217 currency code in lower case, e.g. eur`,
      ),
    },
  });

export class CreateRegionDto {
  @ApiProperty({ minLength: 1, maxLength: 100, example: 'Europe' })
  @IsString()
  @CodePointLength(1, 100)
  @NoInvisibleCharacters()
  name: string;

  @ApiProperty({
    minLength: 3,
    maxLength: 3,
    example: 'eur',
    description: 'ISO 4217, lower case; the default region keeps CURRENCY',
  })
  @IsCurrencyCode()
  currency_code: string;

  @ApiPropertyOptional({
    type: [String],
    maxItems: 249,
    example: ['DE', 'FR', 'AT'],
    description:
      'ISO 3166-1 alpha-2 codes (upper case, no repeats), kept in the order given; each in at most one region. ' +
      'The first stands in for the address until one is known. Default on create: []',
  })
  @Optional()
  @IsCountryList()
  countries?: string[];

  @ApiPropertyOptional({ description: 'Whether its prices include tax. Default on create: false' })
  @Optional()
  @IsBoolean()
  prices_include_tax?: boolean;
}

export class UpdateRegionDto extends PartialType(CreateRegionDto, { skipNullProperties: false }) {}

export class RegionResponseDto {
  @ApiProperty({ type: 'integer', example: 2 }) id: number;
  @ApiProperty({ example: 'Europe' }) name: string;
  @ApiProperty({ example: 'eur', description: 'ISO 4217, lower case' }) currency_code: string;
  @ApiProperty({ type: [String], example: ['DE', 'FR', 'AT'], description: 'In the order given' })
  countries: string[];
  @ApiProperty({ example: false }) prices_include_tax: boolean;
  @ApiProperty({
    example: false,
    description: 'The region made from CURRENCY, serving every country no other region lists (read-only)',
  })
  is_default: boolean;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) created_at: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) updated_at: string;
}
