import { Transform } from 'class-transformer';

/**
 * Converts a query or path string of decimal digits (optionally signed) to a number; anything else
 * (`0x10`, `1e3`, ` 5`, `abc`) stays a string so that `@IsInt()` refuses it with the field's name.
 */
export const ToInteger = () =>
  Transform(({ value }) => (typeof value === 'string' && /^-?\d{1,16}$/.test(value) ? Number(value) : value));

/** `true`/`false` (also `1`/`0`) from a query string; other values stay strings and fail `@IsBoolean()`. */
export const ToBoolean = () =>
  Transform(({ value }) => {
    if (value === 'true' || value === '1') return true;
    if (value === 'false' || value === '0') return false;
    return value;
  });
