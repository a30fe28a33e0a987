/**
 * The one calculation of a cart's or an order's amounts (DESIGN.md §16): pure, in integer minor units of the
 * currency, every rounding through `roundHalfEven`. Pricing concerns plug in as adjusters (a discount stage) and
 * as resolved tax rates; gift cards are a tender applied to the total.
 *
 * Every result satisfies, to the minor unit:
 *   total = subtotal - discount_total + shipping_total + (prices include tax ? 0 : tax_total)
 *   amount_due = total - gift_card_total
 * and each line's (and shipping's) line_total, discount_total and tax_total add up to the document's.
 */

/** A tax rate that applies to a line, resolved for the address (percent, up to 4 decimals). */
export interface TaxRate {
  code: string;
  name: string;
  rate: number;
}

/** What is taxed: a line (by id) or the shipping (`lineId` null), and its tax class. */
export interface TaxTarget {
  lineId: number | string | null;
  taxClass: string;
}

export interface PricingLine {
  id: number | string;
  /** The product the line sells (what promotions' product and category conditions match). */
  productId?: number;
  /** The unit price in minor units (what the shopper pays for one unit, with or without tax per the region). */
  price: number;
  quantity: number;
  taxClass: string;
}

/** A discount an adjuster gives: on a line (`lineId`) or on shipping (`lineId` null), never past what is left. */
export interface Adjustment {
  lineId: number | string | null;
  amount: number;
  /** What the shopper sees (a promotion's code), stored with the line. */
  code: string;
  /** The adjuster that gave it (its name). */
  source: string;
  /** The promotion that gave it, when an adjuster gives promotions' discounts. */
  promotionId?: number | null;
  /** What the shopper is told of it (the promotion's description). */
  description?: string;
}

/**
 * A promotion a document holds or is given, as carts and orders list it: its amount is what its adjustments
 * took (0 when it does not apply), `refusal` the rule it fails (null when it applies).
 */
export interface DocumentDiscount {
  promotionId: number;
  code: string | null;
  description: string;
  amount: number;
  applies: boolean;
  refusal: string | null;
  source: string;
}

/** What an adjuster sees: the lines with what is still left of each after the adjusters before it. */
export interface AdjusterInput {
  currency: string;
  lines: ReadonlyArray<PricingLine & { lineTotal: number; remaining: number }>;
  shipping: { amount: number; remaining: number } | null;
}

/** A pricing concern of the discount stage (promotions, price adjustments): proposes adjustments, does no I/O. */
export interface Adjuster {
  readonly name: string;
  adjust(input: AdjusterInput): Array<Omit<Adjustment, 'source'>>;
  /**
   * After `adjust`: the promotions it considered that the document lists (what it gave, and the codes it holds
   * that gave nothing, with the rule they fail). The calculator adds each one's amount.
   */
  considered?(): Array<Omit<DocumentDiscount, 'amount' | 'source'>>;
}

export interface PricingInput {
  currency: string;
  pricesIncludeTax: boolean;
  lines: PricingLine[];
  /** The shipping option's price in minor units, or null before one is chosen. */
  shipping: { amount: number; taxClass: string } | null;
  /** The rates that apply to a line (`lineId`) or the shipping (`lineId` null) at the document's address. */
  taxRates: (target: TaxTarget) => readonly TaxRate[];
  adjusters?: readonly Adjuster[];
  /** The gift cards' balance available to this document, in minor units (0 without one). */
  giftCardBalance?: number;
}

export interface TaxLine extends TaxRate {
  amount: number;
}

export interface PricedLine {
  id: number | string;
  price: number;
  quantity: number;
  /** price × quantity */
  lineTotal: number;
  discountTotal: number;
  adjustments: Adjustment[];
  taxLines: TaxLine[];
  taxTotal: number;
  /** lineTotal - discountTotal (+ taxTotal when prices exclude tax) */
  total: number;
}

export interface PricedShipping {
  amount: number;
  discountTotal: number;
  adjustments: Adjustment[];
  taxLines: TaxLine[];
  taxTotal: number;
  total: number;
}

