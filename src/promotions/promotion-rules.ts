import {
  type Adjuster,
  type AdjusterInput,
  type Adjustment,
  type DocumentDiscount,
  roundHalfEven,
  toMinor,
  unitShares,
} from '../pricing/calculator.js';

export const PROMOTION_TYPES = ['percentage', 'fixed', 'free_shipping', 'buy_x_get_y'] as const;
export type PromotionType = (typeof PROMOTION_TYPES)[number];
export const PROMOTION_TARGETS = ['order', 'items'] as const;
export type PromotionTarget = (typeof PROMOTION_TARGETS)[number];

/** Why a promotion gives nothing to a document (the `rule` of a 400 on `code`). */
export type Refusal =
  | 'unknown'
  | 'inactive'
  | 'notStarted'
  | 'expired'
  | 'minSubtotal'
  | 'notApplicable'
  | 'usageLimit'
  | 'usageLimitPerCustomer'
  | 'notCombinable';

/** A promotion as the rules read it: amounts in major units of `currencyCode` (fixed) or the document's. */
export interface PromotionTerms {
  id: number;
  code: string | null;
  description: string;
  type: PromotionType;
  value: number | null;
  currencyCode: string | null;
  target: PromotionTarget;
  minSubtotal: number | null;
  productIds: number[] | null;
  categoryIds: number[] | null;
  customerGroupIds: number[] | null;
  firstOrderOnly: boolean;
  buyQuantity: number | null;
  getQuantity: number | null;
  getPercentage: number | null;
  startsAt: Date | null;
  endsAt: Date | null;
  usageLimit: number | null;
  usageLimitPerCustomer: number | null;
  combinable: boolean;
  isActive: boolean;
  usedCount: number;
}

/** The terms of a promotion that sets none of them: no conditions, dates or limits; combinable and active. */
export const OPEN_TERMS = {
  minSubtotal: null,
  productIds: null,
  categoryIds: null,
  customerGroupIds: null,
  firstOrderOnly: false,
  buyQuantity: null,
  getQuantity: null,
  getPercentage: null,
  startsAt: null,
  endsAt: null,
  usageLimit: null,
  usageLimitPerCustomer: null,
  combinable: true,
  isActive: true,
} satisfies Partial<PromotionTerms>;

/** What the rules know of the shopper and the moment, loaded by the adjuster's quote. */
export interface Shopper {
  now: Date;
  groups: readonly number[];
  /** The account's and the e-mail's earlier orders that were not cancelled. */
  earlierOrders: number;
  /** Uses not given back, per promotion id, of this customer (account or e-mail). */
  usesOf: (promotionId: number) => number;
  /** Whether a product is in one of the promotion's categories (or below one). */
  inCategories: (promotion: PromotionTerms, productId: number) => boolean;
}

/** Percentages are kept exact as integers of 1/10 000 percent. */
const PERCENT_SCALE = 10_000n;

type Line = AdjusterInput['lines'][number];
type Proposed = Omit<Adjustment, 'source'>;

/** Items first, then the order, then the shipping (DESIGN.md §16). */
function stageOf(promotion: PromotionTerms): number {
  if (promotion.type === 'free_shipping') return 2;
  if (promotion.type === 'buy_x_get_y' || promotion.target === 'items') return 0;
  return 1;
}

function matches(promotion: PromotionTerms, line: Line, shopper: Shopper): boolean {
  const productId = line.productId;
  if (promotion.productIds !== null && promotion.productIds.length > 0) {
    if (productId === undefined || !promotion.productIds.includes(productId)) return false;
  }
  if (promotion.categoryIds !== null && promotion.categoryIds.length > 0) {
    if (productId === undefined || !shopper.inCategories(promotion, productId)) return false;
  }
  return true;
}

