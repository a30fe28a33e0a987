import { ApiProperty } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';
import type { Session } from '../session.entity.js';

/** `:id` of a session: a UUID, else 400 naming `id`. */
export class SessionIdParamDto {
  @ApiProperty({ format: 'uuid', example: '0b5e7a52-3f0c-4c57-9d1e-6a3a8f1c2d4e' })
  @IsUUID('all', { message: 'id must be a session id (a UUID)' })
  id: string;
}

export class SessionResponseDto {
  @ApiProperty({ format: 'uuid', example: '0b5e7a52-3f0c-4c57-9d1e-6a3a8f1c2d4e' }) id: string;
  @ApiProperty({ example: '2026-11-22T08:00:00.000Z', description: 'Login time' }) created_at: string;
  @ApiProperty({ example: '2026-11-22T09:45:00.000Z', description: 'Login or last refresh' })
  last_used_at: string;
  @ApiProperty({ example: '2026-12-22T09:45:00.000Z', description: 'Ends unless refreshed before' })
  expires_at: string;
  @ApiProperty({ example: 'Mozilla/5.0 (X11; Linux x86_64)', description: 'At login, up to 255 characters' })
  user_agent: string;
  @ApiProperty({ example: '203.0.113.7', description: 'Client address at login (see TRUST_PROXY)' })
  ip: string;
  @ApiProperty({ example: true, description: 'The session of the token making this request' })
  current: boolean;
}

export class RevokedSessionsDto {
  @ApiProperty({ example: 2, description: 'How many sessions were revoked' }) revoked: number;
}

export function toSessionResponse(session: Session, current: boolean): SessionResponseDto {
  return {
    id: session.id,
    created_at: session.createdAt.toISOString(),
    last_used_at: session.lastUsedAt.toISOString(),
    expires_at: session.expiresAt.toISOString(),
    user_agent: session.userAgent,
    ip: session.ip,
    current,
  };
}
