import type { Tx } from '../database/transaction-runner.js';
import type { DomainEvent, DomainEvents, DomainEventType } from './domain-events.js';

export type DomainEventHandler<T extends DomainEventType> = (event: DomainEvent<T>) => Promise<void> | void;

/**
 * Publishing and subscribing to domain events. `publish` writes the event to the outbox inside the caller's
 * transaction; it is dispatched only after the outermost transaction commits (never after a rollback), and at
 * least once even if the process dies right after the commit. In normal operation each event is dispatched once
 * across all instances: a handler that must reach every instance (the WebSocket fan-out) does so through Redis
 * itself. Implemented by OutboxEventBus (docs/extending.md#events-publishing-and-subscribing).
 */
export abstract class EventBus {
  abstract publish<T extends DomainEventType>(tx: Tx, type: T, data: DomainEvents[T]): Promise<void>;

  /**
   * The stored events of `types` about an order (their payload's `order.id`), oldest first, by an index: those
   * published since OUTBOX_RETENTION before now (dispatched events are purged after it).
   */
  abstract eventsOfOrder<T extends DomainEventType>(orderId: number, types: T[]): Promise<DomainEvent<T>[]>;

  /** `handler` runs for each event of `type` ('*': every event) after commit; handlers must tolerate a repeat. */
  abstract subscribe<T extends DomainEventType>(type: T | '*', handler: DomainEventHandler<T>): void;
}