/** The rule a promotion fails for this document and shopper, before any other promotion is considered. */
export function refusalOf(promotion: PromotionTerms, input: AdjusterInput, shopper: Shopper): Refusal | null {
  if (!promotion.isActive) return 'inactive';
  if (promotion.startsAt !== null && promotion.startsAt > shopper.now) return 'notStarted';
  if (promotion.endsAt !== null && promotion.endsAt <= shopper.now) return 'expired';
  if (promotion.usageLimit !== null && promotion.usedCount >= promotion.usageLimit) return 'usageLimit';
  if (
    promotion.usageLimitPerCustomer !== null &&
    shopper.usesOf(promotion.id) >= promotion.usageLimitPerCustomer
  ) {
    return 'usageLimitPerCustomer';
  }
  const subtotal = input.lines.reduce((total, line) => total + line.lineTotal, 0);
  if (promotion.minSubtotal !== null && subtotal < toMinor(promotion.minSubtotal, input.currency)) {
    return 'minSubtotal';
  }
  if (promotion.type === 'fixed' && promotion.currencyCode !== input.currency) return 'notApplicable';
  const groups = promotion.customerGroupIds ?? [];
  if (groups.length > 0 && !groups.some((group) => shopper.groups.includes(group))) return 'notApplicable';
  if (promotion.firstOrderOnly && shopper.earlierOrders > 0) return 'notApplicable';
  const eligible = input.lines.filter((line) => matches(promotion, line, shopper));
  if (eligible.length === 0) return 'notApplicable';
  if (promotion.type === 'buy_x_get_y') {
    const units = eligible.reduce((total, line) => total + line.quantity, 0);
    if (units < promotion.buyQuantity! + promotion.getQuantity!) return 'notApplicable';
  }
  return null;
}

function percentOf(amount: number, percent: number): number {
  const scaled = BigInt(Math.round(percent * Number(PERCENT_SCALE)));
  return roundHalfEven(BigInt(amount) * scaled, 100n * PERCENT_SCALE);
}

/**
 * `total` spread over lines in proportion to their remaining amounts, exact to the minor unit: each line gets
 * the floor of its share, and the units left go one each to the largest remainders (ties to the earlier line).
 */
export function spread(total: number, remaining: readonly number[]): number[] {
  const whole = remaining.reduce((sum, amount) => sum + amount, 0);
  if (whole === 0 || total === 0) return remaining.map(() => 0);
  const exact = remaining.map((amount) => BigInt(total) * BigInt(amount));
  const shares = exact.map((value) => Number(value / BigInt(whole)));
  let left = total - shares.reduce((sum, share) => sum + share, 0);
  const byRemainder = exact
    .map((value, index) => ({ index, remainder: value % BigInt(whole) }))
    .sort((a, b) => (a.remainder === b.remainder ? a.index - b.index : a.remainder > b.remainder ? -1 : 1));
  for (const { index } of byRemainder) {
    if (left === 0) break;
    shares[index] += 1;
    left -= 1;
  }
  return shares;
}

