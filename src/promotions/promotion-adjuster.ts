import { Injectable, NotFoundException } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { fieldError } from '../common/validation.js';
import { CATEGORY_SUBTREE_CTE } from '../categories/category-directory.js';
import { CustomerGroupDirectory } from '../customer-groups/customer-group-directory.js';
import { changedRows, placeholders } from '../database/raw-query.js';
import { sqlDatetime } from '../database/timestamps.js';
import { afterCommit, type Tx } from '../database/transaction-runner.js';
import { Metrics } from '../observability/metrics.js';
import type { OrderTaking, PricingContext } from '../pricing/adjusters.js';
import type { Adjuster, Adjustment, DocumentDiscount, PricedDocument } from '../pricing/calculator.js';
import { PromotionPricing } from './promotion-pricing.js';
import { type PromotionTerms, promotionsAdjuster, type Refusal, type Shopper } from './promotion-rules.js';
import { CartDiscountCode, Promotion } from './promotion.entity.js';
import { heldOrder, PROMOTIONS_OF_DOCUMENT, type PromotionRow, termsOf } from './promotion-statements.js';

/** Takes a use while the limit allows; the row stays locked until the placing commits. */
const TAKE_USE =
  'UPDATE promotions SET used_count = used_count + 1 ' +
  'WHERE id = ? AND (usage_limit IS NULL OR used_count < usage_limit)';
const GIVE_BACK_USE = 'UPDATE promotions SET used_count = used_count - 1 WHERE id = ? AND used_count > 0';
const RELEASE_USAGE = 'UPDATE promotion_usages SET released_at = ? WHERE id = ? AND released_at IS NULL';

/** Whose uses they are: the account (a guest's, when an account has the e-mail) and the normalised e-mail. */
interface Customer {
  userId: number | null;
  email: string | null;
}

/**
 * Promotions as a pricing adjuster (docs/extending.md#pricing-adjusters): the quote loads the cart's codes and
 * the automatic promotions with what their conditions need, the rules (promotion-rules.ts) give the discounts,
 * `commit` takes the uses by conditional updates in the placing transaction and `release` gives them back.
 */
@Injectable()
export class PromotionAdjuster extends PromotionPricing {
  readonly name = 'promotions';

  constructor(
    private readonly groups: CustomerGroupDirectory,
    private readonly metrics: Metrics,
  ) {
    super();
  }

  async quote(manager: EntityManager, context: PricingContext): Promise<Adjuster | null> {
    const rows: PromotionRow[] = await manager.query(PROMOTIONS_OF_DOCUMENT, [context.cartId]);
    if (rows.length === 0) return null;
    const promotions = rows
      .sort((a, b) => heldOrder(a) - heldOrder(b) || Number(a.id) - Number(b.id))
      .map(termsOf);
    const needsCustomer = promotions.some(
      (promotion) => promotion.firstOrderOnly || promotion.usageLimitPerCustomer !== null,
    );
    const customer = needsCustomer
      ? await customerOf(manager, context.customerId, context.email)
      : { userId: null, email: null };
    const shopper: Shopper = {
      now: new Date(),
      groups: promotions.some((promotion) => (promotion.customerGroupIds ?? []).length > 0)
        ? await this.groups.groupsOf(manager, context.customerId)
        : [],
      earlierOrders: promotions.some((promotion) => promotion.firstOrderOnly)
        ? await earlierOrders(manager, customer, context.placingOrderId)
        : 0,
      usesOf: await usesOf(
        manager,
        customer,
        promotions.filter((promotion) => promotion.usageLimitPerCustomer !== null).map((p) => p.id),
      ),
      inCategories: await categoriesOf(
        manager,
        promotions,
        context.lines.flatMap((line) => (line.productId === undefined ? [] : [line.productId])),
      ),
    };
    return promotionsAdjuster(this.name, promotions, shopper);
  }

