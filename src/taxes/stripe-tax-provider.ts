import Stripe from 'stripe';
import type { EntityManager } from 'typeorm';
import { createStripeClient } from '../common/stripe-client.js';
import type { TaxRate, TaxTarget } from '../pricing/calculator.js';
import { type TaxQuery, type TaxQuote, TaxProvider, TaxProviderError } from './tax-provider.js';

/** The settings of Stripe Tax (TAX_PROVIDER=stripe). */
export interface StripeTaxSettings {
  secretKey: string;
  /** STRIPE_API_URL: where the SDK sends its requests instead of https://api.stripe.com. */
  apiUrl: string | null;
  /** TAX_PROVIDER_TIMEOUT_MS: bound on one quote() or recordPaid(), all its requests together. */
  timeoutMs: number;
  /** TAX_STRIPE_TAX_CODES: the Stripe tax code of a tax class; other classes get the account's default. */
  taxCodes: Record<string, string>;
}

type Breakdown =
  Stripe.Tax.CalculationLineItem.TaxBreakdown | Stripe.Tax.Calculation.ShippingCost.TaxBreakdown;

/** The longest code and name an order's tax line keeps (order_tax_lines). */
const MAX_CODE_LENGTH = 64;
const MAX_NAME_LENGTH = 100;
/** Rates are kept with 4 decimals (DECIMAL(9,4)). */
const RATE_DECIMALS = 4;

/**
 * Stripe Tax through its calculations API (the official SDK). A quote asks Stripe for the rates of every line and
 * of the shipping at the address; the calculator computes the amounts from those rates, so that every amount is
 * rounded in one place. Stripe's own figure for a line may then differ by a minor unit; the calculator's is the
 * one charged. A paid order's calculation is recorded as a Stripe Tax transaction.
 */
export class StripeTaxProvider extends TaxProvider {
  readonly name = 'stripe';
  private readonly stripe: Stripe;

  constructor(private readonly settings: StripeTaxSettings) {
    super();
    // No retries: a quote is on the checkout's path, and the whole call is bounded by timeoutMs anyway.
    this.stripe = createStripeClient(settings.secretKey, settings.apiUrl, {
      maxNetworkRetries: 0,
      timeoutMs: settings.timeoutMs,
    });
  }

  async quote(_manager: EntityManager, query: TaxQuery): Promise<TaxQuote> {
    // Stripe needs at least one line item; an empty document has nothing to tax.
    if (query.lines.length === 0) return { ratesOf: () => [], calculationId: null };
    return this.call(async () => {
      const calculation = await this.stripe.tax.calculations.create(this.calculationOf(query));
      const lineRates = new Map<string, TaxRate[]>();
      for (const item of await this.lineItemsOf(calculation)) {
        lineRates.set(item.reference, ratesOf(item.tax_breakdown ?? []));
      }
      const missing = query.lines.find((line) => !lineRates.has(String(line.id)));
      if (missing !== undefined) throw new Error(`the answer has no line item ${String(missing.id)}`);
      const shippingRates = ratesOf(calculation.shipping_cost?.tax_breakdown ?? []);
      return {
        ratesOf: ({ lineId }: TaxTarget): readonly TaxRate[] =>
          lineId === null ? shippingRates : (lineRates.get(String(lineId)) ?? []),
        calculationId: calculation.id,
      };
    });
  }

  recordPaid(calculationId: string, reference: string): Promise<string | null> {
    return this.call(async () => {
      const transaction = await this.stripe.tax.transactions.createFromCalculation(
        { calculation: calculationId, reference },
        // Recording the same order again answers the transaction made first instead of failing on its reference.
        { idempotencyKey: `tax-transaction-${reference}` },
      );
      return transaction.id;
    });
  }