/** What one promotion takes off the lines and shipping as they are left (the amounts then lowered). */
function give(
  promotion: PromotionTerms,
  lines: Array<Line & { remaining: number }>,
  shipping: { remaining: number } | null,
  currency: string,
  shopper: Shopper,
): Proposed[] {
  // An automatic promotion has no code: its adjustments carry '' and its description.
  const tag = { code: promotion.code ?? '', promotionId: promotion.id, description: promotion.description };
  const eligible = lines.filter((line) => line.remaining > 0 && matches(promotion, line, shopper));
  const amounts = new Map<Line['id'], number>();
  const value = promotion.value ?? 0;
  switch (promotion.type) {
    case 'free_shipping': {
      if (shipping === null || shipping.remaining === 0) return [];
      const amount = shipping.remaining;
      shipping.remaining = 0;
      return [{ ...tag, lineId: null, amount }];
    }
    case 'buy_x_get_y': {
      // Every buy + get units of the eligible ones, the cheapest get units are discounted.
      const units = eligible
        .flatMap((line) => unitShares(line.remaining, line.quantity).map((share) => ({ line, share })))
        .sort((a, b) => b.share - a.share);
      const groups = Math.floor(units.length / (promotion.buyQuantity! + promotion.getQuantity!));
      for (const unit of units.slice(units.length - groups * promotion.getQuantity!)) {
        const amount = percentOf(unit.share, promotion.getPercentage ?? 100);
        amounts.set(unit.line.id, (amounts.get(unit.line.id) ?? 0) + amount);
      }
      break;
    }
    default: {
      if (promotion.target === 'items') {
        for (const line of eligible) {
          amounts.set(
            line.id,
            promotion.type === 'percentage'
              ? percentOf(line.remaining, value)
              : Math.min(line.remaining, toMinor(value, currency) * line.quantity),
          );
        }
        break;
      }
      const left = eligible.reduce((sum, line) => sum + line.remaining, 0);
      const total =
        promotion.type === 'percentage' ? percentOf(left, value) : Math.min(left, toMinor(value, currency));
      spread(
        total,
        eligible.map((line) => line.remaining),
      ).forEach((amount, index) => amounts.set(eligible[index].id, amount));
    }
  }
  const proposed: Proposed[] = [];
  for (const line of lines) {
    const amount = Math.min(amounts.get(line.id) ?? 0, line.remaining);
    if (amount === 0) continue;
    line.remaining -= amount;
    proposed.push({ ...tag, lineId: line.id, amount });
  }
  return proposed;
}

/** What a set of promotions gives together, in stage order (then id order), each on what the others left. */
function giveAll(set: readonly PromotionTerms[], input: AdjusterInput, shopper: Shopper): Proposed[] {
  const lines = input.lines.map((line) => ({ ...line }));
  const shipping = input.shipping === null ? null : { remaining: input.shipping.remaining };
  return [...set]
    .sort((a, b) => stageOf(a) - stageOf(b) || a.id - b.id)
    .flatMap((promotion) => give(promotion, lines, shipping, input.currency, shopper));
}

const totalOf = (proposed: readonly Proposed[]) => proposed.reduce((sum, one) => sum + one.amount, 0);

/**
 * The promotions' adjuster for one document: the automatic promotions and the codes it holds (`held`). Of those
 * that pass their rules, the combinable ones apply together unless a single non-combinable one gives the
 * shopper more (ties: the combinable ones, then the lower id); the others are refused `notCombinable`.
 */
export function promotionsAdjuster(
  name: string,
  promotions: readonly PromotionTerms[],
  shopper: Shopper,
): Adjuster {
  let considered: Array<Omit<DocumentDiscount, 'amount' | 'source'>> = [];
  return {
    name,
    adjust(input) {
      const refusals = new Map(
        promotions.map((promotion) => [promotion.id, refusalOf(promotion, input, shopper)]),
      );
      const passing = promotions.filter((promotion) => refusals.get(promotion.id) === null);
      const combinable = passing.filter((promotion) => promotion.combinable);
      let chosen = combinable;
      let given = giveAll(combinable, input, shopper);
      for (const single of passing.filter((promotion) => !promotion.combinable)) {
        const alone = giveAll([single], input, shopper);
        if (totalOf(alone) > totalOf(given)) {
          chosen = [single];
          given = alone;
        }
      }
      for (const promotion of passing) {
        if (!chosen.includes(promotion)) refusals.set(promotion.id, 'notCombinable');
      }
      // Codes are listed whether they apply or not; automatic promotions when they apply.
      considered = promotions
        .filter((promotion) => promotion.code !== null || refusals.get(promotion.id) === null)
        .map((promotion) => ({
          promotionId: promotion.id,
          code: promotion.code,
          description: promotion.description,
          applies: refusals.get(promotion.id) === null,
          refusal: refusals.get(promotion.id) ?? null,
        }));
      return given;
    },
    considered: () => considered,
  };
}
