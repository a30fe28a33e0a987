import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { IsBoolean, IsString, Matches } from 'class-validator';
import { IsCountryCode } from '../../common/country.js';
import { CodePointLength, NoInvisibleCharacters, Optional } from '../../common/validation.js';
import type { Address } from '../address.entity.js';

/**
 * The fields of a postal address and their rules: the address book's body, and the inline shipping address
 * another module (a cart) validates with `@ValidateNested() @Type(() => AddressFieldsDto)`.
 */
export class AddressFieldsDto {
  @ApiProperty({ minLength: 1, maxLength: 200, example: 'Ada Lovelace', description: 'The recipient' })
  @IsString()
  @CodePointLength(1, 200)
  @NoInvisibleCharacters()
  name: string;

  @ApiProperty({ minLength: 1, maxLength: 200, example: '12 Analytical Row' })
  @IsString()
  @CodePointLength(1, 200)
  @NoInvisibleCharacters()
  line1: string;

  @ApiPropertyOptional({ maxLength: 200, example: 'Flat 3', description: 'Default on create: "" (empty)' })
  @Optional()
  @IsString()
  @CodePointLength(0, 200)
  @NoInvisibleCharacters()
  line2?: string;

  @ApiProperty({ minLength: 1, maxLength: 100, example: 'London' })
  @IsString()
  @CodePointLength(1, 100)
  @NoInvisibleCharacters()
  city: string;

  @ApiPropertyOptional({
    maxLength: 100,
    example: 'Greater London',
    description: 'State, province or county. Default on create: "" (empty)',
  })
  @Optional()
  @IsString()
  @CodePointLength(0, 100)
  @NoInvisibleCharacters()
  region?: string;

  @ApiPropertyOptional({ maxLength: 20, example: 'N1 9GU', description: 'Default on create: "" (empty)' })
  @Optional()
  @IsString()
  @CodePointLength(0, 20)
  @NoInvisibleCharacters()
  postal_code?: string;

  @ApiProperty({
    minLength: 2,
    maxLength: 2,
    pattern: '^[A-Z]{2}$',
    example: 'GB',
    description: 'ISO 3166-1 alpha-2 code, upper case, officially assigned',
  })
  @IsCountryCode()
  country: string;

  @ApiPropertyOptional({
    maxLength: 40,
    example: '+44 20 7946 0018',
    description: 'Digits, spaces and `+ ( ) . / -`. Default on create: "" (empty)',
  })
  @Optional()
  @IsString()
  @CodePointLength(0, 40)
  @Matches(/^[0-9 +()./-]*$/, { message: 'phone may contain only digits, spaces and + ( ) . / -' })
  phone?: string;
}

export class CreateAddressDto extends AddressFieldsDto {
  @ApiPropertyOptional({
    description:
      'Make it the default address (the previous default stops being one). The first address of an account ' +
      'is the default whatever this says.',
  })
  @Optional()
  @IsBoolean()
  is_default?: boolean;
}

export class UpdateAddressDto extends PartialType(CreateAddressDto, { skipNullProperties: false }) {}

/** An address as the API shows it (without `id`, timestamps and `is_default` when copied onto a cart or order). */
export interface AddressFields {
  name: string;
  line1: string;
  line2: string;
  city: string;
  region: string;
  postal_code: string;
  country: string;
  phone: string;
}

export class AddressResponseDto implements AddressFields {
  @ApiProperty({ type: 'integer', example: 7 }) id: number;
  @ApiProperty({ example: 'Ada Lovelace' }) name: string;
  @ApiProperty({ example: '12 Analytical Row' }) line1: string;
  @ApiProperty({ example: 'Flat 3' }) line2: string;
  @ApiProperty({ example: 'London' }) city: string;
  @ApiProperty({ example: 'Greater London' }) region: string;
  @ApiProperty({ example: 'N1 9GU' }) postal_code: string;
  @ApiProperty({ example: 'GB' }) country: string;
  @ApiProperty({ example: '+44 20 7946 0018' }) phone: string;
  @ApiProperty({ example: true }) is_default: boolean;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) created_at: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) updated_at: string;
}

export function toAddressResponse(address: Address): AddressResponseDto {
  return {
    id: address.id,
    name: address.name,
    line1: address.line1,
    line2: address.line2,
    city: address.city,
    region: address.region,
    postal_code: address.postalCode,
    country: address.country,
    phone: address.phone,
    is_default: Boolean(address.isDefault),
    created_at: address.createdAt.toISOString(),
    updated_at: address.updatedAt.toISOString(),
  };
}
