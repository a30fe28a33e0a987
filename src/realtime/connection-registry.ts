import { Injectable } from '@nestjs/common';
import { WebSocket } from 'ws';
import type { AuthUser } from '../auth/auth-user.js';
import type { SessionsRevokedEvent } from '../sessions/session-events.js';
import { CLOSE_UNAUTHORIZED, errorFrame } from './frames.js';

/** What the gateway keeps about one authenticated connection. */
export interface Session {
  /** The caller and the login session of the token in use (replaced by an in-band `auth` frame). */
  user: AuthUser;
  /** When that token expires; the connection is closed then. */
  expiryTimer: NodeJS.Timeout | undefined;
  /** Cleared at each heartbeat, set again by the client's pong (or any frame). */
  isAlive: boolean;
  windowStartedAt: number;
  framesInWindow: number;
}

/** The authenticated connections of this instance, indexed by user for targeted events. */
@Injectable()
export class ConnectionRegistry {
  private readonly sessions = new Map<WebSocket, Session>();
  private readonly byUser = new Map<number, Set<WebSocket>>();
  /** Admin connections subscribed to the `orders` channel. */
  private readonly orderSubscribers = new Set<WebSocket>();

  add(socket: WebSocket, user: AuthUser): Session {
    const session: Session = {
      user,
      expiryTimer: undefined,
      isAlive: true,
      windowStartedAt: 0,
      framesInWindow: 0,
    };
    this.sessions.set(socket, session);
    let sockets = this.byUser.get(user.id);
    if (sockets === undefined) {
      sockets = new Set();
      this.byUser.set(user.id, sockets);
    }
    sockets.add(socket);
    return session;
  }

  /** Forgets a connection; returns its session if it was authenticated. */
  remove(socket: WebSocket): Session | undefined {
    const session = this.sessions.get(socket);
    if (session === undefined) return undefined;
    clearTimeout(session.expiryTimer);
    this.sessions.delete(socket);
    this.orderSubscribers.delete(socket);
    const sockets = this.byUser.get(session.user.id);
    sockets?.delete(socket);
    if (sockets?.size === 0) this.byUser.delete(session.user.id);
    return session;
  }

  get size(): number {
    return this.sessions.size;
  }

  connectionsOf(userId: number): number {
    return this.byUser.get(userId)?.size ?? 0;
  }

  entries(): IterableIterator<[WebSocket, Session]> {
    return this.sessions.entries();
  }

  /** Closes (error frame 401, then 4401) this instance's connections of the sessions the event revoked. */
  closeRevoked(event: SessionsRevokedEvent): void {
    for (const socket of this.byUser.get(event.userId) ?? []) {
      const sessionId = this.sessions.get(socket)?.user.sessionId;
      const revoked =
        event.sessionId === null ? sessionId !== event.exceptSessionId : sessionId === event.sessionId;
      if (revoked) closeUnauthorized(socket, 'Session has been revoked');
    }
  }

  setOrderSubscription(socket: WebSocket, subscribed: boolean): void {
    if (subscribed) this.orderSubscribers.add(socket);
    else this.orderSubscribers.delete(socket);
  }

  /** Sends an already serialised frame to the connections subscribed to `orders` on this instance. */
  sendToOrderSubscribers(payload: string): void {
    for (const socket of this.orderSubscribers) send(socket, payload);
  }

  /** Sends an already serialised frame to every connection of this instance. */
  sendToAll(payload: string): void {
    for (const socket of this.sessions.keys()) send(socket, payload);
  }

  /** Sends an already serialised frame to the given user's connections on this instance. */
  sendToUser(userId: number, payload: string): void {
    for (const socket of this.byUser.get(userId) ?? []) send(socket, payload);
  }
}

function send(socket: WebSocket, payload: string): void {
  if (socket.readyState === WebSocket.OPEN) socket.send(payload);
}

/** The protocol's end of an authenticated connection: an error frame 401, then close code 4401. */
export function closeUnauthorized(socket: WebSocket, details: string): void {
  send(socket, JSON.stringify(errorFrame(401, details)));
  socket.close(CLOSE_UNAUTHORIZED, 'Unauthorized');
}
