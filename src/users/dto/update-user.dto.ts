import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { ROLES, type Role } from '../user.entity.js';

/** PUT /users/{id}: every field optional (partial update); `role` and `is_active` only for admins. */
export class UpdateUserDto {
  @ApiPropertyOptional({ maxLength: 50, example: 'Jane' })
  @IsOptional()
  @IsString()
  @MaxLength(50)
  first_name?: string;

  @ApiPropertyOptional({ maxLength: 50, example: 'Doe' })
  @IsOptional()
  @IsString()
  @MaxLength(50)
  last_name?: string;

  @ApiPropertyOptional({ maxLength: 20, example: '+1 555 0100' })
  @IsOptional()
  @IsString()
  @MaxLength(20)
  phone?: string;

  @ApiPropertyOptional({ maxLength: 255, example: '1 Main St, Springfield' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  address?: string;

  @ApiPropertyOptional({ enum: ROLES, description: 'Admins only' })
  @IsOptional()
  @IsIn(ROLES)
  role?: Role;

  @ApiPropertyOptional({ description: 'Admins only' })
  @IsOptional()
  @IsBoolean()
  is_active?: boolean;
}
