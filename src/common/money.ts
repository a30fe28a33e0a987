import { ValidateBy, buildMessage } from 'class-validator';

/** A finite number with at most 2 decimal places (19.99 and 0.1 pass; 0.001 and 1e-7 do not). */
export const IsMoney = () =>
  ValidateBy({
    name: 'isMoney',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'number' &&
        Number.isFinite(value) &&
        Math.abs(value * 100 - Math.round(value * 100)) < 1e-6,
      defaultMessage: buildMessage(
        (prefix) => `${prefix}$property must be a number with at most 2 decimal places`,
      ),
    },
  });

/** Exact cents from a validated price (at most 2 decimals): 19.99 -> 1999, 0.1 -> 10. */
export function toCents(price: number): number {
  return Math.round(price * 100);
}
