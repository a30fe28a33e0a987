import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ROLES, type Role } from '../user-accounts.js';
import type { User } from '../user.entity.js';

/** A user as the API shows it; phone and address only where `withContact` (register, detail, update). */
export class UserResponseDto {
  @ApiProperty({ type: 'integer', example: 7 }) id: number;
  @ApiProperty({ example: 'jane_doe' }) username: string;
  @ApiProperty({ format: 'email', example: 'jane@example.com' }) email: string;
  @ApiProperty({ example: 'Jane' }) first_name: string;
  @ApiProperty({ example: 'Doe' }) last_name: string;
  @ApiPropertyOptional({ example: '+1 555 0100', description: 'Register, detail and update only' })
  phone?: string;
  @ApiPropertyOptional({ example: '1 Main St, Springfield', description: 'Register, detail and update only' })
  address?: string;
  @ApiProperty({ example: true }) is_active: boolean;
  @ApiProperty({
    example: true,
    description: 'Whether the owner has confirmed the address with the link of the verification e-mail',
  })
  email_verified: boolean;
  @ApiProperty({ enum: ROLES, example: 'user' }) role: Role;
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'integer' },
    example: [3],
    description:
      'The customer groups the account is in, ascending (price lists and promotions may be limited to them); ' +
      'the admin list (GET /users), detail (GET /users/{id}, GET /me) and update only',
  })
  customer_group_ids?: number[];
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) created_at: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-22T08:00:00.000Z' }) updated_at: string;
}

export function toUserResponse(user: User, withContact: boolean): UserResponseDto {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    first_name: user.firstName,
    last_name: user.lastName,
    ...(withContact ? { phone: user.phone, address: user.address } : {}),
    is_active: user.isActive,
    email_verified: user.emailVerified,
    role: user.role,
    created_at: user.createdAt.toISOString(),
    updated_at: user.updatedAt.toISOString(),
  };
}
