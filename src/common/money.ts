import { ValidateBy, buildMessage } from 'class-validator';

/** A finite number with at most `places` decimal places, read as the decimal the client wrote (1e-7 has 7). */
export function hasAtMostDecimals(value: unknown, places: number): value is number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return false;
  const scaled = value * 10 ** places;
  return Math.abs(scaled - Math.round(scaled)) < 1e-6;
}

/** A finite number with at most 2 decimal places (19.99 and 0.1 pass; 0.001 and 1e-7 do not). */
export const IsMoney = () =>
  ValidateBy({
    name: 'isMoney',
    validator: {
      validate: (value: unknown) => hasAtMostDecimals(value, 2),
      defaultMessage: buildMessage(
        (prefix) => `${prefix}$property must be a number with at most 2 decimal places`,
      ),
    },
  });

/** Exact cents from a validated price (at most 2 decimals): 19.99 -> 1999, 0.1 -> 10. */
export function toCents(price: number): number {
  return Math.round(price * 100);
}

/** A price in cents as the API's legacy `price` fields show it (the default currency's major unit): 1999 -> 19.99. */
export function fromCents(cents: number): number {
  return cents / 100;
}
