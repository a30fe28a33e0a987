import type { AuthUser } from '../auth/auth-user.js';
import { ValidationFailedException } from '../common/validation.js';
import type { Tx } from '../database/transaction-runner.js';

/** A product has less stock than an order asks for (a 400 like the other refusals, counted apart). */
export class InsufficientStockException extends ValidationFailedException {
  constructor(message: string) {
    super([{ field: 'items', rule: 'stock', message }]);
  }
}

/**
 * Stock of a product without active variants (`productId`), or of one variant (`variantId`; `productId` is then
 * optional, and checked when given). `item` is the request's index in the order, for the field of a 400.
 */
export interface StockRequest {
  productId?: number;
  variantId?: number | null;
  quantity: number;
  item?: number;
}

/** What an order keeps of a product (and of its variant) at the moment it took the stock. */
export interface ReservedLine {
  productId: number;
  variantId: number | null;
  name: string;
  priceCents: number;
  sku: string | null;
  variantTitle: string | null;
}

/**
 * What other modules may ask of the products module (bound to ProductsService in ProductsModule).
 * Methods taking a `tx` run inside the caller's transaction and leave commit and rollback to it.
 */
export abstract class ProductCatalog {
  /** 404 unless the product exists and the actor may see it (inactive products are visible to admins only). */
  abstract assertVisible(productId: number, actor: AuthUser | undefined): Promise<void>;

  /**
   * Takes stock for an order, one conditional UPDATE per product (and then one per variant) in ascending
   * product id order (concurrent orders lock rows in the same order). Gives the lines in the requests' order.
   * Throws 400 naming the first product or variant that is missing, inactive or short, an item by product id
   * for a product with active variants (`items.N.variant_id`), or a product_id that is not the variant's.
   */
  abstract reserveStock(tx: Tx, requests: StockRequest[]): Promise<ReservedLine[]>;

  /**
   * Gives stock back (a cancelled order), even to inactive or deleted products and variants; a product's
   * derived stock grows with a variant's only while that variant is active.
   */
  abstract releaseStock(tx: Tx, requests: StockRequest[]): Promise<void>;
}

/**
 * For another module's single-statement read of rows that reference products (a cart's lines): the join of each
 * row's product by `productIdColumn` as `alias`, and its live columns `product_name`, `price_cents`, `stock` and
 * `for_sale` (1 when active and not deleted; the product's columns are NULL when there is no such row).
 */
export function joinLiveProduct(alias: string, productIdColumn: string): { join: string; columns: string } {
  return {
    join: `LEFT JOIN products ${alias} ON ${alias}.id = ${productIdColumn}`,
    columns:
      `${alias}.name AS product_name, ${alias}.price_cents AS price_cents, ${alias}.stock AS stock, ` +
      `CASE WHEN ${alias}.is_active = 1 AND ${alias}.deleted_at IS NULL THEN 1 ELSE 0 END AS for_sale`,
  };
}