  /**
   * Checks the cart's codes again (one that no longer applies refuses the order, naming its rule; one that only
   * lost the best-deal comparison does not, as the shopper gets the better deal the cart showed), then takes a
   * use of each promotion that gave something: a conditional update of its count (which also locks its row, so
   * the per-customer count read next is exact), and a usage row for `release`.
   */
  async commit(tx: Tx, order: OrderTaking, given: Adjustment[], discounts: DocumentDiscount[]) {
    const refused = discounts.find(
      (discount) =>
        discount.code !== null && discount.refusal !== null && discount.refusal !== 'notCombinable',
    );
    if (refused !== undefined)
      throw this.refusal(refused.refusal as Refusal, refused.code!, ' (remove it from the cart)');
    const ids = [...new Set(given.flatMap((adjustment) => adjustment.promotionId ?? []))].sort(
      (a, b) => a - b,
    );
    if (ids.length === 0) return;
    const customer = await customerOf(tx, order.customerId, order.email);
    const types: string[] = [];
    for (const id of ids) {
      const name = discounts.find((discount) => discount.promotionId === id)?.code ?? `promotion ${id}`;
      if ((await changedRows(tx, TAKE_USE, [id])) === 0) throw this.refusal('usageLimit', name);
      const [row]: Array<{ type: string; usage_limit_per_customer: number | string | null }> = await tx.query(
        'SELECT type, usage_limit_per_customer FROM promotions WHERE id = ?',
        [id],
      );
      types.push(row.type);
      const limit = row.usage_limit_per_customer;
      if (limit !== null && (await usesOf(tx, customer, [id]))(id) >= Number(limit)) {
        throw this.refusal('usageLimitPerCustomer', name);
      }
      await tx.query(
        'INSERT INTO promotion_usages (promotion_id, order_id, user_id, email, released_at, created_at) ' +
          'VALUES (?, ?, ?, ?, NULL, ?)',
        [id, order.id, customer.userId, customer.email, sqlDatetime(new Date())],
      );
    }
    afterCommit(tx, () => {
      for (const type of types) this.metrics.promotionUses.inc({ type });
    });
  }

  /** Gives back the order's uses not given back yet: each usage row is marked once, its count lowered once. */
  async release(tx: Tx, orderId: number): Promise<void> {
    const usages: Array<{ id: number | string; promotion_id: number | string }> = await tx.query(
      'SELECT id, promotion_id FROM promotion_usages WHERE order_id = ? AND released_at IS NULL ORDER BY promotion_id',
      [orderId],
    );
    const now = sqlDatetime(new Date());
    for (const usage of usages) {
      if ((await changedRows(tx, RELEASE_USAGE, [now, usage.id])) === 1) {
        await tx.query(GIVE_BACK_USE, [usage.promotion_id]);
      }
    }
  }

  async hold(tx: Tx, cartId: string, code: string): Promise<number> {
    const promotion = await tx.findOneBy(Promotion, { codeKey: codeKeyOf(code) });
    if (promotion === null) throw this.refusal('unknown', code);
    const held = await tx.findOneBy(CartDiscountCode, { cartId, promotionId: promotion.id });
    if (held === null)
      await tx.insert(CartDiscountCode, { cartId, promotionId: promotion.id, createdAt: new Date() });
    return promotion.id;
  }

  async moveCodes(tx: Tx, fromCartId: string, toCartId: string): Promise<void> {
    const held = async (cartId: string) =>
      (await tx.findBy(CartDiscountCode, { cartId })).map((code) => code.promotionId);
    const there = await held(toCartId);
    const moving = (await held(fromCartId)).filter((id) => !there.includes(id));
    if (moving.length === 0) return;
    const createdAt = new Date();
    await tx.insert(
      CartDiscountCode,
      moving.map((promotionId) => ({ cartId: toCartId, promotionId, createdAt })),
    );
  }

  async drop(tx: Tx, cartId: string, code: string): Promise<void> {
    const dropped = await changedRows(
      tx,
      'DELETE FROM cart_discount_codes WHERE cart_id = ? AND promotion_id IN (SELECT id FROM promotions WHERE code_key = ?)',
      [cartId, codeKeyOf(code)],
    );
    if (dropped === 0) throw new NotFoundException(`Discount code ${code} is not on cart ${cartId}`);
  }

  assertApplies(document: PricedDocument, promotionId: number): void {
    const discount = document.discounts.find((candidate) => candidate.promotionId === promotionId);
    if (discount !== undefined && discount.refusal !== null) {
      throw this.refusal(discount.refusal as Refusal, discount.code ?? `promotion ${promotionId}`);
    }
  }

  /** The 400 on `code` naming the rule, counted by rule. */
  private refusal(rule: Refusal, code: string, hint = '') {
    this.metrics.promotionRefusals.inc({ rule });
    return fieldError('code', rule, `${REFUSALS[rule](code)}${hint}`);
  }
}

