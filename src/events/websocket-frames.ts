import type { DomainEvent, DomainEvents, DomainEventType } from './domain-events.js';

/**
 * Who among the WebSocket clients receives a frame: one user's connections, or the admins subscribed to a
 * channel (`orders`, the only one).
 */
export type FrameAudience = { userId: number } | { channel: 'orders' };

/** A frame `{type: <event type>, data}` for an audience. */
export interface WebSocketFrame {
  to: FrameAudience;
  data: unknown;
}

const framers = new Map<string, (data: never) => WebSocketFrame[]>();

/**
 * Declares that events of `type` reach WebSocket clients: `toFrames` gives, from the event's data, the frame
 * data for each audience. Called once from the publishing module's events file; the realtime gateway sends
 * the frames of every event after it is dispatched, without knowing the module.
 */
export function sendAsWebSocketFrames<T extends DomainEventType>(
  type: T,
  toFrames: (data: DomainEvents[T]) => WebSocketFrame[],
): void {
  framers.set(type, toFrames);
}

/** The frames an event gives (none for an event not declared with `sendAsWebSocketFrames`). */
export function webSocketFramesOf(event: DomainEvent): WebSocketFrame[] {
  const toFrames = framers.get(event.type) as ((data: unknown) => WebSocketFrame[]) | undefined;
  return toFrames === undefined ? [] : toFrames(event.data);
}
