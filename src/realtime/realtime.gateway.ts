import { BeforeApplicationShutdown, Inject, Logger, UnauthorizedException } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import {
  OnGatewayConnection,
  OnGatewayDisconnect,
  OnGatewayInit,
  WebSocketGateway,
  WebSocketServer,
} from '@nestjs/websockets';
import type { Application, Request } from 'express';
import type { IncomingMessage } from 'node:http';
import {
  WebSocket,
  type RawData,
  type VerifyClientCallbackAsync,
  type WebSocketServer as WsServer,
} from 'ws';
import { CookieSessions } from '../auth/cookie-sessions.js';
import { TokenAuthenticator } from '../auth/token-authenticator.js';
import { RateLimiter } from '../common/rate-limit.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { EventBus } from '../events/event-bus.js';
import { webSocketFramesOf } from '../events/websocket-frames.js';
import { Metrics } from '../observability/metrics.js';
import { closeUnauthorized, ConnectionRegistry, type Session } from './connection-registry.js';
import { ConnectionSlots, type SlotRefusal } from './connection-slots.js';
import {
  CLOSE_TOO_MANY_CONNECTIONS,
  errorFrame,
  MAX_FRAME_BYTES,
  parseClientFrame,
  type ServerFrame,
} from './frames.js';
import { RealtimeFanout } from './realtime-fanout.js';

/** The global prefix does not apply to gateways, so the path is spelled out. */
export const WS_PATH = '/api/v1/ws';
const CLOSE_GOING_AWAY = 1001;
const CLOSE_POLICY_VIOLATION = 1008;
const CLOSE_SERVER_ERROR = 1011;
/** How long shutdown waits for clients to answer the close frame before the sockets are cut. */
const SHUTDOWN_GRACE_MS = 2000;
/**
 * How long a connection closed for abuse (1008, 1009, other protocol errors) has to answer the close frame
 * before its TCP connection is cut; ws itself would wait 30 s, holding the socket and the connection slot.
 */
const ABUSE_CLOSE_GRACE_MS = 500;
/** Node's timers overflow past this (about 24.8 days) and would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const toBuffer = (data: RawData): Buffer =>
  Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);

/**
 * `/api/v1/ws?token=JWT` (or a cookie session's access cookie): authenticates like the HTTP guard, then relays chat messages (as WS_CHAT says) and
 * order events to their owner. Frames are read here rather than through @SubscribeMessage so that
 * every bad frame gets the protocol's error frame and the connection stays open.
 */
