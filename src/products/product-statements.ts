import { dateFromRow } from '../database/timestamps.js';
import { placeholders } from '../database/raw-query.js';
import type { Product } from './product.entity.js';

/**
 * The product statements of the hot paths (a product read, an order's stock), written out once instead of built
 * by TypeORM per call, and run with `query()` through the data source or the transaction's manager. The same
 * text works on SQLite and MySQL/MariaDB: `is_active = 1` and `IS TRUE` match how both store a true boolean, and
 * timestamps are bound as UTC text (`sqlDatetime`). docs/benchmarks.md gives their EXPLAIN.
 */
const COLUMNS =
  'id, name, description, price_cents, stock, category_id, image, is_active, created_at, updated_at';

/** A product with its options (NULL for a product that never had any, which then has no variants to read). */
const WITH_OPTIONS = `SELECT ${COLUMNS}, o.options FROM products LEFT JOIN product_options o ON o.product_id = products.id`;
export const PRODUCT_BY_ID = `${WITH_OPTIONS} WHERE id = ? AND deleted_at IS NULL LIMIT 1`;
export const ACTIVE_PRODUCT_BY_ID = `${WITH_OPTIONS} WHERE id = ? AND is_active = 1 AND deleted_at IS NULL LIMIT 1`;

/** Whether a product has active variants: its price and stock are then theirs. */
const NO_ACTIVE_VARIANTS =
  'NOT EXISTS (SELECT 1 FROM product_variants v WHERE v.product_id = products.id AND v.is_active = 1 ' +
  'AND v.deleted_at IS NULL)';
export const HAS_ACTIVE_VARIANTS =
  'SELECT 1 AS found FROM product_variants WHERE product_id = ? AND is_active = 1 AND deleted_at IS NULL LIMIT 1';

/**
 * `is_active IS TRUE` rather than `= 1`: with `=`, MariaDB reaches the row through the (is_active, deleted_at)
 * index instead of the primary key.
 */
const TAKE_PRODUCT_STOCK =
  'UPDATE products SET stock = stock - ?, updated_at = ? ' +
  'WHERE id = ? AND stock >= ? AND is_active IS TRUE AND deleted_at IS NULL';
/** An order by product id: refused (no row changed) when the product has active variants. */
export const TAKE_STOCK = `${TAKE_PRODUCT_STOCK} AND ${NO_ACTIVE_VARIANTS}`;
/** A product's share of an order by variant: its derived stock, the variant's taken right after. */
export const TAKE_STOCK_FOR_VARIANT = TAKE_PRODUCT_STOCK;
/** Stock back to a product; none once it has active variants (its stock is then their sum). */
export const GIVE_STOCK_BACK = `UPDATE products SET stock = stock + ?, updated_at = ? WHERE id = ? AND ${NO_ACTIVE_VARIANTS}`;
export const STOCK_STATE =
  'SELECT id, stock, is_active FROM products WHERE id = ? AND deleted_at IS NULL LIMIT 1';

const namesAndPrices: string[] = [];
/** `SELECT id, name, price_cents ... WHERE id IN (?, ...)` for `count` ids, built once per count. */
export function namesAndPricesOf(count: number): string {
  namesAndPrices[count] ??=
    `SELECT id, name, price_cents FROM products WHERE id IN (${placeholders(count)}) AND deleted_at IS NULL`;
  return namesAndPrices[count];
}

export interface ProductRow {
  id: number;
  name: string;
  description: string;
  price_cents: number;
  stock: number;
  category_id: number;
  image: string;
  is_active: number | boolean;
  created_at: Date | string;
  updated_at: Date | string;
  /** product_options.options (JSON), read with the product by id. */
  options?: string | null;
}

export function productFromRow(row: ProductRow): Product {
  return {
    id: Number(row.id),
    name: row.name,
    description: row.description,
    priceCents: Number(row.price_cents),
    stock: Number(row.stock),
    categoryId: Number(row.category_id),
    image: row.image,
    isActive: Boolean(row.is_active),
    createdAt: dateFromRow(row.created_at),
    updatedAt: dateFromRow(row.updated_at),
    deletedAt: null,
  };
}
