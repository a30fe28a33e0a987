/**
 * Emitted (through EventEmitter2) after a transaction that revoked sessions has committed. The realtime
 * gateway closes the matching WebSocket connections on every instance.
 */
export const SESSIONS_REVOKED = 'sessions.revoked';

export interface SessionsRevokedEvent {
  userId: number;
  /** The one session revoked; null when all the user's sessions were (but `exceptSessionId`). */
  sessionId: string | null;
  exceptSessionId: string | null;
}
