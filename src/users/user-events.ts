import type { UserResponseDto } from './dto/user-response.dto.js';

/** The users module's events, published in the transaction of the change (EventBus). */
declare module '../events/domain-events.js' {
  interface DomainEvents {
    /** An account was created (registration, or the configured admin at first start): as its owner reads it. */
    'user.created': UserEventPayload;
  }
}

export type UserEventPayload = UserResponseDto;
