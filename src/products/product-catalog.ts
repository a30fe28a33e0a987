import type { AuthUser } from '../auth/auth-user.js';
import { ValidationFailedException } from '../common/validation.js';
import type { EntityManager } from 'typeorm';
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
  /** The other currencies' unit prices in minor units (the variant's for a variant line), null for none. */
  prices: Record<string, number> | null;
  /** The product's tax class. */
  taxClass: string;
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

  /** The ids among `ids` that name no product (or variant), or a deleted one: for 400s on fields listing them. */
  abstract missing(
    manager: EntityManager,
    kind: 'product' | 'variant',
    ids: readonly number[],
  ): Promise<number[]>;
}

/**
 * For another module's single-statement read of rows that reference products or variants (a cart's lines): the
 * joins of each row's variant (`variantIdColumn`, may be NULL) and product (the variant's, else
 * `productIdColumn`), and their live columns: `product_id`, `product_name`, `sku`, `variant_title`,
 * `price_cents`, `prices` (JSON text of the other currencies' prices, see `unitPriceIn`) and `stock` (the
 * variant's for a variant), `tax_class` (the product's), and `for_sale` (1 when the product is active and not
 * deleted and either the variant is, or there is no variant and the product has no active variants). With `?`
 * for both columns, the variant's id binds first.
 */
export function joinLiveProduct(
  productIdColumn: string,
  variantIdColumn: string,
): { join: string; columns: string } {
  return {
    join:
      `LEFT JOIN product_variants lv ON lv.id = ${variantIdColumn} ` +
      `LEFT JOIN products lp ON lp.id = COALESCE(lv.product_id, ${productIdColumn})`,
    columns:
      'lp.id AS product_id, lp.name AS product_name, lv.sku AS sku, lv.title AS variant_title, ' +
      'COALESCE(lv.price_cents, lp.price_cents) AS price_cents, ' +
      'CASE WHEN lv.id IS NULL THEN lp.prices ELSE lv.prices END AS prices, lp.tax_class AS tax_class, ' +
      'COALESCE(lv.stock, lp.stock) AS stock, ' +
      'CASE WHEN lp.is_active = 1 AND lp.deleted_at IS NULL AND (CASE WHEN lv.id IS NULL THEN ' +
      'NOT EXISTS (SELECT 1 FROM product_variants av WHERE av.product_id = lp.id AND av.is_active = 1 ' +
      'AND av.deleted_at IS NULL) ELSE lv.is_active = 1 AND lv.deleted_at IS NULL END) THEN 1 ELSE 0 END AS for_sale',
  };
}
