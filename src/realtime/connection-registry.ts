import { Inject, Injectable, Logger } from '@nestjs/common';
import { WebSocket } from 'ws';
import type { AuthUser } from '../auth/auth-user.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { Metrics } from '../observability/metrics.js';
import type { SessionsRevokedEvent } from '../sessions/session-events.js';
import type { ConnectionSlot } from './connection-slots.js';
import { CLOSE_UNAUTHORIZED, errorFrame } from './frames.js';

/** What the gateway keeps about one authenticated connection. */
export interface Session {
  /** The caller and the login session of the token in use (replaced by an in-band `auth` frame). */
  user: AuthUser;
  /** When that token expires; the connection is closed then. */
  expiryTimer: NodeJS.Timeout | undefined;
  /** Cleared at each heartbeat, set again by the client's pong (or any frame). */
  isAlive: boolean;
  /** The client's IP (as Express sees it, see TRUST_PROXY). */
  ip: string;
  /** Its place in the cluster-wide connection counts. */
  slot: ConnectionSlot;
  windowStartedAt: number;
  framesInWindow: number;
  /** 429 warnings sent since the connection last kept to the frame rate for a whole second. */
  rateWarnings: number;
}

/** The authenticated connections of this instance, indexed by user for targeted events. */
@Injectable()
export class ConnectionRegistry {
  private readonly logger = new Logger('Realtime');
  private readonly sessions = new Map<WebSocket, Session>();
  private readonly byUser = new Map<number, Set<WebSocket>>();
  private readonly countByIp = new Map<string, number>();
  /** Admin connections subscribed to the `orders` channel. */
  private readonly orderSubscribers = new Set<WebSocket>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  add(socket: WebSocket, user: AuthUser, slot: ConnectionSlot): Session {
    const session: Session = {
      user,
      expiryTimer: undefined,
      isAlive: true,
      ip: slot.ip,
      slot,
      windowStartedAt: 0,
      framesInWindow: 0,
      rateWarnings: 0,
    };
    this.sessions.set(socket, session);
    let sockets = this.byUser.get(user.id);
    if (sockets === undefined) {
      sockets = new Set();
      this.byUser.set(user.id, sockets);
    }
    sockets.add(socket);
    this.countByIp.set(slot.ip, this.connectionsFrom(slot.ip) + 1);
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
    const fromIp = this.connectionsFrom(session.ip) - 1;
    if (fromIp > 0) this.countByIp.set(session.ip, fromIp);
    else this.countByIp.delete(session.ip);
    return session;
  }

  get size(): number {
    return this.sessions.size;
  }

  connectionsOf(userId: number): number {
    return this.byUser.get(userId)?.size ?? 0;
  }

  connectionsFrom(ip: string): number {
    return this.countByIp.get(ip) ?? 0;
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
    this.sendToEach(this.orderSubscribers, payload);
  }

  /** Sends an already serialised frame to every connection of this instance. */
  sendToAll(payload: string): void {
    this.sendToEach(this.sessions.keys(), payload);
  }

  /** Sends an already serialised frame to every admin connection of this instance. */
  sendToAdmins(payload: string): void {
    const admins = [...this.sessions].filter(([, session]) => session.user.role === 'admin');
    this.sendToEach(
      admins.map(([socket]) => socket),
      payload,
    );
  }

  /** Sends an already serialised frame to the given user's connections on this instance. */
  sendToUser(userId: number, payload: string): void {
    this.sendToEach(this.byUser.get(userId) ?? [], payload);
  }

  /**
   * Encodes the frame once for all its recipients. A recipient whose unsent output already passes
   * WS_MAX_BUFFERED_BYTES (it does not read, or reads slower than it is sent to) is cut instead of
   * letting its buffer grow in the server's memory.
   */
  private sendToEach(sockets: Iterable<WebSocket>, payload: string): void {
    const bytes = Buffer.from(payload);
    const bound = this.config.ws.maxBufferedBytes;
    for (const socket of sockets) {
      if (socket.readyState !== WebSocket.OPEN) continue;
      if (socket.bufferedAmount > bound) {
        this.cutSlowConsumer(socket);
        continue;
      }
      socket.send(bytes, { binary: false });
    }
  }

  private cutSlowConsumer(socket: WebSocket): void {
    this.metrics.websocketClosures.inc({ reason: 'slow_consumer' });
    this.logger.warn({
      msg: 'WebSocket client does not read its frames, terminated',
      userId: this.sessions.get(socket)?.user.id,
      bufferedBytes: socket.bufferedAmount,
    });
    // A close frame would wait behind the unread output: the connection is cut at once.
    socket.terminate();
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
