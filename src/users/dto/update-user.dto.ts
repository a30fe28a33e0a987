import { ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { IsBoolean, IsIn } from 'class-validator';
import { RegisterDto } from '../../auth/dto/register.dto.js';
import { ROLES, type Role } from '../user-accounts.js';
import { Optional } from '../../common/validation.js';

/** PUT /users/{id}: the profile fields of registration, all optional; `role` and `is_active` only for admins. */
export class UpdateUserDto extends PickType(RegisterDto, [
  'first_name',
  'last_name',
  'phone',
  'address',
] as const) {
  @ApiPropertyOptional({ enum: ROLES, description: 'Admins only' })
  @Optional()
  @IsIn(ROLES)
  role?: Role;

  @ApiPropertyOptional({ description: 'Admins only' })
  @Optional()
  @IsBoolean()
  is_active?: boolean;
}
