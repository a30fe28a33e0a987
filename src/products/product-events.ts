import type { ProductResponseDto } from './dto/product.dto.js';

/**
 * The products module's events, published in the transaction of the change (EventBus). The data is the
 * product as GET /products/{id} shows it to an admin.
 */
declare module '../events/domain-events.js' {
  interface DomainEvents {
    'product.created': ProductEventPayload;
    'product.updated': ProductEventPayload;
    /** The product as it was when deleted. */
    'product.deleted': ProductEventPayload;
    /**
     * The stock went from 0 to more (an admin's change, or an order cancelled or expired giving stock back),
     * once per such move; not for a deleted product.
     */
    'product.back_in_stock': ProductEventPayload;
  }
}

export type ProductEventPayload = ProductResponseDto;
