import { createHash } from 'node:crypto';
import { codePointLength, type FieldError } from '../common/validation.js';
import type { ProductOptionDto } from './dto/product.dto.js';

export type ProductOption = ProductOptionDto;
export type OptionValues = Record<string, string>;

const fold = (text: string) => text.normalize('NFKC').toLowerCase();

/**
 * The rules of a product's options the DTO cannot state: names and values not blank, at most 50 characters,
 * names unique ignoring case, and each option's values unique ignoring case.
 */
export function optionsProblems(options: ProductOption[]): FieldError[] {
  const problems: FieldError[] = [];
  const names = new Set<string>();
  options.forEach((option, i) => {
    if (option.name.trim() === '') {
      problems.push({
        field: `options.${i}.name`,
        rule: 'notBlank',
        message: `options.${i}.name must not be blank`,
      });
    } else if (names.has(fold(option.name))) {
      problems.push({
        field: `options.${i}.name`,
        rule: 'unique',
        message: `options.${i}.name repeats the option "${option.name}"`,
      });
    }
    names.add(fold(option.name));
    const values = new Set<string>();
    option.values.forEach((value, j) => {
      const field = `options.${i}.values.${j}`;
      if (value.trim() === '' || codePointLength(value) > 50) {
        problems.push({ field, rule: 'length', message: `${field} must be 1 to 50 characters, not blank` });
      } else if (values.has(fold(value))) {
        problems.push({ field, rule: 'unique', message: `${field} repeats the value "${value}"` });
      }
      values.add(fold(value));
    });
  });
  return problems;
}

/**
 * Checks a variant's option values against its product's options: every option exactly once (by its exact
 * name), each value one of that option's values. Gives the problems, each naming `options` or `options.<name>`.
 */
export function optionValuesProblems(options: ProductOption[], values: OptionValues): FieldError[] {
  const problems: FieldError[] = [];
  for (const name of Object.keys(values)) {
    if (!options.some((option) => option.name === name)) {
      problems.push({
        field: `options.${name}`,
        rule: 'knownOption',
        message: `options.${name}: the product has no option "${name}"`,
      });
    }
  }
  for (const option of options) {
    const value = Object.hasOwn(values, option.name) ? values[option.name] : undefined;
    const field = `options.${option.name}`;
    if (value === undefined) {
      problems.push({
        field,
        rule: 'required',
        message: `${field} is required (one of the product's options)`,
      });
    } else if (typeof value !== 'string' || !option.values.includes(value)) {
      problems.push({
        field,
        rule: 'isIn',
        message: `${field} must be one of: ${option.values.join(', ')}`,
      });
    }
  }
  return problems;
}

/** The values in the product's option order: the default title's parts and the combination's identity. */
export function orderedValues(options: ProductOption[], values: OptionValues): string[] {
  return options.map((option) => values[option.name]);
}

/** What makes two live variants of a product the same combination (compared in the unique index). */
export function combinationKey(options: ProductOption[], values: OptionValues): string {
  return createHash('sha256')
    .update(JSON.stringify(orderedValues(options, values)))
    .digest('hex');
}

/** The default title of a variant: its option values joined by " / ", or its SKU when the product has none. */
export function defaultTitle(options: ProductOption[], values: OptionValues, sku: string): string {
  return options.length === 0 ? sku : orderedValues(options, values).join(' / ');
}
