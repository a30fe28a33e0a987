import { ForbiddenException, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { TransactionRunner } from '../database/transaction-runner.js';
import { type ClientInfo, type IssuedSession, UserSessions } from '../sessions/user-sessions.js';
import { toUserResponse, UserResponseDto } from '../users/dto/user-response.dto.js';
import { UserAccounts } from '../users/user-accounts.js';
import type { AuthUser, TokenClaims } from './auth-user.js';
import type { ChangePasswordDto } from './dto/change-password.dto.js';
import type { LoginDto, LoginResponseDto, TokensDto } from './dto/login.dto.js';
import type { RegisterDto } from './dto/register.dto.js';
import { LoginFailures } from './login-failures.js';
import { PasswordHasher } from './password-hasher.js';
import { VerifiedTokens } from './verified-tokens.js';
import {
  type Authenticated,
  bearerToken,
  TokenAuthenticator,
  type TokenCaller,
} from './token-authenticator.js';

const BAD_CREDENTIALS = 'Invalid username or password';
export const EMAIL_NOT_VERIFIED =
  'E-mail address not verified: open the link of the verification e-mail, or ask for a new one at ' +
  'POST /auth/verify-email/resend';
const INVALID_CLAIMS = 'Invalid token claims';
/** A user id as a JWT subject: canonical decimal only (no sign, leading zero, space, exponent or hex). */
const CANONICAL_ID = /^[1-9][0-9]{0,15}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

@Injectable()
export class AuthService implements TokenAuthenticator {
  constructor(
    private readonly users: UserAccounts,
    private readonly sessions: UserSessions,
    private readonly hasher: PasswordHasher,
    private readonly jwt: JwtService,
    private readonly tokens: VerifiedTokens,
    private readonly failures: LoginFailures,
    private readonly transactions: TransactionRunner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** With `client` (cookie mode) it also opens a session, unless the account must verify its address first. */
  async register(dto: RegisterDto, client?: ClientInfo): Promise<UserResponseDto> {
    const user = await this.users.register(dto);
    const answer = toUserResponse(user, true);
    if (client === undefined || (this.config.requireVerifiedEmail && !user.emailVerified)) return answer;
    const issued = await this.sessions.create(
      { id: user.id, username: user.username, role: user.role },
      client,
    );
    return { ...answer, ...(await this.tokensFor(issued)) };
  }

  /** LoginLockGuard has already refused a locked account. */
  async login(dto: LoginDto, client: ClientInfo): Promise<LoginResponseDto> {
    const user = await this.users.findForLogin(dto.username);
    // The same answer (and about the same time) whether the user is unknown or the password wrong.
    if (!(await this.hasher.verify(user?.passwordHash ?? null, dto.password)) || user === null) {
      await this.failures.recordFailure(dto.username);
      throw new UnauthorizedException(BAD_CREDENTIALS);
    }
    if (!user.isActive) throw new UnauthorizedException('Account is deactivated');
    await this.failures.reset(dto.username);
    if (this.config.requireVerifiedEmail && !user.emailVerified)
      throw new ForbiddenException(EMAIL_NOT_VERIFIED);
    const issued = await this.sessions.create(
      { id: user.id, username: user.username, role: user.role },
      client,
    );
    return { ...(await this.tokensFor(issued)), user: toUserResponse(user, false) };
  }

  async refresh(refreshToken: string): Promise<TokensDto> {
    return this.tokensFor(await this.sessions.rotate(refreshToken));
  }

  logout(user: AuthUser): Promise<void> {
    return this.sessions.revoke(user.id, user.sessionId);
  }

  /** Checks the current password like a login (same message, same per-account limit), then ends the other sessions. */
  async changePassword(user: AuthUser, dto: ChangePasswordDto): Promise<void> {
    const hash = await this.users.findPasswordHash(user.id);
    if (hash === null || !(await this.hasher.verify(hash, dto.current_password))) {
      await this.failures.recordFailure(user.username);
      throw new UnauthorizedException(BAD_CREDENTIALS);
    }
    await this.failures.reset(user.username);
    const newHash = await this.hasher.hash(dto.new_password);
    await this.transactions.run('change password', async (manager) => {
      await this.users.setPasswordHash(manager, user.id, newHash);
      await this.sessions.revokeAll(manager, user.id, user.sessionId);
    });
  }

  /** The caller behind verified claims, or 401 when the claims are malformed or the session or account ended. */
  async userFromClaims(claims: TokenClaims): Promise<AuthUser> {
    if (!wellFormed(claims)) throw new UnauthorizedException(INVALID_CLAIMS);
    const { sub, sid } = claims;
    const user = await this.sessions.findAuthenticated(Number(sub), sid);
    if (user === null) throw new UnauthorizedException('Token is no longer valid');
    return user;
  }

  /** Verifies a raw token (signature, HS256, expiry, claims) and loads its caller; where there is no HTTP guard. */
  async authenticate(token: string): Promise<Authenticated> {
    let claims: TokenClaims;
    try {
      claims = this.tokens.verify(token);
    } catch {
      throw new UnauthorizedException('Invalid or expired token');
    }
    const user = await this.userFromClaims(claims);
    return { user, expiresAt: (claims.exp as number) * 1000 };
  }

  verifiedCaller(authorization: string | undefined): TokenCaller | null {
    const token = bearerToken(authorization);
    if (token === null) return null;
    let claims: TokenClaims;
    try {
      claims = this.tokens.verify(token);
    } catch {
      return null;
    }
    if (!wellFormed(claims)) return null;
    return { id: Number(claims.sub), role: claims.role === 'admin' ? 'admin' : 'user' };
  }

  private async tokensFor({ session, user, refreshToken }: IssuedSession): Promise<TokensDto> {
    const claims: TokenClaims = {
      sub: String(user.id),
      sid: session.id,
      username: user.username,
      role: user.role,
    };
    return {
      token: await this.jwt.signAsync(claims),
      expires_in: this.config.jwt.expiresInSeconds,
      refresh_token: refreshToken,
      // A refresh sets the session's expiry afresh, so it is always the full lifetime.
      refresh_expires_in: this.config.sessions.refreshTtlSeconds,
    };
  }
}

/** Claims of the shape this service signs: a canonical user id, a session UUID and an expiry. */
function wellFormed(claims: TokenClaims): boolean {
  const { sub, sid, exp } = claims as Partial<Record<keyof TokenClaims, unknown>>;
  return (
    typeof exp === 'number' &&
    typeof sid === 'string' &&
    UUID.test(sid) &&
    typeof sub === 'string' &&
    CANONICAL_ID.test(sub) &&
    Number.isSafeInteger(Number(sub))
  );
}
