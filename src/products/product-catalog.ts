import type { AuthUser } from '../auth/auth-user.js';
import { ValidationFailedException } from '../common/validation.js';
import type { Tx } from '../database/transaction-runner.js';

/** A product has less stock than an order asks for (a 400 like the other refusals, counted apart). */
export class InsufficientStockException extends ValidationFailedException {
  constructor(message: string) {
    super([{ field: 'items', rule: 'stock', message }]);
  }
}

export interface StockRequest {
  productId: number;
  quantity: number;
}

/** What an order keeps of a product at the moment it took the stock. */
export interface ReservedProduct {
  id: number;
  name: string;
  priceCents: number;
}

/**
 * What other modules may ask of the products module (bound to ProductsService in ProductsModule).
 * Methods taking a `tx` run inside the caller's transaction and leave commit and rollback to it.
 */
export abstract class ProductCatalog {
  /** 404 unless the product exists and the actor may see it (inactive products are visible to admins only). */
  abstract assertVisible(productId: number, actor: AuthUser | undefined): Promise<void>;

  /**
   * Takes stock for an order, one conditional UPDATE per product in ascending id order (concurrent orders
   * lock rows in the same order). Throws 400 naming the first product that is missing, inactive or short.
   */
  abstract reserveStock(tx: Tx, requests: StockRequest[]): Promise<Map<number, ReservedProduct>>;

  /** Gives stock back (a cancelled order), even to inactive or deleted products. */
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
