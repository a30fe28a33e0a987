import { Global, Module } from '@nestjs/common';
import { EventBus } from './event-bus.js';
import { OutboxEventBus } from './outbox-event-bus.js';

/** The domain event bus (EventBus) for every module: publish inside a transaction, subscribe to run after it. */
@Global()
@Module({
  providers: [OutboxEventBus, { provide: EventBus, useExisting: OutboxEventBus }],
  exports: [EventBus],
})
export class EventsModule {}
