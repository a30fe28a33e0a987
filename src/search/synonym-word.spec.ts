import { describe, expect, it } from '@jest/globals';
import { normalizedWords } from '../products/product-words.js';
import { joinCompounds, synonymWord } from './synonym-word.js';

describe('synonymWord', () => {
  it('normalizes one word as a search does: case, accents and compatibility forms ignored', () => {
    expect(synonymWord('Café')).toBe('cafe');
    expect(synonymWord('ＴＥＥ')).toBe('tee');
    expect(synonymWord('a_b')).toBe('a_b');
    expect(synonymWord('4k')).toBe('4k');
    for (const text of ['Café', 'Crème', 'ÄRMEL', 'ﬁlm'])
      expect([synonymWord(text)]).toEqual(normalizedWords(text));
  });

  it('joins the parts across hyphens and apostrophes between letters', () => {
    expect(synonymWord('t-shirt')).toBe('tshirt');
    expect(synonymWord('T-Shirt')).toBe('tshirt');
    expect(synonymWord("men's")).toBe('mens');
    expect(synonymWord('men’s')).toBe('mens');
    expect(synonymWord('t\u2011shirt')).toBe('tshirt'); // non-breaking hyphen
    expect(synonymWord('t\u2010shirt')).toBe('tshirt');
    expect(synonymWord('t－shirt')).toBe('tshirt'); // full-width hyphen-minus
    expect(synonymWord('é-é')).toBe('ee'); // letters with their accents around the hyphen
    expect(synonymWord('e\u0301-e\u0301')).toBe('ee');
    expect(synonymWord('jack-in-the-box')).toBe('jackinthebox');
  });

  it('is null for anything but one word: other separators, a joiner not between letters, no word at all', () => {
    for (const text of [
      't shirt',
      't/shirt',
      't.shirt',
      't--shirt',
      'covid-19',
      'x-1',
      '!!!',
      '-',
      '',
      ' ',
    ]) {
      expect({ text, word: synonymWord(text) }).toEqual({ text, word: null });
    }
  });

  it('keeps a word with separators around it: they separate nothing', () => {
    expect(synonymWord(' tee ')).toBe('tee');
    expect(synonymWord('-shirt-')).toBe('shirt');
    expect(synonymWord("'tis")).toBe('tis');
  });

  it('cuts a long joined word to 64 characters as the search cuts its words', () => {
    expect(synonymWord(`${'a'.repeat(40)}-${'b'.repeat(40)}`)).toBe('a'.repeat(40) + 'b'.repeat(24));
  });
});

describe('joinCompounds', () => {
  it('leaves a text to normalizedWords with its compounds joined and its other words apart', () => {
    expect(normalizedWords(joinCompounds("Men's T-Shirt, size-M / 2-pack"))).toEqual([
      'mens',
      'tshirt',
      'sizem',
      '2',
      'pack',
    ]);
  });
});
