import { CommerceApiError } from './errors.js';
import {
  CLOSE_TOO_MANY_CONNECTIONS,
  CLOSE_UNAUTHORIZED,
  type Channel,
  type ClientFrame,
  type ServerFrame,
  type ServerFrameOf,
  type ServerFrameType,
} from './frames.js';
import { COOKIE_TOKEN, type SessionInternals } from './session.js';

export type SocketStatus = 'connecting' | 'open' | 'closed';

/** A handler property that accepts the platforms' own event types (checked as a method: bivariantly). */
type Handler<E> = { handle(event: E): void }['handle'];

/** What the socket needs of a WebSocket: the browser's, Node 22's global one and the `ws` package's all fit. */
export interface WebSocketLike {
  readonly readyState: number;
  onopen: Handler<never> | null;
  onmessage: Handler<{ data: unknown }> | null;
  onclose: Handler<{ code: number; reason: string }> | null;
  onerror: Handler<never> | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}
export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface SocketOptions {
  /** Channels to subscribe to after every (re)connection (`orders`: admins only). */
  channels?: Channel[];
  /** The WebSocket class (default: the client's, else `globalThis.WebSocket`). */
  WebSocket?: WebSocketConstructor;
  /** Reconnection delays: doubling from `minDelayMs` (500) up to `maxDelayMs` (30 000), each with jitter. */
  minDelayMs?: number;
  maxDelayMs?: number;
}

export interface CommerceSocket {
  readonly status: SocketStatus;
  /** Listens to one frame type (`'*'`: every frame); returns the function that stops listening. */
  on<T extends ServerFrameType>(type: T, listener: (frame: ServerFrameOf<T>) => void): () => void;
  on(type: '*', listener: (frame: ServerFrame) => void): () => void;
  onStatus(listener: (status: SocketStatus) => void): () => void;
  /** Sends a frame now; false when the connection is not open (nothing is queued). */
  send(frame: ClientFrame): boolean;
  subscribe(channel: Channel): void;
  unsubscribe(channel: Channel): void;
  /** Closes the connection for good (1000) and stops reconnecting. */
  close(): void;
}

/**
 * Closes after which a new connection would be refused the same way (frame flood 1008, frame too big 1009,
 * protocol errors 1002/1003/1007, too many connections 4429) or that the client asked for (1000): no reconnection.
 */
const FINAL_CLOSES = new Set([1000, 1002, 1003, 1007, 1008, 1009, CLOSE_TOO_MANY_CONNECTIONS]);
const OPEN = 1;
/** The token is refreshed this long before it expires, so the connection never reaches its expiry. */
const REFRESH_AHEAD_MS = 60_000;

/** `http(s)://host/api/v1` (or `/api/v1` in a page) → `ws(s)://host/api/v1/ws?token=…`. */
function socketUrl(url: string, token: string): string {
  const base = (globalThis as { location?: { href: string } }).location?.href;
  const resolved = new URL(url, base);
  resolved.protocol =
    resolved.protocol === 'https:' ? 'wss:' : resolved.protocol === 'http:' ? 'ws:' : resolved.protocol;
  // A cookie session's upgrade carries the access cookie instead.
  if (token !== COOKIE_TOKEN) resolved.searchParams.set('token', token);
  return resolved.toString();
}