@WebSocketGateway({ path: WS_PATH, maxPayload: MAX_FRAME_BYTES })
export class RealtimeGateway
  implements OnGatewayInit, OnGatewayConnection, OnGatewayDisconnect, BeforeApplicationShutdown
{
  @WebSocketServer() private readonly server: WsServer;
  private readonly logger = new Logger('Realtime');
  private heartbeat: NodeJS.Timeout | undefined;
  /** This instance's chat messages in the current second, for WS_CHAT_MESSAGES_PER_SECOND. */
  private chatWindowStartedAt = 0;
  private chatMessagesInWindow = 0;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly auth: TokenAuthenticator,
    private readonly cookies: CookieSessions,
    private readonly registry: ConnectionRegistry,
    private readonly fanout: RealtimeFanout,
    private readonly metrics: Metrics,
    private readonly slots: ConnectionSlots,
    private readonly limiter: RateLimiter,
    private readonly adapterHost: HttpAdapterHost,
    events: EventBus,
  ) {
    // Logout, password change, admin deactivation, deletion or role change: the sessions' sockets close everywhere.
    events.subscribe('sessions.revoked', (event) => this.fanout.closeRevoked(event.data));
    // Every event a module declared with sendAsWebSocketFrames, as frames `{type, data}` to its audiences.
    events.subscribe('*', (event) => {
      for (const { to, data } of webSocketFramesOf(event)) {
        const frame = { type: event.type, data };
        if ('userId' in to) this.fanout.sendToUser(to.userId, frame);
        else this.fanout.sendToOrderSubscribers(frame);
      }
    });
  }

  afterInit(): void {
    this.heartbeat = setInterval(() => this.checkHeartbeats(), this.config.ws.heartbeatMs);
    this.heartbeat.unref();
    // ws consults its options at each handshake; the hook needs this instance, so it is set here.
    this.server.options.verifyClient = this.verifyHandshake;
  }

  /**
   * Counts the handshake in the `websocket-upgrade` bucket (upgrades never reach the HTTP middleware);
   * past the limit the upgrade is refused with an HTTP 429 envelope and `Retry-After`, before any
   * WebSocket exists.
   */
  private readonly verifyHandshake: VerifyClientCallbackAsync = ({ req }, accept) => {
    this.limiter.count('websocket-upgrade', this.clientIp(req)).then(
      (hit) => {
        if (hit.retryAfter === 0) return accept(true);
        const details = this.limiter.refusalDetails(hit);
        const body = JSON.stringify({ code: 429, message: 'Too Many Requests', data: { details } });
        accept(false, 429, body, {
          'Content-Type': 'application/json; charset=utf-8',
          'Retry-After': String(hit.retryAfter),
        });
      },
      (error: Error) => {
        this.logger.error({ msg: 'WebSocket handshake check failed', error: error.stack });
        accept(false, 500);
      },
    );
  };

  /** The client's IP exactly as Express gives it to HTTP requests (TRUST_PROXY decides about X-Forwarded-For). */
  private clientIp(request: IncomingMessage): string {
    const express = this.adapterHost.httpAdapter.getInstance<Application & { request: Request }>();
    const view = Object.create(express.request, {
      headers: { value: request.headers },
      socket: { value: request.socket },
    }) as Request;
    return view.ip ?? '';
  }

  handleConnection(socket: WebSocket, request: IncomingMessage): void {
    // Socket errors are the client's protocol violations (frame over the hard cap, invalid UTF-8), after
    // which ws closes the connection; the adapter would log each with a stack trace at error level.
    socket.removeAllListeners('error');
    socket.on('error', (error: Error & { code?: string }) => {
      if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
        this.metrics.websocketClosures.inc({ reason: 'frame_too_large' });
      }
      this.logger.warn({ msg: 'WebSocket protocol error', code: error.code, error: error.message });
      // ws has sent its close frame (1009, 1002, 1007) already.
      this.cutAfterCloseGrace(socket);
    });
    // Frames wait in the socket until the token is checked.
    socket.pause();
    void this.authenticate(socket, request);
  }

  handleDisconnect(socket: WebSocket): void {
    const session = this.registry.remove(socket);
    if (session !== undefined) {
      this.slots.release(session.slot);
      this.metrics.websocketConnections.set(this.registry.size);
      this.logger.log({ msg: 'WebSocket closed', userId: session.user.id, connections: this.registry.size });
    }
  }

  /** Closes every client with 1001 and waits (briefly) for them to answer before the server stops. */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.heartbeat);
    const open = [...this.server.clients].filter((socket) => socket.readyState !== WebSocket.CLOSED);
    if (open.length === 0) return;
    const closed = Promise.all(open.map((socket) => new Promise((resolve) => socket.once('close', resolve))));
    for (const socket of open) {
      socket.resume();
      socket.close(CLOSE_GOING_AWAY, 'Server shutting down');
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([closed, new Promise((resolve) => (timer = setTimeout(resolve, SHUTDOWN_GRACE_MS)))]);
    clearTimeout(timer);
  }

  private async authenticate(socket: WebSocket, request: IncomingMessage): Promise<void> {
    const token =
      new URL(request.url ?? '/', 'http://localhost').searchParams.get('token') ||
      this.cookies.socketToken(request);
    try {
      if (!token) throw new UnauthorizedException('Missing token query parameter');
      const { user, expiresAt } = await this.auth.authenticate(token);
      if (socket.readyState !== WebSocket.OPEN) return;
      const ip = this.clientIp(request);
      const refusal = this.localRefusal(user.id, ip);
      const slot = refusal ?? (await this.slots.acquire(user.id, ip));
      if (typeof slot === 'string') {
        this.refuseOverLimit(socket, slot, user.id);
        return;
      }
      // Closed while waiting for Redis, or another connection took the last local place meanwhile.
      const lateRefusal = this.localRefusal(user.id, ip);
      if (socket.readyState !== WebSocket.OPEN || lateRefusal !== null) {
        this.slots.release(slot);
        if (lateRefusal !== null) this.refuseOverLimit(socket, lateRefusal, user.id);
        return;
      }
      const session = this.registry.add(socket, user, slot);
      this.closeAtExpiry(socket, session, expiresAt);
      socket.on('message', (data, isBinary) => this.onFrame(socket, session, data, isBinary));
      socket.on('pong', () => (session.isAlive = true));
      this.metrics.websocketConnections.set(this.registry.size);
      this.logger.log({ msg: 'WebSocket connected', userId: user.id, connections: this.registry.size });
    } catch (error) {
      this.refuse(socket, error);
    } finally {
      socket.resume();
    }
  }

  /** The per-instance side of the connection limits (the whole of them without Redis). */
  private localRefusal(userId: number, ip: string): SlotRefusal | null {
    const { maxConnectionsPerUser, maxConnectionsPerIp } = this.config.ws;
    if (this.registry.connectionsOf(userId) >= maxConnectionsPerUser) return 'user';
    if (this.registry.connectionsFrom(ip) >= maxConnectionsPerIp) return 'ip';
    return null;
  }

  /** The new connection is the one refused: the open ones are never cut for it. */
  private refuseOverLimit(socket: WebSocket, limit: SlotRefusal, userId: number): void {
    const max = limit === 'user' ? this.config.ws.maxConnectionsPerUser : this.config.ws.maxConnectionsPerIp;
    const details = `Too many connections: at most ${max} per ${limit === 'user' ? 'user' : 'client address'}`;
    this.metrics.websocketRefusals.inc({ limit });
    this.logger.log({ msg: 'WebSocket refused', reason: details, userId });
    this.send(socket, errorFrame(429, details));
    socket.close(CLOSE_TOO_MANY_CONNECTIONS, 'Too many connections');
  }

  private refuse(socket: WebSocket, error: unknown): void {
    if (error instanceof UnauthorizedException) {
      this.logger.log({ msg: 'WebSocket refused', reason: error.message });
      closeUnauthorized(socket, error.message);
    } else {
      this.logger.error({
        msg: 'WebSocket authentication failed',
        error: error instanceof Error ? error.stack : String(error),
      });
      this.send(socket, errorFrame(500, 'Internal server error'));
      socket.close(CLOSE_SERVER_ERROR, 'Internal server error');
    }
  }

  private onFrame(socket: WebSocket, session: Session, data: RawData, isBinary: boolean): void {
    session.isAlive = true;
    if (!this.withinFrameRate(socket, session)) return;

    const result = parseClientFrame(toBuffer(data), isBinary);
    if ('error' in result) {
      this.send(socket, { type: 'error', data: result.error });
      return;
    }
    if (result.frame.type === 'auth') {
      void this.reauthenticate(socket, session, result.frame.token);
      return;
    }
    const frame = result.frame;
    if (frame.type === 'subscribe' || frame.type === 'unsubscribe') {
      this.changeSubscription(socket, session, frame.type);
      return;
    }
    const timestamp = new Date().toISOString();
    if (frame.type === 'ping') {
      this.send(socket, { type: 'pong', data: { timestamp } });
      return;
    }
    if (this.config.ws.chat === 'off') {
      this.send(socket, errorFrame(403, 'Chat is switched off'));
      return;
    }
    if (!this.withinChatRate()) {
      this.metrics.rateLimitRefusals.inc({ limit: 'websocket-chat' });
      const max = this.config.ws.chatMessagesPerSecond;
      this.send(socket, errorFrame(429, `Chat is busy: at most ${max} messages per second, try again`));
      return;
    }
    const { id, username, role } = session.user;
    const message: ServerFrame = {
      type: 'message',
      data: { content: frame.content, timestamp, user: { id, username } },
    };
    // WS_CHAT=admins: a customer talks to the admins (and sees it on its own connections); admins to everyone.
    if (this.config.ws.chat === 'admins' && role !== 'admin') this.fanout.sendToAdminsAndUser(id, message);
    else this.fanout.broadcast(message);
  }

  /**
   * WS_MESSAGES_PER_SECOND per connection. A frame over the rate is dropped with an error frame 429 (a
   * warning); a connection that has had WS_RATE_WARNINGS of them without keeping to the rate for a whole
   * second in between is closed with 1008 at its next one.
   */
  private withinFrameRate(socket: WebSocket, session: Session): boolean {
    const { messagesPerSecond: limit, rateWarnings } = this.config.ws;
    const now = Date.now();
    if (now - session.windowStartedAt >= 1000) {
      // The last window kept to the rate, or a whole second went by without a frame.
      if (session.framesInWindow <= limit || now - session.windowStartedAt >= 2000) session.rateWarnings = 0;
      session.windowStartedAt = now;
      session.framesInWindow = 0;
    }
    session.framesInWindow += 1;
    if (session.framesInWindow <= limit) return true;
    if (socket.readyState !== WebSocket.OPEN) return false;
    this.metrics.rateLimitRefusals.inc({ limit: 'websocket' });
    if (session.rateWarnings < rateWarnings) {
      session.rateWarnings += 1;
      this.send(socket, errorFrame(429, `Too many frames: at most ${limit} per second`));
      return false;
    }
    this.metrics.websocketClosures.inc({ reason: 'frame_flood' });
    this.logger.warn({ msg: 'WebSocket closed for flooding', userId: session.user.id });
    socket.close(CLOSE_POLICY_VIOLATION, 'Too many frames');
    this.cutAfterCloseGrace(socket);
    // Frames already received are not read any more.
    socket.pause();
    return false;
  }

  /** Terminates a socket closed for abuse unless the client completes the closing handshake in time. */
  private cutAfterCloseGrace(socket: WebSocket): void {
    if (socket.readyState === WebSocket.CLOSED) return;
    const timer = setTimeout(() => socket.terminate(), ABUSE_CLOSE_GRACE_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  }

  /** WS_CHAT_MESSAGES_PER_SECOND for this instance's connections together: it bounds the broadcast's work. */
  private withinChatRate(): boolean {
    const now = Date.now();
    if (now - this.chatWindowStartedAt >= 1000) {
      this.chatWindowStartedAt = now;
      this.chatMessagesInWindow = 0;
    }
    this.chatMessagesInWindow += 1;
    return this.chatMessagesInWindow <= this.config.ws.chatMessagesPerSecond;
  }

  /** The `orders` channel (the only one): admins only; a user's subscribe gets an error frame 403. */
  private changeSubscription(socket: WebSocket, session: Session, type: 'subscribe' | 'unsubscribe'): void {
    if (type === 'subscribe' && session.user.role !== 'admin') {
      this.send(socket, errorFrame(403, 'Only an admin may subscribe to the orders channel'));
      return;
    }
    this.registry.setOrderSubscription(socket, type === 'subscribe');
    this.send(socket, {
      type: type === 'subscribe' ? 'subscribed' : 'unsubscribed',
      data: { channel: 'orders' },
    });
  }

  /**
   * An in-band `auth` frame: a fresh token of the same user replaces the connection's token, and with it
   * the expiry (and the session, after a new login). A token that fails leaves the connection as it was.
   */
  private async reauthenticate(socket: WebSocket, session: Session, token: string): Promise<void> {
    try {
      const { user, expiresAt } = await this.auth.authenticate(token);
      if (user.id !== session.user.id) throw new UnauthorizedException('Token belongs to another user');
      if (socket.readyState !== WebSocket.OPEN) return;
      session.user = user;
      this.closeAtExpiry(socket, session, expiresAt);
      this.send(socket, { type: 'auth', data: { expires_at: new Date(expiresAt).toISOString() } });
    } catch (error) {
      if (!(error instanceof UnauthorizedException)) {
        this.logger.error({ msg: 'WebSocket re-authentication failed', error: (error as Error).stack });
      }
      const details = error instanceof UnauthorizedException ? error.message : 'Internal server error';
      this.send(socket, errorFrame(error instanceof UnauthorizedException ? 401 : 500, details));
    }
  }

  private closeAtExpiry(socket: WebSocket, session: Session, expiresAt: number): void {
    clearTimeout(session.expiryTimer);
    const left = expiresAt - Date.now();
    if (left <= 0) {
      closeUnauthorized(socket, 'Token has expired');
      return;
    }
    session.expiryTimer = setTimeout(
      () => this.closeAtExpiry(socket, session, expiresAt),
      Math.min(left, MAX_TIMER_MS),
    );
    session.expiryTimer.unref();
  }

  /** Terminates connections that did not answer the previous ping, then pings the others. */
  private checkHeartbeats(): void {
    for (const [socket, session] of this.registry.entries()) {
      if (!session.isAlive) {
        this.logger.log({ msg: 'WebSocket unresponsive, terminated', userId: session.user.id });
        socket.terminate();
        continue;
      }
      session.isAlive = false;
      socket.ping();
    }
  }

  private send(socket: WebSocket, frame: ServerFrame): void {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame));
  }
}
