import { buildMessage, ValidateBy, type ValidationArguments } from 'class-validator';
import type { FieldError } from '../common/validation.js';
import { fromMinor, isAmountIn, toMinor } from './calculator.js';

/**
 * Prices per currency of products, variants and shipping options (DESIGN.md §16). The default currency's amount
 * is the row's `price_cents` (the seed `price`); the others are a JSON map in minor units, `{"eur": 1999}`.
 */
export type CurrencyAmounts = Record<string, number>;

/** One price as the API shows and takes it: a lower-case ISO 4217 code and an amount in its major units. */
export interface CurrencyPrice {
  currency_code: string;
  amount: number;
}

/** Most prices a product, variant or shipping option may have (every ISO 4217 code fits). */
export const MAX_PRICES = 200;

const CURRENCY_CODES = new Set(Intl.supportedValuesOf('currency').map((code) => code.toLowerCase()));

/** A lower-case ISO 4217 code the runtime knows (`eur`, `jpy`); `EUR` and `xyz` are not. */
export function isCurrencyCode(value: unknown): value is string {
  return typeof value === 'string' && /^[a-z]{3}$/.test(value) && CURRENCY_CODES.has(value);
}

/** The currency codes of a DTO: lower-case ISO 4217 (rule `isCurrencyCode`). */
export const IsCurrencyCode = () =>
  ValidateBy({
    name: 'isCurrencyCode',
    validator: {
      validate: isCurrencyCode,
      defaultMessage: buildMessage(
        (prefix) => `${prefix}$property must be a lower-case ISO 4217 currency code`,
      ),
    },
  });

/**
 * An amount in the major units of its object's `currency_code` (rule `isAmountIn`): whole for `jpy`, two
 * decimals for `eur`, never negative. With an unknown code the code's own rule reports it.
 */
export const IsAmountInCurrency = () =>
  ValidateBy({
    name: 'isAmountIn',
    validator: {
      validate: (value: unknown, args?: ValidationArguments) => {
        const currency = (args?.object as { currency_code?: unknown } | undefined)?.currency_code;
        if (!isCurrencyCode(currency)) return typeof value === 'number' && Number.isFinite(value);
        return isAmountIn(value, currency);
      },
      defaultMessage: buildMessage(
        (prefix) =>
          `${prefix}$property must be a non-negative amount with no more decimals than its currency has`,
      ),
    },
  });

/** The stored map (JSON text as a raw statement reads it, or the entity's object); null for none. */
export function currencyAmountsOf(
  prices: CurrencyAmounts | string | null | undefined,
): CurrencyAmounts | null {
  if (prices == null) return null;
  return typeof prices === 'string' ? (JSON.parse(prices) as CurrencyAmounts) : prices;
}

/**
 * The unit price in minor units of `currency`: `priceCents` for the default currency, else the stored map's
 * amount; null when there is no price in that currency.
 */
export function unitPriceIn(
  currency: string,
  defaultCurrency: string,
  priceCents: number,
  prices: CurrencyAmounts | string | null,
): number | null {
  if (currency === defaultCurrency) return Number(priceCents);
  const amount = currencyAmountsOf(prices)?.[currency];
  return amount === undefined || amount === null ? null : Number(amount);
}

/** The `prices` of a response: the default currency's first (the seed `price`), then the others by code. */
export function currencyPriceList(
  defaultCurrency: string,
  priceCents: number,
  prices: CurrencyAmounts | string | null,
): CurrencyPrice[] {
  const others = Object.entries(currencyAmountsOf(prices) ?? {})
    .filter(([code]) => code !== defaultCurrency)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([code, amount]) => ({ currency_code: code, amount: fromMinor(Number(amount), code) }));
  return [
    { currency_code: defaultCurrency, amount: fromMinor(Number(priceCents), defaultCurrency) },
    ...others,
  ];
}

/** What a write's `prices` sets: the default currency's amount (when listed) and the map of the others. */
export interface PricesWrite {
  /** Minor units of the default currency, when `prices` lists it. */
  defaultAmount: number | undefined;
  /** The other currencies (null when there are none). */
  others: CurrencyAmounts | null;
}

/**
 * The `prices` of a create or update (each entry already passed the DTO's rules): 400 for a currency listed
 * twice (`prices.N.currency_code` rule `unique`), for a default-currency amount that is not `price` when both
 * are sent (`prices` rule `matchesPrice`), and for one out of `range` in the default currency (`prices.N.amount`
 * `min`/`max`, as `price`).
 */
export function pricesWrite(
  entries: CurrencyPrice[],
  defaultCurrency: string,
  priceCents: number | undefined,
  range: { minCents: number; maxCents: number },
): { write: PricesWrite; problems: FieldError[] } {
  const problems: FieldError[] = [];
  const seen = new Set<string>();
  const others: CurrencyAmounts = {};
  let defaultAmount: number | undefined;
  entries.forEach(({ currency_code: code, amount }, index) => {
    if (seen.has(code)) {
      problems.push({
        field: `prices.${index}.currency_code`,
        rule: 'unique',
        message: `prices.${index}.currency_code ${code} is listed twice`,
      });
      return;
    }
    seen.add(code);
    const minor = toMinor(amount, code);
    if (code !== defaultCurrency) {
      others[code] = minor;
      return;
    }
    defaultAmount = minor;
    if (minor < range.minCents || minor > range.maxCents) {
      const [rule, bound] = minor < range.minCents ? ['min', range.minCents] : ['max', range.maxCents];
      problems.push({
        field: `prices.${index}.amount`,
        rule,
        message: `prices.${index}.amount in ${code} must be ${rule === 'min' ? 'at least' : 'at most'} ${fromMinor(bound, code)}`,
      });
    }
  });
  if (priceCents !== undefined && defaultAmount !== undefined && priceCents !== defaultAmount) {
    problems.push({
      field: 'prices',
      rule: 'matchesPrice',
      message: `prices must give ${defaultCurrency} the amount of price, or leave ${defaultCurrency} out`,
    });
  }
  return {
    write: { defaultAmount, others: Object.keys(others).length === 0 ? null : others },
    problems,
  };
}

/** The price a catalogue read for a region gives (`calculated_price`), in the region's currency's major units. */
export interface CalculatedPrice {
  amount: number;
  original_amount: number;
  currency_code: string;
  price_list_id: number | null;
  includes_tax: boolean;
}

/**
 * The own price of something priced by `prices` (a response's list) in a region, in the region's currency
 * (`amount` is `original_amount`: the catalogue applies the price lists to it); null when it has none there.
 */
export function calculatedPrice(
  prices: readonly CurrencyPrice[],
  region: { currencyCode: string; pricesIncludeTax: boolean },
): CalculatedPrice | null {
  const price = prices.find((entry) => entry.currency_code === region.currencyCode);
  if (price === undefined) return null;
  return {
    amount: price.amount,
    original_amount: price.amount,
    currency_code: region.currencyCode,
    price_list_id: null,
    includes_tax: region.pricesIncludeTax,
  };
}
