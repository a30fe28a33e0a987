import { dateFromRow } from '../database/timestamps.js';
import type { PromotionTerms } from './promotion-rules.js';

// The promotions' read of a document and its rows as the rules take them: pure, so that the benchmark's
// baselines run the same statement and mapping from the build.

const COLUMNS =
  'p.id, p.code, p.description, p.type, p.value, p.currency_code, p.target, p.min_subtotal, p.product_ids, ' +
  'p.category_ids, p.customer_group_ids, p.first_order_only, p.buy_quantity, p.get_quantity, ' +
  'p.get_percentage, p.starts_at, p.ends_at, p.usage_limit, p.usage_limit_per_customer, p.combinable, ' +
  'p.is_active, p.used_count';
/** The codes a cart holds (in the order they were put on), then the active automatic promotions. */
export const PROMOTIONS_OF_DOCUMENT =
  `SELECT ${COLUMNS}, c.created_at AS held_at FROM promotions p ` +
  'INNER JOIN cart_discount_codes c ON c.promotion_id = p.id WHERE c.cart_id = ? ' +
  `UNION ALL SELECT ${COLUMNS}, NULL AS held_at FROM promotions p WHERE p.is_active = 1 AND p.code_key IS NULL`;

export interface PromotionRow {
  id: number | string;
  code: string | null;
  description: string;
  type: PromotionTerms['type'];
  value: string | number | null;
  currency_code: string | null;
  target: PromotionTerms['target'];
  min_subtotal: string | number | null;
  product_ids: string | null;
  category_ids: string | null;
  customer_group_ids: string | null;
  first_order_only: number | string | boolean;
  buy_quantity: number | string | null;
  get_quantity: number | string | null;
  get_percentage: string | number | null;
  starts_at: Date | string | null;
  ends_at: Date | string | null;
  usage_limit: number | string | null;
  usage_limit_per_customer: number | string | null;
  combinable: number | string | boolean;
  is_active: number | string | boolean;
  used_count: number | string;
  held_at: Date | string | null;
}

/** Codes in the order they were put on the cart, then the automatic promotions. */
export const heldOrder = (row: PromotionRow) =>
  row.held_at === null ? Infinity : dateFromRow(row.held_at).getTime();

/** A promotion row as the rules read it. */
export function termsOf(row: PromotionRow): PromotionTerms {
  const number = (value: string | number | null) => (value === null ? null : Number(value));
  const flag = (value: number | string | boolean) => Number(value) === 1;
  const list = (text: string | null) => (text === null ? null : (JSON.parse(text) as number[]));
  const date = (value: Date | string | null) => (value === null ? null : dateFromRow(value));
  return {
    id: Number(row.id),
    code: row.code,
    description: row.description,
    type: row.type,
    value: number(row.value),
    currencyCode: row.currency_code,
    target: row.target,
    minSubtotal: number(row.min_subtotal),
    productIds: list(row.product_ids),
    categoryIds: list(row.category_ids),
    customerGroupIds: list(row.customer_group_ids),
    firstOrderOnly: flag(row.first_order_only),
    buyQuantity: number(row.buy_quantity),
    getQuantity: number(row.get_quantity),
    getPercentage: number(row.get_percentage),
    startsAt: date(row.starts_at),
    endsAt: date(row.ends_at),
    usageLimit: number(row.usage_limit),
    usageLimitPerCustomer: number(row.usage_limit_per_customer),
    combinable: flag(row.combinable),
    isActive: flag(row.is_active),
    usedCount: Number(row.used_count),
  };
}
