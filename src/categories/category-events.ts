import type { CategoryResponseDto } from './dto/category.dto.js';

/**
 * The categories module's events, published in the transaction of the change (EventBus). The data is the
 * category as GET /categories/{id} shows it to an admin.
 */
declare module '../events/domain-events.js' {
  interface DomainEvents {
    /** POST /categories, or a placeholder created for a product naming an unknown category id. */
    'category.created': CategoryEventPayload;
    'category.updated': CategoryEventPayload;
    /** The category as it was when deleted. */
    'category.deleted': CategoryEventPayload;
  }
}

export type CategoryEventPayload = CategoryResponseDto;
