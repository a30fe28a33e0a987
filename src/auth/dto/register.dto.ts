import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsAscii, IsEmail, IsString, Matches } from 'class-validator';
import {
  CodePointLength,
  NoInvisibleCharacters,
  NormalizedIdentifier,
  Optional,
} from '../../common/validation.js';

/** The characters a username may have once NFKC-normalised. */
export const USERNAME_CHARACTERS = /^[A-Za-z0-9_.-]+$/;

export class RegisterDto {
  @ApiProperty({
    minLength: 3,
    maxLength: 32,
    pattern: '^[A-Za-z0-9_.-]+$',
    example: 'jane_doe',
    description: 'NFKC-normalised; unique ignoring case',
  })
  @NormalizedIdentifier()
  @IsString()
  @CodePointLength(3, 32)
  @NoInvisibleCharacters()
  @Matches(USERNAME_CHARACTERS, { message: 'username may contain only letters, digits, _ . and -' })
  username: string;

  @ApiProperty({
    maxLength: 254,
    format: 'email',
    example: 'jane@example.com',
    description:
      'NFKC-normalised, ASCII only (an international domain in its xn-- form); unique ignoring case',
  })
  @NormalizedIdentifier()
  @IsString()
  @CodePointLength(0, 254)
  @NoInvisibleCharacters()
  @IsAscii({ message: 'email must contain only ASCII characters (write an international domain as xn--)' })
  @IsEmail({ allow_utf8_local_part: false }, { message: 'email must be a valid email address' })
  email: string;

  @ApiProperty({ minLength: 8, maxLength: 128, example: 'correct horse battery' })
  @IsString()
  @CodePointLength(8, 128)
  password: string;

  @ApiPropertyOptional({ maxLength: 50, example: 'Jane' })
  @Optional()
  @IsString()
  @CodePointLength(0, 50)
  first_name?: string;

  @ApiPropertyOptional({ maxLength: 50, example: 'Doe' })
  @Optional()
  @IsString()
  @CodePointLength(0, 50)
  last_name?: string;

  @ApiPropertyOptional({ maxLength: 20, example: '+1 555 0100' })
  @Optional()
  @IsString()
  @CodePointLength(0, 20)
  phone?: string;

  @ApiPropertyOptional({ maxLength: 255, example: '1 Main St, Springfield' })
  @Optional()
  @IsString()
  @CodePointLength(0, 255)
  address?: string;
}
