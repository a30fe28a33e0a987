import { describe, expect, it } from '@jest/globals';
import {
  combinationKey,
  defaultTitle,
  optionsProblems,
  optionValuesProblems,
  type ProductOption,
} from './product-options.js';

const tee: ProductOption[] = [
  { name: 'Size', values: ['S', 'M'] },
  { name: 'Colour', values: ['Red', 'Blue'] },
];

describe('product options', () => {
  it('refuses option names and values repeated ignoring case, and blank ones', () => {
    expect(
      optionsProblems([
        { name: 'Size', values: ['M', 'ｍ', ' '] },
        { name: 'SIZE', values: ['x'] },
      ]).map((problem) => `${problem.field}:${problem.rule}`),
    ).toEqual(['options.0.values.1:unique', 'options.0.values.2:length', 'options.1.name:unique']);
    expect(optionsProblems(tee)).toEqual([]);
  });

  it('wants every option exactly once, by its exact name, with one of its values', () => {
    const problems = (values: Record<string, string>) =>
      optionValuesProblems(tee, values).map((problem) => `${problem.field}:${problem.rule}`);
    expect(problems({ Size: 'M', Colour: 'Red' })).toEqual([]);
    expect(problems({ size: 'M', Colour: 'red' })).toEqual([
      'options.size:knownOption',
      'options.Size:required',
      'options.Colour:isIn',
    ]);
    // A name of Object.prototype is no option.
    expect(problems({ Size: 'S', Colour: 'Blue', constructor: 'x' })).toEqual([
      'options.constructor:knownOption',
    ]);
  });

  it("identifies a combination by its values in the product's option order, whatever the order given", () => {
    expect(combinationKey(tee, { Colour: 'Red', Size: 'M' })).toBe(
      combinationKey(tee, { Size: 'M', Colour: 'Red' }),
    );
    expect(combinationKey(tee, { Size: 'M', Colour: 'Red' })).not.toBe(
      combinationKey(tee, { Size: 'M', Colour: 'Blue' }),
    );
    expect(defaultTitle(tee, { Colour: 'Red', Size: 'M' }, 'SKU-1')).toBe('M / Red');
    expect(defaultTitle([], {}, 'SKU-1')).toBe('SKU-1');
  });
});
