import type { UserResponseDto } from './dto/user-response.dto.js';

/** Published in the transaction that creates an account (registration, the configured admin). */
declare module '../events/domain-events.js' {
  interface DomainEvents {
    /** The account as GET /users shows it (without phone and address). */
    'user.created': UserResponseDto;
  }
}
