import type { components } from './schema.js';

/**
 * The frames of the realtime channel (`/api/v1/ws`, docs/realtime.md), as they travel: every frame one JSON
 * object `{type, data}`. Written from the gateway's own frame types (src/realtime/frames.ts and the order
 * events' frames); a type-level test fails when the gateway's frame names or order fields change.
 */

/** Channels a connection may subscribe to; `orders` (admins only) carries every user's order events. */
export type Channel = 'orders';

/** Frames a client sends. */
export type ClientFrame =
  | { type: 'ping' }
  | { type: 'message'; data: { content: string } }
  | { type: 'auth'; data: { token: string } }
  | { type: 'subscribe'; data: { channel: Channel } }
  | { type: 'unsubscribe'; data: { channel: Channel } };

export interface FrameError {
  code: 400 | 401 | 403 | 429 | 500;
  details: string;
}

/**
 * An order event's frame: the order as `POST /orders` answers it without its items; on the `orders` channel
 * with its owner (`null` for a guest's order), to the owner's own connections without `user`.
 */
export type OrderFrameData = components['schemas']['OrderResponseDto'] & {
  user?: { id: number; username: string; email: string } | null;
};

/** Frames the server sends. */
export type ServerFrame =
  | {
      type: 'message';
      data: { content: string; timestamp: string; user: { id: number; username: string } };
    }
  | { type: 'pong'; data: { timestamp: string } }
  | { type: 'auth'; data: { expires_at: string } }
  | { type: 'error'; data: FrameError }
  | { type: 'subscribed'; data: { channel: Channel } }
  | { type: 'unsubscribed'; data: { channel: Channel } }
  | { type: 'order.created'; data: OrderFrameData }
  | { type: 'order.updated'; data: OrderFrameData };

export type ServerFrameType = ServerFrame['type'];
export type ServerFrameOf<T extends ServerFrameType> = Extract<ServerFrame, { type: T }>;

/** Close codes of the service besides the standard ones. */
export const CLOSE_UNAUTHORIZED = 4401;
export const CLOSE_TOO_MANY_CONNECTIONS = 4429;