const REFUSALS: Record<Refusal, (code: string) => string> = {
  unknown: (code) => `no promotion has the code ${code}`,
  inactive: (code) => `code ${code} is not active`,
  notStarted: (code) => `code ${code} is not valid yet`,
  expired: (code) => `code ${code} has expired`,
  minSubtotal: (code) => `code ${code} needs a higher subtotal`,
  notApplicable: (code) => `code ${code} does not apply to this cart`,
  usageLimit: (code) => `code ${code} has been used up`,
  usageLimitPerCustomer: (code) => `code ${code} has been used as often as a customer may`,
  notCombinable: (code) =>
    `code ${code} cannot be combined with the cart's other promotions, and they give more`,
};

/** How codes are compared: trimmed, in lower case. */
export const codeKeyOf = (code: string) => code.trim().toLowerCase();

/** The customer whose uses count: by account, a guest by the normalised e-mail (and the account having it). */
async function customerOf(
  manager: EntityManager,
  userId: number | null,
  email: string | null,
): Promise<Customer> {
  if (userId !== null) {
    const [row]: Array<{ email: string }> = await manager.query('SELECT email FROM users WHERE id = ?', [
      userId,
    ]);
    return { userId, email: codeKeyOf(row?.email ?? email ?? '') || null };
  }
  if (email === null) return { userId: null, email: null };
  const normalised = codeKeyOf(email);
  // users.email compares ignoring case on both databases.
  const [row]: Array<{ id: number | string }> = await manager.query('SELECT id FROM users WHERE email = ?', [
    normalised,
  ]);
  return { userId: row === undefined ? null : Number(row.id), email: normalised };
}

/** The customer's earlier orders that were not cancelled (by account or by e-mail), the one being placed aside. */
async function earlierOrders(
  manager: EntityManager,
  customer: Customer,
  placing: number | null,
): Promise<number> {
  if (customer.userId === null && customer.email === null) return 0;
  const [{ placed }]: Array<{ placed: number | string }> = await manager.query(
    "SELECT COUNT(*) AS placed FROM orders WHERE status <> 'cancelled' AND id <> ? AND (user_id = ? OR email_key = ?)",
    [placing ?? 0, customer.userId, customer.email],
  );
  return Number(placed);
}

/** The customer's uses not given back of each promotion of `ids`. */
async function usesOf(
  manager: EntityManager,
  customer: Customer,
  ids: readonly number[],
): Promise<(promotionId: number) => number> {
  if (ids.length === 0 || (customer.userId === null && customer.email === null)) return () => 0;
  const rows: Array<{ promotion_id: number | string; uses: number | string }> = await manager.query(
    'SELECT promotion_id, COUNT(*) AS uses FROM promotion_usages WHERE released_at IS NULL AND promotion_id IN ' +
      `(${placeholders(ids.length)}) AND (user_id = ? OR email = ?) GROUP BY promotion_id`,
    [...ids, customer.userId, customer.email],
  );
  const uses = new Map(rows.map((row) => [Number(row.promotion_id), Number(row.uses)]));
  return (promotionId) => uses.get(promotionId) ?? 0;
}

/** Whether a product is in a promotion's categories or below them: one read per category named, one for the products. */
async function categoriesOf(
  manager: EntityManager,
  promotions: readonly PromotionTerms[],
  productIds: readonly number[],
): Promise<Shopper['inCategories']> {
  const named = [...new Set(promotions.flatMap((promotion) => promotion.categoryIds ?? []))];
  if (named.length === 0 || productIds.length === 0) return () => false;
  const subtrees = new Map<number, Set<number>>();
  for (const id of named) {
    const rows: Array<{ id: number | string }> = await manager.query(
      `${CATEGORY_SUBTREE_CTE} SELECT id FROM category_subtree`,
      [id],
    );
    subtrees.set(id, new Set(rows.map((row) => Number(row.id))));
  }
  const products = [...new Set(productIds)];
  const rows: Array<{ id: number | string; category_id: number | string | null }> = await manager.query(
    `SELECT id, category_id FROM products WHERE id IN (${placeholders(products.length)})`,
    products,
  );
  const categoryOf = new Map(
    rows.map((row) => [Number(row.id), row.category_id === null ? null : Number(row.category_id)]),
  );
  return (promotion, productId) => {
    const category = categoryOf.get(productId);
    return (
      category != null && (promotion.categoryIds ?? []).some((id) => subtrees.get(id)?.has(category) === true)
    );
  };
}
