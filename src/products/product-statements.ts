import { dateFromRow } from '../database/timestamps.js';
import { changedRows, placeholders } from '../database/raw-query.js';
import type { Tx } from '../database/transaction-runner.js';
import type { Product } from './product.entity.js';
import { DEFAULT_TAX_CLASS } from '../common/tax-class.js';
import { currencyAmountsOf } from '../pricing/currency-prices.js';

/**
 * The product statements of the hot paths (a product read, an order's stock), written out once instead of built
 * by TypeORM per call, and run with `query()` through the data source or the transaction's manager. The same
 * text works on SQLite and MySQL/MariaDB: `is_active = 1` and `IS TRUE` match how both store a true boolean, and
 * timestamps are bound as UTC text (`sqlDatetime`). docs/benchmarks.md gives their EXPLAIN.
 */
export const PRODUCT_COLUMNS = [
  'id',
  'name',
  'description',
  'price_cents',
  'prices',
  'tax_class',
  'stock',
  'category_id',
  'image',
  'slug',
  'is_active',
  'created_at',
  'updated_at',
].map((column) => `p.${column}`);

/**
 * A product with its options (NULL for a product that never had any, which then has no variants to read) and
 * its images, one row per image (or one row with null image columns): one statement for a product read. The
 * rows are put in position order by `imagesFromRows` (an ORDER BY here costs MariaDB a temporary table and a
 * sort on every read).
 */
const withImages = (where: string) =>
  `SELECT ${PRODUCT_COLUMNS.join(', ')}, o.options, ` +
  'i.path AS image_path, i.alt AS image_alt, i.position AS image_position FROM products p ' +
  'LEFT JOIN product_options o ON o.product_id = p.id LEFT JOIN product_images i ON i.product_id = p.id ' +
  `WHERE ${where} AND p.deleted_at IS NULL`;

export const PRODUCT_BY_ID = withImages('p.id = ?');
export const ACTIVE_PRODUCT_BY_ID = withImages('p.id = ? AND p.is_active = 1');
export const PRODUCT_BY_SLUG = withImages('p.slug = ?');
export const ACTIVE_PRODUCT_BY_SLUG = withImages('p.slug = ? AND p.is_active = 1');

const imagesOfStatements: string[] = [];
/** The images of `count` products, in product and position order. */
export function imagesOf(count: number): string {
  imagesOfStatements[count] ??=
    'SELECT product_id, path, alt, position FROM product_images ' +
    `WHERE product_id IN (${placeholders(count)}) ORDER BY product_id, position`;
  return imagesOfStatements[count];
}

export const DELETE_IMAGES = 'DELETE FROM product_images WHERE product_id = ?';
export const INSERT_IMAGE =
  'INSERT INTO product_images (product_id, path, alt, position) VALUES (?, ?, ?, ?)';
export const SET_IMAGE = 'UPDATE products SET image = ? WHERE id = ?';
/** The slugs a new slug may collide with: `base` and `base-<anything>`. */
export const SLUGS_LIKE = 'SELECT slug FROM products WHERE slug = ? OR slug LIKE ?';
/** A deleted product gives its slug up (the unique index covers live products only so). */
export const RELEASE_SLUG = 'UPDATE products SET slug = NULL WHERE id = ?';
const SET_SEARCH_TEXT = 'UPDATE products SET search_text = ? WHERE id = ?';
const LIVE_VARIANT_NAMES =
  'SELECT sku, title FROM product_variants WHERE product_id = ? AND deleted_at IS NULL ORDER BY position, id';

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
/** `SELECT id, name, price_cents, prices, tax_class ... WHERE id IN (?, ...)` for `count` ids, built once per count. */
export function namesAndPricesOf(count: number): string {
  namesAndPrices[count] ??=
    'SELECT id, name, price_cents, prices, tax_class FROM products ' +
    `WHERE id IN (${placeholders(count)}) AND deleted_at IS NULL`;
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
  slug: string | null;
  is_active: number | boolean;
  prices?: string | null;
  tax_class?: string;
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
    slug: row.slug,
    isActive: Boolean(row.is_active),
    prices: currencyAmountsOf(row.prices),
    taxClass: row.tax_class ?? DEFAULT_TAX_CLASS,
    createdAt: dateFromRow(row.created_at),
    updatedAt: dateFromRow(row.updated_at),
    deletedAt: null,
  };
}

export interface ProductImageRow {
  image_path: string | null;
  image_alt: string | null;
  image_position: number | string | null;
}

/** The images of a product read by PRODUCT_BY_ID and the like (null columns: no image). */
export function imagesFromRows(rows: ProductImageRow[]): ProductImage[] {
  return rows
    .filter((row) => row.image_path !== null)
    .map((row) => ({
      url: row.image_path as string,
      alt: row.image_alt ?? '',
      position: Number(row.image_position),
    }))
    .sort((a, b) => a.position - b.position);
}

export interface ProductImage {
  url: string;
  alt: string;
  position: number;
}

/**
 * The search text of a product's variants: each SKU as written and joined with `_` (one word: `TSHIRT-BLK-M`
 * is found by `TSHIRT_BLK_M` and, split by the search, by its parts), and each title.
 */
export function searchTextOf(variants: Array<{ sku: string; title: string }>): string {
  return variants
    .flatMap((variant) => [variant.sku, variant.sku.replace(/[^\p{L}\p{M}\p{N}_]+/gu, '_'), variant.title])
    .join(' ');
}

/**
 * Writes the product's search_text from its live variants. Every variant write calls it in its own transaction,
 * after locking the product row (the product first, as every write of a child does), so the text is exact
 * whatever the order of concurrent writes, and a search sees the variants of the last commit. Raw SQL: a
 * change of the search text is not an edit of the product (`updated_at` stays).
 */
export async function refreshSearchText(tx: Tx, productId: number): Promise<void> {
  const variants: Array<{ sku: string; title: string }> = await tx.query(LIVE_VARIANT_NAMES, [productId]);
  await changedRows(tx, SET_SEARCH_TEXT, [variants.length === 0 ? null : searchTextOf(variants), productId]);
}
