import { Inject, Injectable, InternalServerErrorException } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { fieldError } from '../common/validation.js';
import type { Tx } from '../database/transaction-runner.js';
import type { RegionInfo } from '../regions/region-directory.js';
import { type TaxAddress, TaxProvider, TaxProviderError, type TaxQuery } from '../taxes/tax-provider.js';
import { type OrderTaking, PRICING_ADJUSTERS, type PricingAdjuster } from './adjusters.js';
import { type Adjuster, type PricedDocument, type PricingLine, priceDocument } from './calculator.js';
import { PRICING_TENDERS, type PricingTender } from './tenders.js';

/** A cart or an order to price: its region, where it ships (null before an address), lines and shipping. */
export interface DocumentToPrice {
  region: RegionInfo;
  address: TaxAddress | null;
  customerId: number | null;
  cartId: string | null;
  /** The cart's or order's e-mail (null: none yet, or a customer's). */
  email?: string | null;
  /** The order being placed, when it is written before it is priced. */
  placingOrderId?: number | null;
  lines: PricingLine[];
  shipping: { amount: number; taxClass: string } | null;
}

export interface PricedQuote {
  document: PricedDocument;
  /** The tax provider's calculation, when it keeps one (Stripe Tax). */
  taxCalculationId: string | null;
}

/**
 * Prices documents with the calculator: the adjusters' quotes, then the taxes the provider gives for the
 * amounts after discounts. The one way carts, orders, payments and refunds get their amounts.
 */
@Injectable()
export class DocumentPricing {
  constructor(
    private readonly taxes: TaxProvider,
    @Inject(PRICING_ADJUSTERS) private readonly adjusters: PricingAdjuster[],
    @Inject(PRICING_TENDERS) private readonly tenders: PricingTender[],
  ) {}

  async price(manager: EntityManager, doc: DocumentToPrice): Promise<PricedQuote> {
    const { region } = doc;
    const context = {
      currency: region.currencyCode,
      regionId: region.id,
      customerId: doc.customerId,
      cartId: doc.cartId,
      email: doc.email ?? null,
      placingOrderId: doc.placingOrderId ?? null,
      lines: doc.lines,
    };
    const adjusters: Adjuster[] = [];
    for (const registered of this.adjusters) {
      const adjuster = await registered.quote(manager, context);
      if (adjuster !== null) adjusters.push(adjuster);
    }
    let giftCardBalance = 0;
    for (const tender of this.tenders) giftCardBalance += await tender.available(manager, context);
    const input = {
      currency: region.currencyCode,
      pricesIncludeTax: region.pricesIncludeTax,
      lines: doc.lines,
      shipping: doc.shipping,
      adjusters,
      giftCardBalance,
    };
    // Until an address is known, the region's first country stands in (none: the default region, untaxed).
    const address =
      doc.address ??
      (region.countries.length === 0 ? null : { country: region.countries[0], subdivision: null });
    if (address === null || doc.lines.length === 0) {
      return { document: priceDocument({ ...input, taxRates: () => [] }), taxCalculationId: null };
    }
    // Taxes are on the amounts after discounts: the untaxed pricing tells them to the provider. Without an
    // adjuster's discount they are the amounts as they stand, and the calculator runs once.
    const untaxed =
      adjusters.length === 0
        ? undiscounted(doc.lines, doc.shipping)
        : priceDocument({ ...input, taxRates: () => [] });
    const quote = await this.quoteTaxes(manager, {
      currency: region.currencyCode,
      pricesIncludeTax: region.pricesIncludeTax,
      address,
      lines: untaxed.lines.map((line, i) => ({
        id: line.id,
        taxClass: doc.lines[i].taxClass,
        amount: line.lineTotal - line.discountTotal,
        quantity: line.quantity,
      })),
      shipping:
        doc.shipping === null
          ? null
          : {
              taxClass: doc.shipping.taxClass,
              amount: untaxed.shipping.amount - untaxed.shipping.discountTotal,
            },
    });
    return {
      document: priceDocument({ ...input, taxRates: (target) => quote.ratesOf(target) }),
      taxCalculationId: quote.calculationId,
    };
  }

  /**
   * The provider's rates. A provider that fails is a 500 whose details name it (the API's codes have no 503); a
   * checkout then places nothing.
   */
  private async quoteTaxes(manager: EntityManager, query: TaxQuery) {
    try {
      return await this.taxes.quote(manager, query);
    } catch (error) {
      if (error instanceof TaxProviderError) throw new InternalServerErrorException(error.message);
      throw error;
    }
  }

  /**
   * Lets every adjuster take what it gave the order, then the tenders what they pay of it, each what the ones
   * before left of `giftCardTotal` (inside the placing transaction).
   */
  async commit(tx: Tx, order: OrderTaking & { cartId: string | null }, document: PricedDocument) {
    const given = [...document.lines.flatMap((line) => line.adjustments), ...document.shipping.adjustments];
    for (const adjuster of this.adjusters) {
      await adjuster.commit?.(
        tx,
        order,
        given.filter((adjustment) => adjustment.source === adjuster.name),
        document.discounts.filter((discount) => discount.source === adjuster.name),
      );
    }
    let left = document.giftCardTotal;
    for (const tender of this.tenders) {
      left -= await tender.commit(
        tx,
        { id: order.id, currency: document.currency, cartId: order.cartId },
        left,
      );
    }
    // Priced in this transaction, so only a balance spent by a concurrent checkout meanwhile leaves a rest.
    if (left > 0) {
      throw fieldError(
        'gift_cards',
        'insufficientBalance',
        'the gift cards no longer cover what the cart showed',
      );
    }
  }

  /** Lets every adjuster and tender give back what the order took (inside the cancelling transaction). */
  async release(tx: Tx, orderId: number): Promise<void> {
    for (const adjuster of this.adjusters) await adjuster.release?.(tx, orderId);
    for (const tender of this.tenders) await tender.release(tx, orderId);
  }

  /** Records a paid order's taxes with the provider; the provider's transaction id, or null. */
  recordPaid(calculationId: string, reference: string): Promise<string | null> {
    return this.taxes.recordPaid(calculationId, reference);
  }
}

/** What the untaxed pricing gives when nothing is discounted: each line's price × quantity, the shipping's price. */
function undiscounted(
  lines: PricingLine[],
  shipping: { amount: number } | null,
): Pick<PricedDocument, 'lines' | 'shipping'> {
  return {
    lines: lines.map((line) => ({
      id: line.id,
      quantity: line.quantity,
      lineTotal: line.price * line.quantity,
      discountTotal: 0,
    })),
    shipping: { amount: shipping?.amount ?? 0, discountTotal: 0 },
  } as Pick<PricedDocument, 'lines' | 'shipping'>;
}
