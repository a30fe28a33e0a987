import type { Tx } from '../database/transaction-runner.js';
import { toProductResponse } from './dto/product.dto.js';
import type { ProductDetailResponseDto } from './dto/variant.dto.js';
import type { ProductOption } from './product-options.js';
import {
  ACTIVE_PRODUCT_BY_ID,
  ACTIVE_PRODUCT_BY_SLUG,
  imagesFromRows,
  PRODUCT_BY_ID,
  PRODUCT_BY_SLUG,
  productFromRow,
  type ProductImageRow,
  type ProductRow,
} from './product-statements.js';
import {
  ACTIVE_VARIANTS_OF_PRODUCT,
  toVariantResponse,
  type VariantRow,
  VARIANTS_OF_PRODUCT,
} from './variant-statements.js';

/**
 * A product as its detail shows it: its images, options and live variants (the active ones unless
 * `includeInactive`), by id or slug; null when there is none to see. Run through the data source's manager for
 * a read, or through a write's transaction for the shape its events carry (the admin's view). `defaultCurrency`
 * is CURRENCY, the currency of `price`.
 */
export async function readProductDetail(
  tx: Tx,
  key: number | string,
  includeInactive: boolean,
  defaultCurrency: string,
): Promise<ProductDetailResponseDto | null> {
  const statement =
    typeof key === 'number'
      ? includeInactive
        ? PRODUCT_BY_ID
        : ACTIVE_PRODUCT_BY_ID
      : includeInactive
        ? PRODUCT_BY_SLUG
        : ACTIVE_PRODUCT_BY_SLUG;
  const rows: Array<ProductRow & ProductImageRow> = await tx.query(statement, [key]);
  if (rows.length === 0) return null;
  const [row] = rows;
  const variants: VariantRow[] =
    row.options == null
      ? []
      : await tx.query(includeInactive ? VARIANTS_OF_PRODUCT : ACTIVE_VARIANTS_OF_PRODUCT, [Number(row.id)]);
  const product = productFromRow(row);
  return {
    ...toProductResponse(product, imagesFromRows(rows), defaultCurrency),
    options: row.options == null ? [] : (JSON.parse(row.options) as ProductOption[]),
    variants: variants.map((variant) => toVariantResponse(variant, defaultCurrency, product.taxClass)),
  };
}
