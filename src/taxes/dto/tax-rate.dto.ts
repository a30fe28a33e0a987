import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { buildMessage, IsString, Matches, Max, Min, ValidateBy, ValidateIf } from 'class-validator';
import { IsCountryCode } from '../../common/country.js';
import { hasAtMostDecimals } from '../../common/money.js';
import { PageQueryDto } from '../../common/pagination.js';
import { CodePointLength, NoInvisibleCharacters, Optional } from '../../common/validation.js';
import type { TaxRateRow } from '../tax-rate.entity.js';

/** Lower-case letters and digits in runs joined by single hyphens or underscores. */
const TAX_CLASS = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/;
/** The part after the hyphen of an ISO 3166-2 code: "CA" of US-CA, "BY" of DE-BY, "75C" of FR-75C. */
const SUBDIVISION = /^[A-Z0-9]{1,3}$/;

/** A finite number with at most 4 decimal places (7.25 and 19.0001 pass; 0.00001 and 1e-7 do not). */
const IsPercent = () =>
  ValidateBy({
    name: 'isPercent',
    validator: {
      validate: (value: unknown) => hasAtMostDecimals(value, 4),
      defaultMessage: buildMessage(
        (prefix) => `${prefix}$property must be a number (percent) with at most 4 decimal places`,
      ),
    },
  });

export class CreateTaxRateDto {
  @ApiProperty({ minLength: 2, maxLength: 2, example: 'US', description: 'ISO 3166-1 alpha-2, upper case' })
  @IsCountryCode()
  country: string;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    minLength: 1,
    maxLength: 3,
    example: 'CA',
    description:
      'The second part of an ISO 3166-2 code ("CA" of US-CA): 1-3 upper-case letters or digits; null or absent ' +
      'for the whole country',
  })
  @ValidateIf((_object, value) => value !== undefined && value !== null)
  @IsString()
  @Matches(SUBDIVISION, {
    message: 'subdivision must be the second part of an ISO 3166-2 code: 1 to 3 upper-case letters or digits',
  })
  subdivision?: string | null;

  @ApiPropertyOptional({
    maxLength: 32,
    example: 'standard',
    description:
      'Lower-case letters and digits, runs joined by single hyphens or underscores, up to 32 characters. ' +
      'Default on create: standard',
  })
  @Optional()
  @IsString()
  @CodePointLength(1, 32)
  @Matches(TAX_CLASS, {
    message: 'tax_class must be lower-case letters and digits, joined by single hyphens or underscores',
  })
  tax_class?: string;

  @ApiProperty({ minimum: 0, maximum: 100, example: 7.25, description: 'Percent, at most 4 decimal places' })
  @IsPercent()
  @Min(0)
  @Max(100)
  rate: number;

  @ApiProperty({ minLength: 1, maxLength: 100, example: 'California sales tax' })
  @IsString()
  @CodePointLength(1, 100)
  @NoInvisibleCharacters()
  name: string;

  @ApiProperty({
    minLength: 1,
    maxLength: 32,
    example: 'US-CA',
    description: "Shown on an order's tax lines",
  })
  @IsString()
  @CodePointLength(1, 32)
  @NoInvisibleCharacters()
  code: string;
}

export class UpdateTaxRateDto extends PartialType(CreateTaxRateDto, { skipNullProperties: false }) {}

export class TaxRateQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    minLength: 2,
    maxLength: 2,
    description: 'Only the rates of this country (ISO 3166-1 alpha-2, upper case)',
  })
  @Optional()
  @IsCountryCode()
  country?: string;
}

export class TaxRateResponseDto {
  @ApiProperty({ type: 'integer', example: 4 }) id: number;
  @ApiProperty({ example: 'US' }) country: string;
  @ApiProperty({ type: 'string', nullable: true, example: 'CA', description: 'null: the whole country' })
  subdivision: string | null;
  @ApiProperty({ example: 'standard' }) tax_class: string;
  @ApiProperty({ example: 7.25, description: 'Percent' }) rate: number;
  @ApiProperty({ example: 'California sales tax' }) name: string;
  @ApiProperty({ example: 'US-CA' }) code: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) created_at: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) updated_at: string;
}

export function toTaxRateResponse(row: TaxRateRow): TaxRateResponseDto {
  return {
    id: row.id,
    country: row.country,
    subdivision: row.subdivision === '' ? null : row.subdivision,
    tax_class: row.taxClass,
    rate: Number(row.rate),
    name: row.name,
    code: row.code,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
