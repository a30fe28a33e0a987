import { placeholders } from '../database/raw-query.js';
import { dateFromRow } from '../database/timestamps.js';
import { type CurrencyAmounts, currencyAmountsOf, currencyPriceList } from '../pricing/currency-prices.js';
import type { VariantResponseDto } from './dto/variant.dto.js';

/**
 * The statements of variants, in the text both SQLite and MySQL/MariaDB accept (see product-statements.ts).
 * Every write to a variant first locks its product's row (LOCK_PRODUCT, or the product's UPDATE of an order):
 * products, then their variants, is the one lock order of the service.
 */
const COLUMNS =
  'id, product_id, sku, title, options, price_cents, prices, stock, is_active, image, position, created_at, ' +
  'updated_at';

export const VARIANTS_OF_PRODUCT = `SELECT ${COLUMNS} FROM product_variants WHERE product_id = ? AND deleted_at IS NULL ORDER BY position, id`;
export const ACTIVE_VARIANTS_OF_PRODUCT = `SELECT ${COLUMNS} FROM product_variants WHERE product_id = ? AND is_active = 1 AND deleted_at IS NULL ORDER BY position, id`;
export const VARIANT_OF_PRODUCT = `SELECT ${COLUMNS} FROM product_variants WHERE id = ? AND product_id = ? AND deleted_at IS NULL LIMIT 1`;
/** A variant just written (deleted or not). */
export const VARIANT_BY_ID = `SELECT ${COLUMNS} FROM product_variants WHERE id = ?`;
export const LIVE_VARIANTS =
  'SELECT COUNT(*) AS n FROM product_variants WHERE product_id = ? AND deleted_at IS NULL';
export const SKU_OWNER = 'SELECT id FROM product_variants WHERE sku_key = ? LIMIT 1';
export const COMBINATION_OWNER =
  'SELECT id FROM product_variants WHERE product_id = ? AND option_key = ? LIMIT 1';

export const INSERT_VARIANT =
  'INSERT INTO product_variants (product_id, sku, sku_key, title, options, option_key, price_cents, prices, ' +
  'stock, is_active, position, image, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
export const UPDATE_VARIANT =
  'UPDATE product_variants SET sku = ?, sku_key = ?, title = ?, options = ?, option_key = ?, price_cents = ?, ' +
  'prices = ?, stock = ?, is_active = ?, position = ?, image = ?, updated_at = ? WHERE id = ?';
/** A soft delete frees the SKU and the combination for another variant. */
export const DELETE_VARIANT =
  'UPDATE product_variants SET deleted_at = ?, updated_at = ?, sku_key = NULL, option_key = NULL WHERE id = ?';

export const PRODUCT_OPTIONS = 'SELECT options FROM product_options WHERE product_id = ?';
export const INSERT_PRODUCT_OPTIONS = 'INSERT INTO product_options (product_id, options) VALUES (?, ?)';
export const UPDATE_PRODUCT_OPTIONS = 'UPDATE product_options SET options = ? WHERE product_id = ?';

/**
 * After any change to a product's variants: its price the lowest of its active variants' (kept when none is
 * active) and its stock their sum (0 when none is active).
 */
const ACTIVE_OF_PRODUCT =
  'FROM product_variants v WHERE v.product_id = products.id AND v.is_active = 1 AND v.deleted_at IS NULL';
export const REFRESH_DERIVED =
  `UPDATE products SET price_cents = COALESCE((SELECT MIN(v.price_cents) ${ACTIVE_OF_PRODUCT}), price_cents), ` +
  `stock = COALESCE((SELECT SUM(v.stock) ${ACTIVE_OF_PRODUCT}), 0), updated_at = ? WHERE id = ?`;
/**
 * The other currencies' prices of a product's active variants, for its derived prices (`derivedPrices`: each
 * currency's lowest), written by SET_DERIVED_PRICES in the same transaction as REFRESH_DERIVED.
 */
export const ACTIVE_VARIANT_PRICES =
  'SELECT prices FROM product_variants WHERE product_id = ? AND is_active = 1 AND deleted_at IS NULL';
export const SET_DERIVED_PRICES = 'UPDATE products SET prices = ? WHERE id = ?';

/** Orders by variant: the conditional take (after the product's), and the stock given back. */
export const TAKE_VARIANT_STOCK =
  'UPDATE product_variants SET stock = stock - ?, updated_at = ? ' +
  'WHERE id = ? AND stock >= ? AND is_active IS TRUE AND deleted_at IS NULL';
export const GIVE_VARIANT_STOCK_BACK =
  'UPDATE product_variants SET stock = stock + ?, updated_at = ? WHERE id = ?';
/** The product's derived stock grows back only while the variant counts in it (active, not deleted). */
export const GIVE_STOCK_BACK_FOR_VARIANT =
  'UPDATE products SET stock = stock + ?, updated_at = ? WHERE id = ? AND EXISTS ' +
  '(SELECT 1 FROM product_variants v WHERE v.id = ? AND v.is_active = 1 AND v.deleted_at IS NULL)';
export const VARIANT_STOCK_STATE =
  'SELECT id, stock, is_active FROM product_variants WHERE id = ? AND deleted_at IS NULL LIMIT 1';

const productsOfVariants: string[] = [];
/** The product of each of `count` live variants. */
export function productsOfVariantsOf(count: number): string {
  productsOfVariants[count] ??=
    `SELECT id, product_id FROM product_variants WHERE id IN (${placeholders(count)}) AND deleted_at IS NULL`;
  return productsOfVariants[count];
}

const snapshots: string[] = [];
/** What an order item keeps of each of `count` variants and their products, read after the stock is taken. */
export function variantSnapshotsOf(count: number): string {
  snapshots[count] ??=
    'SELECT v.id, v.sku, v.title, v.price_cents, v.prices, p.name, p.tax_class FROM product_variants v ' +
    `INNER JOIN products p ON p.id = v.product_id WHERE v.id IN (${placeholders(count)})`;
  return snapshots[count];
}

export interface VariantRow {
  id: number;
  product_id: number;
  sku: string;
  title: string;
  options: string;
  price_cents: number;
  prices: string | null;
  stock: number;
  is_active: number | boolean;
  image: string;
  position: number;
  created_at: Date | string;
  updated_at: Date | string;
}

/**
 * A product's prices in the other currencies while it has active variants: each currency's lowest among them
 * (a currency only some variants have is priced from those); null when none has another currency.
 */
export function derivedPrices(rows: Array<{ prices: string | null }>): CurrencyAmounts | null {
  const lowest: CurrencyAmounts = {};
  for (const row of rows) {
    for (const [code, amount] of Object.entries(currencyAmountsOf(row.prices) ?? {})) {
      if (lowest[code] === undefined || amount < lowest[code]) lowest[code] = amount;
    }
  }
  return Object.keys(lowest).length === 0 ? null : lowest;
}

/** A variant as the API shows it: its own prices, and its product's tax class (`taxClass`). */
export function toVariantResponse(
  row: VariantRow,
  defaultCurrency: string,
  taxClass: string,
): VariantResponseDto {
  return {
    id: Number(row.id),
    sku: row.sku,
    title: row.title,
    options: JSON.parse(row.options) as Record<string, string>,
    price: Number(row.price_cents) / 100,
    prices: currencyPriceList(defaultCurrency, Number(row.price_cents), row.prices),
    tax_class: taxClass,
    stock: Number(row.stock),
    is_active: Boolean(row.is_active),
    image: row.image,
    position: Number(row.position),
    created_at: dateFromRow(row.created_at).toISOString(),
    updated_at: dateFromRow(row.updated_at).toISOString(),
  };
}
