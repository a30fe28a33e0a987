import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { SoftDeletable } from '../database/timestamped.js';
import type { Role } from './user-accounts.js';

@Entity('users')
export class User extends SoftDeletable {
  @PrimaryGeneratedColumn()
  id: number;

  /** Unique ignoring case (NOCASE collation on SQLite, *_ci on MySQL). */
  @Column({ type: 'varchar', length: 32 })
  username: string;

  @Column({ type: 'varchar', length: 254 })
  email: string;

  @Column({ name: 'password_hash', type: 'varchar', length: 255, select: false })
  passwordHash: string;

  @Column({ name: 'first_name', type: 'varchar', length: 50, default: '' })
  firstName: string;

  @Column({ name: 'last_name', type: 'varchar', length: 50, default: '' })
  lastName: string;

  @Column({ type: 'varchar', length: 20, default: '' })
  phone: string;

  @Column({ type: 'varchar', length: 255, default: '' })
  address: string;

  @Column({ type: 'varchar', length: 16, default: 'user' })
  role: Role;

  @Column({ name: 'is_active', type: 'boolean', default: true })
  isActive: boolean;

  /** Set once the owner has used the link of the verification e-mail (or of a password reset). */
  @Column({ name: 'email_verified', type: 'boolean', default: true })
  emailVerified: boolean;
}
