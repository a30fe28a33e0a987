import type { EntityManager } from 'typeorm';
import type { TaxRate, TaxTarget } from '../pricing/calculator.js';

/** Where a document ships to: the address's country and its subdivision ("CA" of US-CA), when known. */
export interface TaxAddress {
  country: string;
  subdivision: string | null;
  postalCode?: string;
  city?: string;
  line1?: string;
}

/** What a provider is asked: every taxable amount of a document, after its discounts, in minor units. */
export interface TaxQuery {
  currency: string;
  pricesIncludeTax: boolean;
  address: TaxAddress;
  lines: ReadonlyArray<{ id: number | string; taxClass: string; amount: number; quantity: number }>;
  shipping: { taxClass: string; amount: number } | null;
}

/** A provider's answer: the rates of each line and of the shipping; the calculator computes the amounts. */
export interface TaxQuote {
  ratesOf(target: TaxTarget): readonly TaxRate[];
  /** The provider's own record of the calculation (Stripe Tax's), kept on the order; null for the rate table. */
  calculationId: string | null;
}

/** A provider that could not answer: checkout is refused with its name, and nothing is placed. */
export class TaxProviderError extends Error {
  constructor(
    readonly provider: string,
    reason: string,
  ) {
    super(`The tax provider ${provider} could not calculate the taxes: ${reason}`);
  }
}

/**
 * The port of tax calculation (TAX_PROVIDER): `rates`, the table of /tax-rates, or `stripe`, Stripe Tax.
 * Methods throw TaxProviderError when the provider fails or times out.
 */
export abstract class TaxProvider {
  abstract readonly name: string;

  abstract quote(manager: EntityManager, query: TaxQuery): Promise<TaxQuote>;

  /** Records a paid order's taxes with the provider (Stripe Tax's transaction); the id it gives, or null. */
  abstract recordPaid(calculationId: string, reference: string): Promise<string | null>;
}