  private calculationOf(query: TaxQuery): Stripe.Tax.CalculationCreateParams {
    const taxBehavior = query.pricesIncludeTax ? 'inclusive' : 'exclusive';
    const taxCode = (taxClass: string) => {
      const code = this.settings.taxCodes[taxClass];
      return code === undefined ? {} : { tax_code: code };
    };
    const { address } = query;
    return {
      currency: query.currency,
      line_items: query.lines.map((line) => ({
        amount: line.amount,
        quantity: line.quantity,
        reference: String(line.id),
        tax_behavior: taxBehavior,
        ...taxCode(line.taxClass),
      })),
      ...(query.shipping === null
        ? {}
        : {
            shipping_cost: {
              amount: query.shipping.amount,
              tax_behavior: taxBehavior,
              ...taxCode(query.shipping.taxClass),
            },
          }),
      customer_details: {
        address: {
          country: address.country,
          ...(address.subdivision ? { state: address.subdivision } : {}),
          ...(address.postalCode ? { postal_code: address.postalCode } : {}),
          ...(address.city ? { city: address.city } : {}),
          ...(address.line1 ? { line1: address.line1 } : {}),
        },
        address_source: 'shipping',
      },
      expand: ['line_items.data.tax_breakdown', 'shipping_cost.tax_breakdown'],
    };
  }

  /** Every line item of a calculation: the ones in its answer, then the further pages when there are more. */
  private async lineItemsOf(calculation: Stripe.Tax.Calculation): Promise<Stripe.Tax.CalculationLineItem[]> {
    const list = calculation.line_items;
    if (list === null || list === undefined) throw new Error('the answer has no line items');
    const items = [...list.data];
    let hasMore = list.has_more;
    while (hasMore) {
      if (calculation.id === null) throw new Error('the answer has more line items but no calculation id');
      const page = await this.stripe.tax.calculations.listLineItems(calculation.id, {
        limit: 100,
        starting_after: items[items.length - 1].id,
        expand: ['data.tax_breakdown'],
      });
      items.push(...page.data);
      hasMore = page.has_more && page.data.length > 0;
    }
    return items;
  }

  /**
   * Runs the requests of one call within timeoutMs (the SDK's own timeout bounds each wait for the socket; this
   * bounds the call), turning any failure into a TaxProviderError whose reason never shows the secret key.
   */
  private async call<T>(work: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${this.settings.timeoutMs} ms`)),
        this.settings.timeoutMs,
      );
    });
    try {
      return await Promise.race([work(), deadline]);
    } catch (error) {
      throw new TaxProviderError(this.name, this.reasonOf(error));
    } finally {
      clearTimeout(timer);
    }
  }

  private reasonOf(error: unknown): string {
    let reason: string;
    if (error instanceof Stripe.errors.StripeConnectionError) {
      reason = `Stripe could not be reached (${error.message})`;
    } else if (error instanceof Stripe.errors.StripeError) {
      reason = `Stripe answered ${error.statusCode ?? 'an error'} ${error.type}: ${error.message}`;
    } else {
      reason = error instanceof Error ? error.message : String(error);
    }
    return reason.split(this.settings.secretKey).join('[secret key]');
  }
}

/** The rates of a line's (or the shipping's) tax breakdown; a tax not imposed on any amount is left out. */
function ratesOf(breakdown: readonly Breakdown[]): TaxRate[] {
  return breakdown.flatMap((entry) => {
    const details = entry.tax_rate_details;
    if (details === null || entry.taxable_amount === 0) return [];
    const rate = Number(details.percentage_decimal);
    if (!Number.isFinite(rate) || rate < 0) {
      throw new Error(`the answer has a rate "${details.percentage_decimal}" that is not a percentage`);
    }
    const { jurisdiction } = entry;
    const place =
      jurisdiction.state === null ? jurisdiction.country : `${jurisdiction.country}-${jurisdiction.state}`;
    const local = jurisdiction.level !== 'country' && jurisdiction.level !== 'state';
    return [
      {
        code: `${place}${local ? `-${jurisdiction.level}` : ''}-${details.tax_type}`.slice(
          0,
          MAX_CODE_LENGTH,
        ),
        name: (jurisdiction.level === 'country'
          ? details.display_name
          : `${details.display_name} (${jurisdiction.display_name})`
        ).slice(0, MAX_NAME_LENGTH),
        rate: Number(rate.toFixed(RATE_DECIMALS)),
      },
    ];
  });
}
