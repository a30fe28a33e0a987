import type { EntityManager } from 'typeorm';
import { codePointLength, fieldError } from '../common/validation.js';
import { insertRows } from '../database/raw-query.js';
import type { ProductOption } from './product-options.js';

/**
 * The option values' own index: `product_option_values` holds one row per live product, option name and value
 * (`name` as the product spells it, `value_key` the value folded as below, `value` as the product spells it), so
 * that the list's `option[Name]=value` filter and the options facet read the index (name, value_key, product_id)
 * instead of every product's options. Written in the transaction of every change of a product's options
 * (`writeProductOptionValues`), emptied when the product is deleted. Pure (no Nest): the migration's backfill
 * and the service share it.
 */

/** Longest folded value kept, in characters (the column is VARCHAR(255)): a filter's value is cut the same way. */
const VALUE_KEY_MAX_LENGTH = 255;

/**
 * How option values are compared: NFKC, then lower case, as optionsProblems tells a product's values apart; so
 * `option[Color]=red` finds "Red" and "ＲＥＤ". Option names are compared exactly as stored.
 */
export function optionValueKey(value: string): string {
  const key = value.normalize('NFKC').toLowerCase();
  return key.length <= VALUE_KEY_MAX_LENGTH ? key : [...key].slice(0, VALUE_KEY_MAX_LENGTH).join('');
}

/** The rows of product_option_values for one product: product_id, name, value_key, value (a key once). */
export function optionValueRows(
  productId: number,
  options: ProductOption[],
): Array<[number, string, string, string]> {
  const rows = new Map<string, [number, string, string, string]>();
  for (const { name, values } of options) {
    for (const value of values) {
      const key = optionValueKey(value);
      const id = JSON.stringify([name, key]);
      if (!rows.has(id)) rows.set(id, [productId, name, key, value]);
    }
  }
  return [...rows.values()];
}

export async function insertOptionValues(
  manager: EntityManager,
  rows: Array<[number, string, string, string]>,
): Promise<void> {
  await insertRows(manager, 'product_option_values', ['product_id', 'name', 'value_key', 'value'], rows);
}

export const DELETE_OPTION_VALUES = 'DELETE FROM product_option_values WHERE product_id = ?';

/**
 * Replaces a product's rows with those of its new options, in the transaction that writes them (the product's
 * row is locked or inserted by then: one product's writes reach its rows one at a time).
 */
export async function writeProductOptionValues(
  manager: EntityManager,
  productId: number,
  options: ProductOption[],
): Promise<void> {
  await manager.query(DELETE_OPTION_VALUES, [productId]);
  await insertOptionValues(manager, optionValueRows(productId, options));
}

/** Most options one list may filter by, and values per option. */
export const MAX_FILTER_OPTIONS = 10;
export const MAX_FILTER_VALUES = 20;
/** Option names and values are at most this long (ProductOptionDto, optionsProblems). */
const OPTION_TEXT_MAX_LENGTH = 50;

/** One option of a list's filter: its exact name and the folded values of which a product needs one. */
export interface OptionFilter {
  name: string;
  keys: string[];
}

/**
 * The list's `option` query field (`option[Size]=M&option[Size]=L&option[Color]=red`, parsed by parseQuery into
 * `{Size: ['M', 'L'], Color: 'red'}`) as filters, by name, each value once; undefined when absent. A bad shape
 * is a 400 naming `option[Name]` (or `option`) and the rule.
 */
export function optionFilters(option: Record<string, unknown> | undefined): OptionFilter[] | undefined {
  if (option === undefined) return undefined;
  const names = Object.keys(option).sort();
  if (names.length === 0) {
    throw fieldError('option', 'isObject', 'option must be given as option[Name]=value');
  }
  if (names.length > MAX_FILTER_OPTIONS) {
    throw fieldError('option', 'maxOptions', `option must name at most ${MAX_FILTER_OPTIONS} options`);
  }
  return names.map((name) => {
    const field = `option[${name}]`;
    if (name.trim() === '' || codePointLength(name) > OPTION_TEXT_MAX_LENGTH) {
      throw fieldError(
        field,
        'optionName',
        `${field} must name an option: 1 to ${OPTION_TEXT_MAX_LENGTH} characters, not blank`,
      );
    }
    const given = option[name];
    const values = Array.isArray(given) ? (given as unknown[]) : [given];
    if (values.length > MAX_FILTER_VALUES) {
      throw fieldError(field, 'maxValues', `${field} must have at most ${MAX_FILTER_VALUES} values`);
    }
    for (const value of values) {
      if (
        typeof value !== 'string' ||
        value.trim() === '' ||
        codePointLength(value) > OPTION_TEXT_MAX_LENGTH
      ) {
        throw fieldError(
          field,
          'optionValue',
          `${field} values must be 1 to ${OPTION_TEXT_MAX_LENGTH} characters, not blank`,
        );
      }
    }
    const keys = [...new Set((values as string[]).map(optionValueKey))].sort();
    return { name, keys };
  });
}
