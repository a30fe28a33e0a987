import { ApiProperty } from '@nestjs/swagger';
import {
  amountOf,
  type DocumentDiscount,
  fromMinor,
  type PricedDocument,
  type TaxLine,
} from '../calculator.js';

export class TaxLineDto {
  @ApiProperty({ example: 'DE-VAT' }) code: string;
  @ApiProperty({ example: 'MwSt. 19 %' }) name: string;
  @ApiProperty({ example: 19, description: 'Percent' }) rate: number;
  @ApiProperty({
    example: 3.19,
    description: 'The tax on the line after its discounts, rounded half to even',
  })
  amount: number;
}

export class AdjustmentDto {
  @ApiProperty({
    example: 'SUMMER10',
    description: "What gave the discount (a promotion's code; '' for an automatic promotion)",
  })
  code: string;
  @ApiProperty({ example: 2 }) amount: number;
  @ApiProperty({ type: 'integer', nullable: true, example: 5, description: 'The promotion that gave it' })
  promotion_id: number | null;
  @ApiProperty({ type: 'string', nullable: true, example: '10 % off everything' })
  description: string | null;
}

/** A promotion of a document: what it took off the lines and the shipping together. */
export class DiscountDto {
  @ApiProperty({ type: 'integer', example: 5 }) promotion_id: number;
  @ApiProperty({ type: 'string', nullable: true, example: 'SUMMER10', description: 'null: automatic' })
  code: string | null;
  @ApiProperty({ example: '10 % off everything' }) description: string;
  @ApiProperty({ example: 5.99, description: 'Σ its adjustments (0 when it does not apply)' }) amount: number;
}

/** A promotion of a cart: a code it holds also when it does not apply now (`applies` false, `refusal` why). */
export class CartDiscountDto extends DiscountDto {
  @ApiProperty({ example: true }) applies: boolean;
  @ApiProperty({
    type: 'string',
    nullable: true,
    example: null,
    description:
      'Why it does not apply: inactive, notStarted, expired, minSubtotal, notApplicable, usageLimit, ' +
      'usageLimitPerCustomer or notCombinable (checkout is refused with it until the code is removed)',
  })
  refusal: string | null;
}

/** A line's share of the calculation (cart lines and order items). */
export class LineAmountsDto {
  @ApiProperty({ example: 0, description: "The line's discounts" }) discount_total: number;
  @ApiProperty({
    example: 3.19,
    description: "The line's taxes (in its price when the region's prices include tax)",
  })
  tax_total: number;
  @ApiProperty({
    example: 19.99,
    description: 'line_total - discount_total, + tax_total where prices exclude tax',
  })
  total: number;
  @ApiProperty({ type: [TaxLineDto] }) tax_lines: TaxLineDto[];
  @ApiProperty({ type: [AdjustmentDto] }) adjustments: AdjustmentDto[];
}

/** The totals of a cart or an order (DESIGN.md §16), each in the currency's major units. */
export class DocumentTotalsDto {
  @ApiProperty({ example: 'eur', description: 'Lower-case ISO 4217: every amount is in this currency' })
  currency_code: string;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 1,
    description: 'null: an order placed before regions',
  })
  region_id: number | null;
  @ApiProperty({
    example: false,
    description: 'Whether prices (and so subtotal and shipping_total) include tax',
  })
  prices_include_tax: boolean;
  @ApiProperty({ example: 59.97, description: 'Σ line_total' }) subtotal: number;
  @ApiProperty({ example: 0, description: 'Σ discounts of the lines and the shipping' })
  discount_total: number;
  @ApiProperty({ example: 4.95, description: "The shipping option's price, before its discount" })
  shipping_total: number;
  @ApiProperty({ example: 0.79, description: "The shipping's tax, part of tax_total" })
  shipping_tax_total: number;
  @ApiProperty({ example: 10.36, description: 'Σ taxes of the lines and the shipping' }) tax_total: number;
  @ApiProperty({ example: 0, description: 'What gift cards pay' }) gift_card_total: number;
  @ApiProperty({
    example: 64.92,
    description: 'subtotal - discount_total + shipping_total (+ tax_total where prices exclude tax)',
  })
  total: number;
  @ApiProperty({ example: 64.92, description: 'total - gift_card_total: what the payment takes' })
  amount_due: number;
}

export function taxLineResponse(line: TaxLine, currency: string): TaxLineDto {
  return { code: line.code, name: line.name, rate: line.rate, amount: fromMinor(line.amount, currency) };
}

export function adjustmentResponse(
  adjustment: { code: string; amount: number; promotionId?: number | null; description?: string | null },
  currency: string,
): AdjustmentDto {
  return {
    code: adjustment.code,
    amount: fromMinor(adjustment.amount, currency),
    promotion_id: adjustment.promotionId ?? null,
    description: adjustment.description ?? null,
  };
}

/** A priced cart's promotions, as the API shows them. */
export function cartDiscountsResponse(
  discounts: readonly DocumentDiscount[],
  currency: string,
): CartDiscountDto[] {
  return [...discounts].sort(byPromotion).map((discount) => ({
    promotion_id: discount.promotionId,
    code: discount.code,
    description: discount.description,
    amount: fromMinor(discount.amount, currency),
    applies: discount.applies,
    refusal: discount.refusal,
  }));
}

/** Carts and orders list their discounts by promotion id, so that an order lists them as its cart did. */
const byPromotion = (a: { promotionId: number }, b: { promotionId: number }) => a.promotionId - b.promotionId;

/** A placed order's promotions, from its stored adjustments (each promotion once, by promotion id). */
export function storedDiscountsResponse(
  adjustments: ReadonlyArray<{
    promotionId: number | null;
    code: string;
    description: string | null;
    amount: number;
  }>,
  currency: string,
): DiscountDto[] {
  const first = new Map<number, (typeof adjustments)[number]>();
  for (const adjustment of adjustments) {
    if (adjustment.promotionId !== null && !first.has(adjustment.promotionId)) {
      first.set(adjustment.promotionId, adjustment);
    }
  }
  return [...first.entries()]
    .sort(([a], [b]) => a - b)
    .map(([promotionId, adjustment]) => ({
      promotion_id: promotionId,
      code: adjustment.code === '' ? null : adjustment.code,
      description: adjustment.description ?? '',
      amount: fromMinor(amountOf(adjustments, promotionId), currency),
    }));
}

/** The totals of a priced document, as the API shows them. */
export function documentTotals(document: PricedDocument, regionId: number | null): DocumentTotalsDto {
  const money = (amount: number) => fromMinor(amount, document.currency);
  return {
    currency_code: document.currency,
    region_id: regionId,
    prices_include_tax: document.pricesIncludeTax,
    subtotal: money(document.subtotal),
    discount_total: money(document.discountTotal),
    shipping_total: money(document.shippingTotal),
    shipping_tax_total: money(document.shipping.taxTotal),
    tax_total: money(document.taxTotal),
    gift_card_total: money(document.giftCardTotal),
    total: money(document.total),
    amount_due: money(document.amountDue),
  };
}
