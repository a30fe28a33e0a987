/**
 * Published in the transaction that revokes sessions (EventBus); after its commit the realtime gateway closes
 * the matching WebSocket connections on every instance.
 */
declare module '../events/domain-events.js' {
  interface DomainEvents {
    'sessions.revoked': SessionsRevokedEvent;
  }
}

export interface SessionsRevokedEvent {
  userId: number;
  /** The one session revoked; null when all the user's sessions were (but `exceptSessionId`). */
  sessionId: string | null;
  exceptSessionId: string | null;
}
