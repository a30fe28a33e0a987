import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One login: the access tokens issued for it carry its id (`sid`), and its refresh token rotates on every
 * use; the hashes of the secrets it rotated are in `session_rotated_tokens` (raw statements in SessionsService).
 * Revoked sessions stay until they expire, so that a replayed refresh token is still recognised.
 */
@Entity('sessions')
export class Session {
  /** A random UUID: refresh tokens start with it, so it must not be guessable. */
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ name: 'refresh_token_hash', type: 'varchar', length: 64 })
  refreshTokenHash: string;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt: Date;

  @Column({ name: 'last_used_at', type: 'datetime', precision: 3 })
  lastUsedAt: Date;

  @Column({ name: 'expires_at', type: 'datetime', precision: 3 })
  expiresAt: Date;

  @Column({ name: 'revoked_at', type: 'datetime', precision: 3, nullable: true })
  revokedAt: Date | null;

  @Column({ name: 'user_agent', type: 'varchar', length: 255, default: '' })
  userAgent: string;

  @Column({ type: 'varchar', length: 45, default: '' })
  ip: string;
}