export function openSocket(
  options: SocketOptions & { url: string; session: SessionInternals },
): CommerceSocket {
  const { url, session, minDelayMs = 500, maxDelayMs = 30_000 } = options;
  const WebSocketClass = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (WebSocketClass === undefined) {
    throw new Error('No WebSocket class: pass one (on Node 20, the ws package) as the WebSocket option');
  }
  const channels = new Set(options.channels ?? []);
  const frameListeners = new Map<string, Set<(frame: ServerFrame) => void>>();
  const statusListeners = new Set<(status: SocketStatus) => void>();
  let status: SocketStatus = 'connecting';
  let socket: WebSocketLike | undefined;
  let stopped = false;
  /** No session (never signed in, signed out, ended): no connection until the next login. */
  let signedOut = false;
  let failures = 0;
  let reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  let refreshTimer: ReturnType<typeof setTimeout> | undefined;
  /** The refresh token of the tokens the current connection was opened with. */
  let connectedWith: string | undefined;

  const setStatus = (next: SocketStatus) => {
    if (next === status) return;
    status = next;
    for (const listener of statusListeners) listener(next);
  };
  const send = (frame: ClientFrame) => {
    if (socket === undefined || socket.readyState !== OPEN) return false;
    socket.send(JSON.stringify(frame));
    return true;
  };
  const emit = (frame: ServerFrame) => {
    for (const key of [frame.type, '*'])
      for (const listener of frameListeners.get(key) ?? []) listener(frame);
  };

  const stop = () => {
    stopped = true;
    clearTimeout(reconnectTimer);
    clearTimeout(refreshTimer);
    stopTokens();
    setStatus('closed');
  };

  const waitForSignIn = () => {
    signedOut = true;
    clearTimeout(reconnectTimer);
    clearTimeout(refreshTimer);
    const current = socket;
    socket = undefined;
    current?.close(1000, 'Signed out');
    setStatus('closed');
  };

  /** Refreshes the session shortly before its token expires; the new token goes out as an `auth` frame. */
  const scheduleRefresh = (expiresAt: number | undefined, refreshToken: string | undefined) => {
    clearTimeout(refreshTimer);
    if (expiresAt === undefined || stopped) return;
    refreshTimer = setTimeout(
      () => void session.refreshAfter(refreshToken).catch(() => undefined),
      Math.max(0, expiresAt - Date.now() - REFRESH_AHEAD_MS),
    );
  };

  const reconnectLater = () => {
    if (stopped) return;
    const ceiling = Math.min(maxDelayMs, minDelayMs * 2 ** failures);
    failures += 1;
    // Equal jitter: half the delay fixed, half random, so that clients cut together do not return together.
    reconnectTimer = setTimeout(() => void connect(), ceiling / 2 + Math.random() * (ceiling / 2));
  };

  const connect = async () => {
    if (stopped) return;
    setStatus('connecting');
    const tokens = await session.tokens();
    if (stopped) return;
    if (tokens?.token === undefined) {
      waitForSignIn();
      return;
    }
    connectedWith = tokens.refresh_token;
    const current = new WebSocketClass(socketUrl(url, tokens.token));
    socket = current;
    current.onopen = () => {
      failures = 0;
      setStatus('open');
      // The token in the URL may have been rotated since: the connection takes the current one in-band, and
      // the server's `auth` answer confirms it with its expiry.
      void session.tokens().then((latest) => {
        if (latest?.token !== undefined && latest.token !== COOKIE_TOKEN) {
          send({ type: 'auth', data: { token: latest.token } });
        }
        scheduleRefresh(latest?.expires_at, latest?.refresh_token);
      });
      for (const channel of channels) send({ type: 'subscribe', data: { channel } });
    };
    current.onmessage = (event) => {
      if (typeof event.data !== 'string') return;
      let frame: ServerFrame;
      try {
        frame = JSON.parse(event.data) as ServerFrame;
      } catch {
        return;
      }
      emit(frame);
    };
    current.onerror = () => undefined;
    current.onclose = (event) => {
      if (socket !== current) return;
      socket = undefined;
      clearTimeout(refreshTimer);
      if (stopped) return;
      if (FINAL_CLOSES.has(event.code)) {
        stop();
        return;
      }
      setStatus('closed');
      if (event.code !== CLOSE_UNAUTHORIZED) {
        reconnectLater();
        return;
      }
      // Expired token or ended session: refresh (unless another tab has), then reconnect. A refused refresh
      // ends the session: no connection until the next login.
      session.refreshAfter(connectedWith).then(
        (token) => (token === null ? waitForSignIn() : reconnectLater()),
        (error: unknown) =>
          error instanceof CommerceApiError && error.status === 401 ? waitForSignIn() : reconnectLater(),
      );
    };
  };

  // A refresh (here or in another tab): the open connection takes the new token in-band. A logout closes the
  // connection; the next login opens one again.
  const stopTokens = session.onTokens((token) => {
    if (stopped) return;
    if (token === null) {
      waitForSignIn();
      return;
    }
    if (signedOut) {
      signedOut = false;
      failures = 0;
      void connect();
      return;
    }
    // A cookie session's connection keeps its token until it expires, then reconnects with the new cookie.
    if (token !== COOKIE_TOKEN && send({ type: 'auth', data: { token } })) {
      void session.tokens().then((latest) => scheduleRefresh(latest?.expires_at, latest?.refresh_token));
    }
  });

  void connect();

  return {
    get status() {
      return status;
    },
    on(type: string, listener: (frame: never) => void) {
      const listeners = frameListeners.get(type) ?? new Set();
      frameListeners.set(type, listeners);
      const added = listener as (frame: ServerFrame) => void;
      listeners.add(added);
      return () => listeners.delete(added);
    },
    onStatus(listener) {
      statusListeners.add(listener);
      return () => statusListeners.delete(listener);
    },
    send,
    subscribe(channel) {
      channels.add(channel);
      send({ type: 'subscribe', data: { channel } });
    },
    unsubscribe(channel) {
      channels.delete(channel);
      send({ type: 'unsubscribe', data: { channel } });
    },
    close() {
      const current = socket;
      socket = undefined;
      stop();
      current?.close(1000, 'Closed by the client');
    },
  };
}
