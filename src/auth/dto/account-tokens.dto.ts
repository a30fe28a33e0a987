import { ApiProperty, IntersectionType, PickType } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { CodePointLength } from '../../common/validation.js';
import { RegisterDto } from './register.dto.js';

/** POST /auth/password-reset and /auth/verify-email/resend: the address the e-mail goes to. */
export class AccountEmailDto extends PickType(RegisterDto, ['email'] as const) {}

/** POST /auth/verify-email: the token of the e-mail. */
export class TokenDto {
  @ApiProperty({
    example: 'pX3c1o9yqz7JcVw0K0t4mJm2mC1yZ0m7nq2yQeZt8gQ',
    description: 'The token of the e-mail (also in its link)',
  })
  @IsString()
  @CodePointLength(1, 128)
  token: string;
}

/** POST /auth/password-reset/confirm: the token and the new password (registration's rules). */
export class ConfirmPasswordResetDto extends IntersectionType(
  TokenDto,
  PickType(RegisterDto, ['password'] as const),
) {}
