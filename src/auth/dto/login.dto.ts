import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { UserResponseDto } from '../../users/dto/user-response.dto.js';
import { CodePointLength, NormalizedIdentifier } from '../../common/validation.js';

export class LoginDto {
  @ApiProperty({
    example: 'jane_doe',
    description: 'Username (not the email), NFKC-normalised and matched ignoring case like at registration',
  })
  @NormalizedIdentifier()
  @IsString()
  @CodePointLength(1, 254)
  username: string;

  @ApiProperty({ example: 'correct horse battery' })
  @IsString()
  @CodePointLength(1, 128)
  password: string;
}

export class RefreshDto {
  @ApiProperty({
    example: '0b5e7a52-3f0c-4c57-9d1e-6a3a8f1c2d4e.Q2hhbmdlIG1lOiB0aGlzIGlzIGFuIGV4YW1wbGUgb25seQ',
    description:
      'The refresh token of the last login or refresh. Left out in cookie mode (`X-Session: cookie`), where the ' +
      'refresh cookie carries it; required otherwise.',
  })
  @IsOptional()
  @IsString()
  @CodePointLength(1, 200)
  refresh_token?: string;
}

/** The tokens of a login or a refresh. */
export class TokensDto {
  @ApiProperty({
    example: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9…',
    description: 'HS256 JWT for Authorization: Bearer',
  })
  token: string;

  @ApiProperty({ example: 900, description: 'Seconds until the access token expires (JWT_EXPIRES_IN)' })
  expires_in: number;

  @ApiProperty({
    example: '0b5e7a52-3f0c-4c57-9d1e-6a3a8f1c2d4e.Q2hhbmdlIG1lOiB0aGlzIGlzIGFuIGV4YW1wbGUgb25seQ',
    description: 'Opaque; exchange it at POST /auth/refresh. Each one works once.',
  })
  refresh_token: string;

  @ApiProperty({
    example: 2592000,
    description: 'Seconds until the session ends unless refreshed before (REFRESH_TOKEN_TTL)',
  })
  refresh_expires_in: number;

  @ApiPropertyOptional({
    example: 'mZ8Qw3…',
    description:
      'Cookie mode only (`X-Session: cookie`), which leaves out `token` and `refresh_token` (they are in ' +
      'HttpOnly cookies): the X-CSRF-Token to send with every unsafe call of this session',
  })
  csrf_token?: string;
}

export class CsrfTokenDto {
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'mZ8Qw3…',
    description:
      "The X-CSRF-Token for the request's cookies: its session's, else its anonymous cart's, else its guest " +
      "order's; null when it carries none of the service's cookies",
  })
  csrf_token: string | null;
}

export class LoginResponseDto extends TokensDto {
  @ApiProperty({ type: UserResponseDto, description: 'Without phone and address' })
  user: UserResponseDto;
}
