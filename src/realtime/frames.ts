import type { DomainEventType } from '../events/domain-events.js';

/**
 * Largest message a client may send: the ws library's `maxPayload`, so a bigger one closes the connection
 * with 1009 as soon as its length is announced, before any of it is buffered.
 */
export const MAX_FRAME_BYTES = 64 * 1024;
export const MAX_CONTENT_CHARS = 2000;
/** Longer than any token the service issues. */
export const MAX_TOKEN_CHARS = 4096;

/** Close codes besides the standard ones (1001 going away, 1008 frame flood, 1009 too big, 1011 server error). */
export const CLOSE_UNAUTHORIZED = 4401;
/** The user or the client IP already has as many connections as allowed. */
export const CLOSE_TOO_MANY_CONNECTIONS = 4429;

/** Channels a connection may subscribe to; `orders` (admins only) carries every user's order events. */
export const CHANNELS = ['orders'] as const;
export type Channel = (typeof CHANNELS)[number];

export type ClientFrame =
  | { type: 'ping' }
  | { type: 'message'; content: string }
  | { type: 'auth'; token: string }
  | { type: 'subscribe'; channel: Channel }
  | { type: 'unsubscribe'; channel: Channel };

export interface FrameError {
  code: 400 | 401 | 403 | 429 | 500;
  details: string;
}

export type ServerFrame =
  | {
      type: 'message';
      data: { content: string; timestamp: string; user: { id: number; username: string } };
    }
  | { type: 'pong'; data: { timestamp: string } }
  | { type: 'auth'; data: { expires_at: string } }
  | { type: 'error'; data: FrameError }
  | { type: 'subscribed' | 'unsubscribed'; data: { channel: Channel } }
  /** A domain event its module sends as frames (src/events/websocket-frames.ts), e.g. `order.created`. */
  | { type: DomainEventType; data: unknown };

const FRAME_KEYS = new Set(['type', 'data']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const bad = (details: string): { error: FrameError } => ({ error: { code: 400, details } });

/**
 * Reads one client frame: a JSON text object `{type, data?}` (at most 64 KiB, which the ws library
 * enforces). Unknown fields are refused, as in HTTP bodies. `content` is counted in characters (code
 * points), not UTF-16 units.
 */
export function parseClientFrame(
  raw: Buffer,
  isBinary: boolean,
): { frame: ClientFrame } | { error: FrameError } {
  if (isBinary) return bad('Frames must be JSON text, not binary');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    return bad('Frame is not valid JSON');
  }
  if (!isObject(parsed) || typeof parsed.type !== 'string') {
    return bad('Frame must be a JSON object with a string "type"');
  }
  const unknownKey = Object.keys(parsed).find((key) => !FRAME_KEYS.has(key));
  if (unknownKey !== undefined) return bad(`Unknown field "${unknownKey}": a frame has only type and data`);

  switch (parsed.type) {
    case 'ping':
      return { frame: { type: 'ping' } };
    case 'message': {
      const data = parsed.data;
      if (!isObject(data)) return bad('data must be an object with content');
      const extra = Object.keys(data).find((key) => key !== 'content');
      if (extra !== undefined) return bad(`data.${extra} is not allowed`);
      if (typeof data.content !== 'string') return bad('data.content must be a string');
      const chars = Array.from(data.content).length;
      if (chars < 1 || chars > MAX_CONTENT_CHARS) {
        return bad(`data.content must be 1 to ${MAX_CONTENT_CHARS} characters long`);
      }
      return { frame: { type: 'message', content: data.content } };
    }
    case 'auth': {
      const data = parsed.data;
      if (!isObject(data)) return bad('data must be an object with token');
      const extra = Object.keys(data).find((key) => key !== 'token');
      if (extra !== undefined) return bad(`data.${extra} is not allowed`);
      if (typeof data.token !== 'string' || data.token.length < 1 || data.token.length > MAX_TOKEN_CHARS) {
        return bad(`data.token must be a string of 1 to ${MAX_TOKEN_CHARS} characters`);
      }
      return { frame: { type: 'auth', token: data.token } };
    }
    case 'subscribe':
    case 'unsubscribe': {
      const data = parsed.data;
      if (!isObject(data)) return bad('data must be an object with channel');
      const extra = Object.keys(data).find((key) => key !== 'channel');
      if (extra !== undefined) return bad(`data.${extra} is not allowed`);
      if (!CHANNELS.includes(data.channel as Channel)) {
        return bad(`data.channel must be one of: ${CHANNELS.join(', ')}`);
      }
      return {
        frame: { type: parsed.type as 'subscribe' | 'unsubscribe', channel: data.channel as Channel },
      };
    }
    default:
      return bad('Unknown type: expected "message", "ping", "auth", "subscribe" or "unsubscribe"');
  }
}

export const errorFrame = (code: FrameError['code'], details: string): ServerFrame => ({
  type: 'error',
  data: { code, details },
});
