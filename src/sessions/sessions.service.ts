import { Inject, Injectable, NotFoundException, UnauthorizedException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Repository } from 'typeorm';
import type { AuthUser } from '../auth/auth-user.js';
import { Paginated } from '../common/envelope.js';
import { PageQueryDto, pageWindow } from '../common/pagination.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { sqlDatetime } from '../database/timestamps.js';
import { afterCommit, TransactionRunner, type Tx } from '../database/transaction-runner.js';
import { EventBus } from '../events/event-bus.js';
import { SessionResponseDto, toSessionResponse } from './dto/session.dto.js';
import { SessionCache } from './session-cache.js';
import type { SessionsRevokedEvent } from './session-events.js';
import { Session } from './session.entity.js';
import { type ClientInfo, type IssuedSession, UserSessions } from './user-sessions.js';

/**
 * The per-request authentication: the caller if the token's session is live and its user active, in one
 * statement (both primary-key lookups). `is_active = 1` matches how SQLite and MySQL store a true boolean.
 */
export const AUTHENTICATED_USER_SQL =
  'SELECT u.id, u.username, u.role FROM sessions s INNER JOIN users u ON u.id = s.user_id ' +
  'WHERE s.id = ? AND s.user_id = ? AND s.revoked_at IS NULL AND s.expires_at > ? ' +
  'AND u.is_active = 1 AND u.deleted_at IS NULL LIMIT 1';

/** A refresh token is `<session id>.<43 characters: 256 random bits, base64url>`. */
const REFRESH_TOKEN = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([A-Za-z0-9_-]{43})$/;

export const INVALID_REFRESH_TOKEN = 'Invalid refresh token';

const RECORD_ROTATED =
  'INSERT INTO session_rotated_tokens (session_id, token_hash, rotated_at) VALUES (?, ?, ?)';
const WAS_ROTATED = 'SELECT 1 AS hit FROM session_rotated_tokens WHERE session_id = ? AND token_hash = ?';
const PURGE_ROTATED = 'DELETE FROM session_rotated_tokens WHERE rotated_at <= ?';

const USER_EXISTS = 'SELECT id FROM users WHERE id = ? AND deleted_at IS NULL';

const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

function newSecret(): { secret: string; hash: string } {
  const secret = randomBytes(32).toString('base64url');
  return { secret, hash: hashSecret(secret) };
}

