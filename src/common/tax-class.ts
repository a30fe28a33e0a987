import { applyDecorators } from '@nestjs/common';
import { IsString, Matches, MaxLength } from 'class-validator';

/** What every product and shipping option has unless it says otherwise (DESIGN.md §16). */
export const DEFAULT_TAX_CLASS = 'standard';
export const TAX_CLASS_MAX_LENGTH = 32;
/** A lower-case slug: letters and digits joined by single `-` or `_` (`standard`, `reduced`, `zero-rated`). */
export const TAX_CLASS_PATTERN = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/;

/** The rules of a written `tax_class` (rules `isString`, `maxLength`, `matches`). */
export const IsTaxClass = () =>
  applyDecorators(
    IsString(),
    MaxLength(TAX_CLASS_MAX_LENGTH),
    Matches(TAX_CLASS_PATTERN, {
      message: 'tax_class must be lower-case letters and digits joined by single "-" or "_"',
    }),
  );
