import { applyDecorators } from '@nestjs/common';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  ValidateBy,
  buildMessage,
  isISO31661Alpha2,
} from 'class-validator';

/**
 * An officially assigned ISO 3166-1 alpha-2 code in upper case (`DE`, `US`), from validator.js's list; `de`,
 * `XX` and user-assigned codes such as `XK` are refused (rule `isCountryCode`).
 */
export const IsCountryCode = (options: { each?: boolean } = {}) =>
  ValidateBy(
    {
      name: 'isCountryCode',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' && /^[A-Z]{2}$/.test(value) && isISO31661Alpha2(value),
        defaultMessage: buildMessage(
          (prefix) =>
            `${prefix}$property must be an ISO 3166-1 alpha-2 country code in upper case` +
            (options.each === true ? ' in each element' : ''),
        ),
      },
    },
    options,
  );

/** A list of country codes (rule `isCountryCode` for each), no repeats (`arrayUnique`), at most the 249 there are. */
export const IsCountryList = () =>
  applyDecorators(IsArray(), ArrayMaxSize(249), ArrayUnique(), IsCountryCode({ each: true }));
