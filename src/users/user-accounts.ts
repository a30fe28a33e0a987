import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import type { AuthUser } from '../auth/auth-user.js';
import { forUpdate } from '../database/row-locks.js';
import type { Tx } from '../database/transaction-runner.js';
import type { UserResponseDto } from './dto/user-response.dto.js';
import { User } from './user.entity.js';

export const ROLES = ['user', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** The fields of a new account, as registration receives them. */
export interface NewAccount {
  username: string;
  email: string;
  password: string;
  first_name?: string;
  last_name?: string;
  phone?: string;
  address?: string;
}

/** An account as other modules see it; the password hash is loaded only by `findForLogin`. */
export type Account = User;

/** What other modules may ask of the users module (bound to UsersService in UsersModule). */
export abstract class UserAccounts {
  /** Creates a user account; 400 naming `username` or `email` when either is taken. */
  abstract register(account: NewAccount): Promise<Account>;

  /** For login: the active or inactive account with its password hash, or null. */
  abstract findForLogin(username: string): Promise<Account | null>;

  /** The password hash of an existing account, or null. */
  abstract findPasswordHash(id: number): Promise<string | null>;

  abstract setPasswordHash(tx: Tx, id: number, passwordHash: string): Promise<void>;

  /** The active, not deleted account with this e-mail address (ignoring case), or null. */
  abstract findActiveByEmail(email: string): Promise<Account | null>;

  /** The active, not deleted account with this id, or null. */
  abstract findActive(id: number): Promise<Account | null>;

  /** Marks the account's e-mail address as verified, inside the caller's transaction. */
  abstract markEmailVerified(tx: Tx, id: number): Promise<void>;

  /** The account as its owner or an admin reads it (403 for anyone else, 404 when deleted). */
  abstract get(id: number, actor: AuthUser): Promise<UserResponseDto>;
}

/**
 * Locks the user's row until the caller's transaction ends: how a module counts one user's concurrent writes
 * one after the other (the upload quota). Plain function: it needs nothing but the transaction.
 */
export async function lockAccount(tx: Tx, userId: number): Promise<void> {
  await forUpdate(
    tx
      .getRepository(User)
      .createQueryBuilder('user')
      .select('user.id')
      .where('user.id = :userId', { userId }),
  ).getOne();
}

/** What a joined owner carries (`joinAccountSummary`). */
export type AccountSummary = Pick<User, 'id' | 'username' | 'email'>;

/**
 * Maps each row's owner into `property` as an AccountSummary (deleted accounts too when the query is
 * `withDeleted`); gives the joined columns a search may match.
 */
export function joinAccountSummary<T extends ObjectLiteral>(
  query: SelectQueryBuilder<T>,
  property: string,
  ownerIdColumn: string,
  alias = 'owner',
): string[] {
  query.leftJoinAndMapOne(property, User, alias, `${alias}.id = ${ownerIdColumn}`);
  return [`${alias}.username`, `${alias}.email`];
}
