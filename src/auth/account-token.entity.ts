import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

import type { AccountTokenPurpose } from './account-tokens.js';

/** A one-time token sent by e-mail, stored as its SHA-256; deleted when used or when a newer one is issued. */
@Entity('account_tokens')
export class AccountToken {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  @Column({ type: 'varchar', length: 32 })
  purpose: AccountTokenPurpose;

  @Column({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash: string;

  @Column({ name: 'expires_at', type: 'datetime', precision: 3 })
  expiresAt: Date;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt: Date;
}
