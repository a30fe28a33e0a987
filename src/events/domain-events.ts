/**
 * The events the service publishes, as one typed map: event name → payload. Each module adds its own events
 * to the map from its events file by declaration merging, so that a new module's events need no edit here:
 *
 *   declare module '../events/domain-events.js' {
 *     interface DomainEvents {
 *       'order.created': OrderEventPayload;
 *     }
 *   }
 *
 * Listeners (the WebSocket gateway, webhooks, e-mail) depend on this map, not on the modules.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface DomainEvents {}

export type DomainEventType = keyof DomainEvents & string;

/** An event as it is stored in the outbox and delivered: the same id on every delivery of it. */
export interface DomainEvent<T extends DomainEventType = DomainEventType> {
  /** Unique and stable across redeliveries (a webhook's `webhook-id`). */
  id: string;
  type: T;
  /** When the event was published, inside the transaction of the change (ISO 8601 with milliseconds). */
  created_at: string;
  data: DomainEvents[T];
}