export interface PricedDocument {
  currency: string;
  pricesIncludeTax: boolean;
  lines: PricedLine[];
  shipping: PricedShipping;
  /** Σ line_total */
  subtotal: number;
  /** Σ discounts, shipping's included */
  discountTotal: number;
  /** The shipping price before its discount */
  shippingTotal: number;
  /** Σ taxes, shipping's included */
  taxTotal: number;
  giftCardTotal: number;
  total: number;
  amountDue: number;
  /** The promotions the document lists, each with what it took. */
  discounts: DocumentDiscount[];
}

/** Rates are kept exact as integers of 1/10 000 percent. */
const RATE_SCALE = 10_000n;

/** n / d rounded to the nearest integer, ties to the even one (bankers' rounding), for d > 0 and n ≥ 0. */
export function roundHalfEven(n: bigint, d: bigint): number {
  const quotient = n / d;
  const twice = (n % d) * 2n;
  const up = twice > d || (twice === d && quotient % 2n === 1n);
  return Number(up ? quotient + 1n : quotient);
}

function scaledRate(rate: number): bigint {
  return BigInt(Math.round(rate * Number(RATE_SCALE)));
}

/**
 * The taxes of an amount (after its discounts), one per rate, each rounded half to even: taken out of the amount
 * when it includes them (amount × rate / (100 + Σ rates)), added on top otherwise (amount × rate / 100).
 */
export function taxesOf(amount: number, rates: readonly TaxRate[], inclusive: boolean): TaxLine[] {
  const hundred = 100n * RATE_SCALE;
  const sum = rates.reduce((total, rate) => total + scaledRate(rate.rate), 0n);
  const base = BigInt(amount);
  return rates.map((rate) => ({
    ...rate,
    amount: roundHalfEven(base * scaledRate(rate.rate), inclusive ? hundred + sum : hundred),
  }));
}

/**
 * What each of `quantity` units of an amount is worth, in minor units, adding up to exactly the amount: unit k
 * is round(amount × k / quantity) - round(amount × (k - 1) / quantity). A refund of units repays these.
 */
