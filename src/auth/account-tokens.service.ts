import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { fieldError } from '../common/validation.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { TransactionRunner, type Tx } from '../database/transaction-runner.js';
import { JobQueue } from '../jobs/job-queue.js';
import { queueMail } from '../mail/mail-jobs.js';
import { OrderHistory } from '../orders/order-history.js';
import { UserSessions } from '../sessions/user-sessions.js';
import { type Account, lockAccount, UserAccounts } from '../users/user-accounts.js';
import { AccountToken } from './account-token.entity.js';
import { AccountTokens, type AccountTokenPurpose, type IssuedAccountToken } from './account-tokens.js';
import type { ConfirmPasswordResetDto } from './dto/account-tokens.dto.js';
import { LoginFailures } from './login-failures.js';
import { PasswordHasher } from './password-hasher.js';

const INVALID_TOKEN = 'token is unknown, used or expired';
/**
 * The e-mail job of a request starts this long after it: the job's work differs for known and unknown addresses
 * and must not overlap (and so lengthen) the answer. Measured in docs/operations.md#e-mail.
 */
const MAIL_DELAY_MS = 1000;

function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Password reset and e-mail verification: one-time tokens, sent by e-mail, stored as their SHA-256. */
@Injectable()
export class AccountTokensService implements AccountTokens {
  constructor(
    private readonly users: UserAccounts,
    private readonly sessions: UserSessions,
    private readonly hasher: PasswordHasher,
    private readonly failures: LoginFailures,
    private readonly transactions: TransactionRunner,
    private readonly jobs: JobQueue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly orders: OrderHistory,
  ) {}

  /**
   * Queues the password reset e-mail. The account is looked up only when the job runs, so a request for an
   * unknown address does exactly the work of one for a known address (one insert) and answers the same.
   */
  requestPasswordReset(email: string): Promise<void> {
    return queueMail(this.jobs, this.config, { kind: 'password-reset', email }, { delayMs: MAIL_DELAY_MS });
  }

  /** Queues the verification e-mail again (nothing is sent when the address is unknown or verified already). */
  resendVerification(email: string): Promise<void> {
    return queueMail(
      this.jobs,
      this.config,
      { kind: 'email-verification', email },
      { delayMs: MAIL_DELAY_MS },
    );
  }

  async issue(purpose: AccountTokenPurpose, email: string): Promise<IssuedAccountToken | null> {
    const user = await this.users.findActiveByEmail(email);
    if (user === null || (purpose === 'email_verification' && user.emailVerified)) return null;
    const token = randomBytes(32).toString('base64url');
    const ttlSeconds =
      purpose === 'password_reset'
        ? this.config.accountTokens.passwordResetTtlSeconds
        : this.config.accountTokens.emailVerificationTtlSeconds;
    const now = new Date();
    await this.transactions.run('issue account token', async (tx) => {
      await lockAccount(tx, user.id); // the user's row first: two requests at once take turns
      await tx.delete(AccountToken, { userId: user.id, purpose });
      await tx.insert(AccountToken, {
        userId: user.id,
        purpose,
        tokenHash: tokenHash(token),
        expiresAt: new Date(now.getTime() + ttlSeconds * 1000),
        createdAt: now,
      });
    });
    return { email: user.email, username: user.username, token, ttlSeconds };
  }

  /** Sets the new password, verifies the address (the e-mail reached it) and ends every session. */
  async confirmPasswordReset(dto: ConfirmPasswordResetDto): Promise<void> {
    const passwordHash = await this.hasher.hash(dto.password);
    const account = await this.transactions.run('reset password', async (tx) => {
      const user = await this.use(tx, 'password_reset', dto.token);
      await this.users.setPasswordHash(tx, user.id, passwordHash);
      await this.users.markEmailVerified(tx, user.id);
      await this.sessions.revokeAll(tx, user.id, null);
      return user;
    });
    // The owner has proved control of the account: failed logins before the reset no longer lock it.
    await this.failures.reset(account.username);
  }

  /**
   * Verifies the address and makes the guest orders placed with it the account's, in one transaction. Only this
   * proof of the address adopts them: not registration, nor an account counted as verified otherwise (created by
   * an admin, older than verification, or verified by a password reset).
   */
  async verifyEmail(token: string): Promise<void> {
    await this.transactions.run('verify email', async (tx) => {
      const user = await this.use(tx, 'email_verification', token);
      await this.users.markEmailVerified(tx, user.id);
      await this.orders.adoptGuestOrders(tx, user.id, user.email);
    });
  }

  /**
   * Deletes the token (so it works once) and gives its account; 400 naming `token` when the token does not work
   * or its account has since been deleted or deactivated.
   */
  private async use(tx: Tx, purpose: AccountTokenPurpose, token: string): Promise<Account> {
    const row = await tx.findOneBy(AccountToken, { tokenHash: tokenHash(token), purpose });
    if (row === null || row.expiresAt.getTime() <= Date.now()) {
      throw fieldError('token', 'valid', INVALID_TOKEN);
    }
    await lockAccount(tx, row.userId);
    // Of two uses at once, the second finds nothing left to delete.
    const { affected } = await tx.delete(AccountToken, { id: row.id });
    const account = await this.users.findActive(row.userId);
    if (affected !== 1 || account === null) throw fieldError('token', 'valid', INVALID_TOKEN);
    return account;
  }
}
