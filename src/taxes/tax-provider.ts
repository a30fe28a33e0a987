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

/**
 * The tax address of a structured shipping address: its country, and its subdivision from the `region` field
 * when that holds an ISO 3166-2 code or its second part ("US-CA" or "CA"); null when it holds a name.
 */
export function taxAddressOf(address: {
  country: string;
  region?: string;
  postal_code?: string;
  city?: string;
  line1?: string;
}): TaxAddress {
  const region = (address.region ?? '').trim().toUpperCase();
  const code = /^(?:[A-Z]{2}-)?([A-Z0-9]{1,3})$/.exec(region);
  return {
    country: address.country,
    subdivision: code === null ? null : code[1],
    postalCode: address.postal_code,
    city: address.city,
    line1: address.line1,
  };
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