export function unitShares(amount: number, quantity: number): number[] {
  const shares: number[] = [];
  let before = 0;
  for (let k = 1; k <= quantity; k++) {
    const upTo = roundHalfEven(BigInt(amount) * BigInt(k), BigInt(quantity));
    shares.push(upTo - before);
    before = upTo;
  }
  return shares;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/** Prices a cart or an order. Pure: the same input gives the same amounts, on every instance and at any time. */
export function priceDocument(input: PricingInput): PricedDocument {
  const lines = input.lines.map((line) => {
    const lineTotal = line.price * line.quantity;
    return { ...line, lineTotal, remaining: lineTotal, adjustments: [] as Adjustment[] };
  });
  const shippingAmount = input.shipping?.amount ?? 0;
  const shipping = { amount: shippingAmount, remaining: shippingAmount, adjustments: [] as Adjustment[] };
  const discounts: DocumentDiscount[] = [];

  // The discount stage: each adjuster sees what the ones before it left, and never takes a line below zero.
  for (const adjuster of input.adjusters ?? []) {
    const proposed = adjuster.adjust({
      currency: input.currency,
      lines,
      shipping: input.shipping === null ? null : shipping,
    });
    for (const adjustment of proposed) {
      const target =
        adjustment.lineId === null ? shipping : lines.find((line) => line.id === adjustment.lineId);
      if (target === undefined) continue;
      const amount = Math.min(Math.max(0, Math.trunc(adjustment.amount)), target.remaining);
      if (amount === 0) continue;
      target.remaining -= amount;
      target.adjustments.push({ ...adjustment, source: adjuster.name, amount });
    }
    const given = [...lines.flatMap((line) => line.adjustments), ...shipping.adjustments].filter(
      (adjustment) => adjustment.source === adjuster.name,
    );
    for (const considered of adjuster.considered?.() ?? []) {
      discounts.push({
        ...considered,
        source: adjuster.name,
        amount: amountOf(given, considered.promotionId),
      });
    }
  }

  const inclusive = input.pricesIncludeTax;
  const pricedLines: PricedLine[] = lines.map((line) => {
    const rates = input.taxRates({ lineId: line.id, taxClass: line.taxClass });
    const taxLines = taxesOf(line.remaining, rates, inclusive);
    const taxTotal = sum(taxLines.map((tax) => tax.amount));
    const discountTotal = line.lineTotal - line.remaining;
    return {
      id: line.id,
      price: line.price,
      quantity: line.quantity,
      lineTotal: line.lineTotal,
      discountTotal,
      adjustments: line.adjustments,
      taxLines,
      taxTotal,
      total: line.remaining + (inclusive ? 0 : taxTotal),
    };
  });
  const shippingTaxLines =
    input.shipping === null
      ? []
      : taxesOf(
          shipping.remaining,
          input.taxRates({ lineId: null, taxClass: input.shipping.taxClass }),
          inclusive,
        );
  const shippingTax = sum(shippingTaxLines.map((tax) => tax.amount));
  const pricedShipping: PricedShipping = {
    amount: shippingAmount,
    discountTotal: shippingAmount - shipping.remaining,
    adjustments: shipping.adjustments,
    taxLines: shippingTaxLines,
    taxTotal: shippingTax,
    total: shipping.remaining + (inclusive ? 0 : shippingTax),
  };

  const subtotal = sum(pricedLines.map((line) => line.lineTotal));
  const discountTotal = sum(pricedLines.map((line) => line.discountTotal)) + pricedShipping.discountTotal;
  const taxTotal = sum(pricedLines.map((line) => line.taxTotal)) + shippingTax;
  const total = subtotal - discountTotal + shippingAmount + (inclusive ? 0 : taxTotal);
  const giftCardTotal = Math.min(Math.max(0, input.giftCardBalance ?? 0), total);
  return {
    currency: input.currency,
    pricesIncludeTax: inclusive,
    lines: pricedLines,
    shipping: pricedShipping,
    subtotal,
    discountTotal,
    shippingTotal: shippingAmount,
    taxTotal,
    giftCardTotal,
    total,
    amountDue: total - giftCardTotal,
    discounts,
  };
}

/** What a promotion's adjustments took, in minor units (a stored order's as a priced document's). */
export function amountOf(
  adjustments: ReadonlyArray<{ promotionId?: number | null; amount: number }>,
  promotionId: number,
): number {
  return sum(adjustments.filter((adjustment) => adjustment.promotionId === promotionId).map((a) => a.amount));
}

const minorUnitsByCurrency = new Map<string, number>();

/** The currency's minor units (ISO 4217 as the runtime's ICU knows it): `jpy` 0, `eur` 2, `kwd` 3. */
export function minorUnits(currency: string): number {
  let digits = minorUnitsByCurrency.get(currency);
  if (digits === undefined) {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions()
      .maximumFractionDigits as number;
    minorUnitsByCurrency.set(currency, digits);
  }
  return digits;
}

/** An amount in the currency's major units (what the API shows: 19.99 EUR, 1999 JPY) from minor units. */
export function fromMinor(amount: number, currency: string): number {
  const digits = minorUnits(currency);
  return digits === 0 ? amount : Number((amount / 10 ** digits).toFixed(digits));
}

/** Minor units of an amount in major units that isAmountIn accepted (19.99 EUR -> 1999). */
export function toMinor(amount: number, currency: string): number {
  return Math.round(amount * 10 ** minorUnits(currency));
}

/** A finite, non-negative amount with no more decimals than the currency has (JPY whole, EUR two). */
export function isAmountIn(amount: unknown, currency: string): amount is number {
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0) return false;
  const scaled = amount * 10 ** minorUnits(currency);
  return Math.abs(scaled - Math.round(scaled)) < 1e-6 && Number.isSafeInteger(Math.round(scaled));
}
