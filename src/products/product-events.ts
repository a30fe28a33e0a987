import type { ProductDetailResponseDto } from './dto/variant.dto.js';

/**
 * The products module's events, published in the transaction of the change (EventBus). The data is the
 * product as GET /products/{id} shows it to an admin: with its images, options and live variants (inactive
 * ones too). A variant's create, change or delete is a `product.updated` of its product.
 */
declare module '../events/domain-events.js' {
  interface DomainEvents {
    'product.created': ProductEventPayload;
    'product.updated': ProductEventPayload;
    /** The product as it was when deleted. */
    'product.deleted': ProductEventPayload;
    /**
     * The stock went from 0 to more (an admin's change of the product or of a variant, whose stock the
     * product's is the sum of, or an order cancelled or expired giving stock back), once per such move; not
     * for a deleted product.
     */
    'product.back_in_stock': ProductEventPayload;
  }
}

export type ProductEventPayload = ProductDetailResponseDto;