@Injectable()
export class SessionsService implements UserSessions {
  constructor(
    @InjectRepository(Session) private readonly sessions: Repository<Session>,
    private readonly transactions: TransactionRunner,
    private readonly events: EventBus,
    private readonly cache: SessionCache,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Opens a session for a user who has just proved their password; returns its first refresh token. */
  async create(user: Omit<AuthUser, 'sessionId'>, client: ClientInfo): Promise<IssuedSession> {
    const now = new Date();
    const { secret, hash } = newSecret();
    const session = this.sessions.create({
      id: randomUUID(),
      userId: user.id,
      refreshTokenHash: hash,
      createdAt: now,
      lastUsedAt: now,
      expiresAt: this.expiryFrom(now),
      revokedAt: null,
      userAgent: client.userAgent.slice(0, 255),
      ip: client.ip.slice(0, 45),
    });
    await this.transactions.run('open session', (manager) => manager.insert(Session, session));
    return { session, user: { ...user, sessionId: session.id }, refreshToken: `${session.id}.${secret}` };
  }

  /**
   * For every authenticated request: the caller, or null when the session or the account is no longer valid.
   * Remembered for SESSION_CACHE_TTL_MS; revocations take effect at once all the same (SessionCache).
   */
  findAuthenticated(userId: number, sessionId: string): Promise<AuthUser | null> {
    return this.cache.find(userId, sessionId, async () => {
      const rows: AuthUser[] = await this.sessions.query(AUTHENTICATED_USER_SQL, [
        sessionId,
        userId,
        sqlDatetime(new Date()),
      ]);
      if (rows.length === 0) return null;
      return { id: Number(rows[0].id), username: rows[0].username, role: rows[0].role, sessionId };
    });
  }

  /**
   * Exchanges a refresh token for the session's next one. The swap is one conditional UPDATE, so of two
   * requests with the same token exactly one wins; the replaced token's hash is recorded in the same
   * transaction. A replay of a token the session issued and rotated is taken for theft: the whole session is
   * revoked. Any other secret is refused and changes nothing (the session id is in every access token).
   */
  async rotate(refreshToken: string): Promise<IssuedSession> {
    const match = REFRESH_TOKEN.exec(refreshToken);
    if (match === null) throw new UnauthorizedException(INVALID_REFRESH_TOKEN);
    const [, sessionId, secret] = match;
    const now = new Date();
    const next = newSecret();
    const expiresAt = this.expiryFrom(now);
    const hash = hashSecret(secret);
    const rotated = await this.transactions.run('rotate session', async (manager) => {
      // The session row first, then the child row, as every write of the service does.
      const result = await manager
        .createQueryBuilder()
        .update(Session)
        .set({ refreshTokenHash: next.hash, lastUsedAt: now, expiresAt })
        .where('id = :sessionId AND refresh_token_hash = :hash', { sessionId, hash })
        .andWhere('revoked_at IS NULL AND expires_at > :now', { now })
        .andWhere(
          'EXISTS (SELECT 1 FROM users u WHERE u.id = sessions.user_id AND u.is_active = 1 AND u.deleted_at IS NULL)',
        )
        .execute();
      if (result.affected === 1) await manager.query(RECORD_ROTATED, [sessionId, hash, sqlDatetime(now)]);
      return result.affected === 1;
    });
    const session = await this.sessions.findOneBy({ id: sessionId });
    if (session === null) throw new UnauthorizedException(INVALID_REFRESH_TOKEN);
    if (!rotated) throw await this.refusal(session, hash, now);
    // Not the authenticated lookup: a concurrent replay may already have revoked the session, and this request,
    // which won the rotation, still gets its answer (whose tokens that revocation has ended).
    const rows: Array<Omit<AuthUser, 'sessionId'>> = await this.sessions.query(
      'SELECT id, username, role FROM users WHERE id = ?',
      [session.userId],
    );
    const user = {
      id: Number(rows[0].id),
      username: rows[0].username,
      role: rows[0].role,
      sessionId: session.id,
    };
    return { session, user, refreshToken: `${session.id}.${next.secret}` };
  }

  private async refusal(session: Session, hash: string, now: Date): Promise<UnauthorizedException> {
    const current = session.refreshTokenHash === hash;
    // A secret this session never issued: the same answer as an unknown session, whatever its state.
    if (!current && !(await this.wasRotated(session.id, hash))) {
      return new UnauthorizedException(INVALID_REFRESH_TOKEN);
    }
    if (session.revokedAt !== null) return new UnauthorizedException('Session has been revoked');
    if (session.expiresAt <= now) return new UnauthorizedException('Session has expired');
    // The token is the current one, so the account is what failed (deactivated or deleted).
    if (current) return new UnauthorizedException('Token is no longer valid');
    // A replay of a rotated token. Several at once: whichever revokes first, all of them get this answer.
    await this.revokeIfLive(session.userId, session.id);
    return new UnauthorizedException('Refresh token was already used: the session has been revoked');
  }

  /** Whether the session issued this secret and has rotated it since (read after the rotation committed). */
  private async wasRotated(sessionId: string, hash: string): Promise<boolean> {
    return (await this.sessions.query(WAS_ROTATED, [sessionId, hash])).length > 0;
  }

  /**
   * A user's live sessions, the most recently used first; `current` marks the caller's own session. An admin
   * listing another user's sessions names a user that must exist (deleted ones are 404 too).
   */
  async list(
    user: AuthUser,
    query: PageQueryDto,
    userId: number = user.id,
  ): Promise<Paginated<SessionResponseDto>> {
    if (userId !== user.id) await this.requireUser(userId);
    const { page, pageSize, skip } = pageWindow(query, this.config.pageSizeMax);
    const [sessions, total] = await this.sessions
      .createQueryBuilder('s')
      .where('s.userId = :userId AND s.revokedAt IS NULL AND s.expiresAt > :now', {
        userId,
        now: new Date(),
      })
      .orderBy('s.lastUsedAt', 'DESC')
      .addOrderBy('s.id', 'ASC')
      .skip(skip)
      .take(pageSize)
      .getManyAndCount();
    return new Paginated(
      sessions.map((session) => toSessionResponse(session, session.id === user.sessionId)),
      total,
      page,
      pageSize,
    );
  }

  /** Revokes one live session of the user; another user's session, like an unknown one, is 404. */
  async revoke(userId: number, sessionId: string): Promise<void> {
    if (!(await this.revokeIfLive(userId, sessionId))) {
      throw new NotFoundException(`Session ${sessionId} not found`);
    }
  }

  private async revokeIfLive(userId: number, sessionId: string): Promise<boolean> {
    return this.transactions.run('revoke session', async (manager) => {
      const result = await manager
        .createQueryBuilder()
        .update(Session)
        .set({ revokedAt: new Date() })
        .where('id = :sessionId AND user_id = :userId', { sessionId, userId })
        .andWhere('revoked_at IS NULL AND expires_at > :now', { now: new Date() })
        .execute();
      if (result.affected === 0) return false;
      await this.publishRevoked(manager, { userId, sessionId, exceptSessionId: null });
      return true;
    });
  }

  /**
   * Revokes every live session of the user but `exceptSessionId`, inside the caller's transaction, and publishes
   * `sessions.revoked` in it when there were any. Returns how many were revoked.
   */
  async revokeAll(tx: Tx, userId: number, exceptSessionId: string | null): Promise<number> {
    const update = tx
      .createQueryBuilder()
      .update(Session)
      .set({ revokedAt: new Date() })
      .where('user_id = :userId AND revoked_at IS NULL', { userId });
    if (exceptSessionId !== null) update.andWhere('id <> :exceptSessionId', { exceptSessionId });
    const revoked = (await update.execute()).affected ?? 0;
    if (revoked > 0) await this.publishRevoked(tx, { userId, sessionId: null, exceptSessionId });
    return revoked;
  }

  /** The event for the WebSocket connections, and the cached sessions forgotten on every instance after commit. */
  private async publishRevoked(tx: Tx, event: SessionsRevokedEvent): Promise<void> {
    await this.events.publish(tx, 'sessions.revoked', event);
    afterCommit(tx, () => this.cache.revoked(event));
  }

  /** Revokes every live session of a user (an admin's action; the caller's own current one included). */
  async revokeAllOf(userId: number): Promise<number> {
    await this.requireUser(userId);
    return this.transactions.run('revoke user sessions', (manager) => this.revokeAll(manager, userId, null));
  }

  private async requireUser(userId: number): Promise<void> {
    const found = await this.sessions.query(USER_EXISTS, [userId]);
    if (found.length === 0) throw new NotFoundException(`User ${userId} not found`);
  }

  /** Revokes all the caller's other sessions. */
  async revokeOthers(user: AuthUser): Promise<number> {
    return this.transactions.run('revoke other sessions', (manager) =>
      this.revokeAll(manager, user.id, user.sessionId),
    );
  }

  /**
   * Deletes expired sessions (their rotated tokens with them, by the foreign key) and the rotated tokens of live
   * sessions older than REFRESH_TOKEN_TTL, which would have expired by now had they not been rotated. Conditional
   * statements, harmless when several instances run them at once. Returns the number of sessions deleted.
   */
  async purgeExpired(): Promise<number> {
    const now = new Date();
    const result = await this.transactions.run('purge sessions', async (manager) => {
      await manager.query(PURGE_ROTATED, [
        sqlDatetime(new Date(now.getTime() - this.config.sessions.refreshTtlSeconds * 1000)),
      ]);
      return manager
        .createQueryBuilder()
        .delete()
        .from(Session)
        .where('expires_at <= :now', { now })
        .execute();
    });
    return result.affected ?? 0;
  }

  private expiryFrom(now: Date): Date {
    return new Date(now.getTime() + this.config.sessions.refreshTtlSeconds * 1000);
  }
}
