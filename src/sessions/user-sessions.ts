import type { AuthUser } from '../auth/auth-user.js';
import type { Tx } from '../database/transaction-runner.js';
import type { Session } from './session.entity.js';

export interface ClientInfo {
  userAgent: string;
  ip: string;
}

export interface IssuedSession {
  session: Session;
  user: AuthUser;
  refreshToken: string;
}

/** What other modules may ask of the sessions module (bound to SessionsService in SessionsModule). */
export abstract class UserSessions {
  /** Opens a session for a user who has just proved their password; returns its first refresh token. */
  abstract create(user: Omit<AuthUser, 'sessionId'>, client: ClientInfo): Promise<IssuedSession>;

  /** The caller if the session is live and its user active, else null (the per-request authentication). */
  abstract findAuthenticated(userId: number, sessionId: string): Promise<AuthUser | null>;

  /** Exchanges a refresh token for the session's next one; 401 when it is unknown, used or expired. */
  abstract rotate(refreshToken: string): Promise<IssuedSession>;

  /** Revokes one live session of the user; another user's session, like an unknown one, is 404. */
  abstract revoke(userId: number, sessionId: string): Promise<void>;

  /**
   * Revokes every live session of the user but `exceptSessionId`, inside the caller's transaction, and publishes
   * `sessions.revoked` in it (their WebSocket connections close after the commit). Returns how many were revoked.
   */
  abstract revokeAll(tx: Tx, userId: number, exceptSessionId: string | null): Promise<number>;
}
