import { describe, expect, it } from '@jest/globals';
import { normalizedWords, searchQueryWords, singleSearchWord } from './product-words.js';

describe("singleSearchWord (a synonym's word)", () => {
  it('normalizes one word as a search does: case, accents and compatibility forms ignored', () => {
    expect(singleSearchWord('Café')).toBe('cafe');
    expect(singleSearchWord('ＴＥＥ')).toBe('tee');
    expect(singleSearchWord('a_b')).toBe('a_b');
    expect(singleSearchWord('4k')).toBe('4k');
    for (const text of ['Café', 'Crème', 'ÄRMEL', 'ﬁlm'])
      expect([singleSearchWord(text)]).toEqual(normalizedWords(text));
  });

  it('joins the parts across hyphens and apostrophes between letters or digits', () => {
    expect(singleSearchWord('t-shirt')).toBe('tshirt');
    expect(singleSearchWord('T-Shirt')).toBe('tshirt');
    expect(singleSearchWord("men's")).toBe('mens');
    expect(singleSearchWord('men’s')).toBe('mens');
    expect(singleSearchWord('t\u2011shirt')).toBe('tshirt'); // non-breaking hyphen
    expect(singleSearchWord('t\u2010shirt')).toBe('tshirt');
    expect(singleSearchWord('t－shirt')).toBe('tshirt'); // full-width hyphen-minus
    expect(singleSearchWord('é-é')).toBe('ee'); // letters with their accents around the hyphen
    expect(singleSearchWord('e\u0301-e\u0301')).toBe('ee');
    expect(singleSearchWord('jack-in-the-box')).toBe('jackinthebox');
    expect(singleSearchWord('covid-19')).toBe('covid19');
    expect(singleSearchWord('x-1')).toBe('x1');
  });

  it('is null for anything but one word: other separators, a joiner not between two word characters, none', () => {
    for (const text of ['t shirt', 't/shirt', 't.shirt', 't--shirt', '!!!', '-', '', ' ']) {
      expect({ text, word: singleSearchWord(text) }).toEqual({ text, word: null });
    }
  });

  it('keeps a word with separators around it: they separate nothing', () => {
    expect(singleSearchWord(' tee ')).toBe('tee');
    expect(singleSearchWord('-shirt-')).toBe('shirt');
    expect(singleSearchWord("'tis")).toBe('tis');
  });

  it('cuts a long joined word to 64 characters as the search cuts its words', () => {
    expect(singleSearchWord(`${'a'.repeat(40)}-${'b'.repeat(40)}`)).toBe('a'.repeat(40) + 'b'.repeat(24));
  });
});

describe('searchQueryWords', () => {
  it('reads a search with its compounds joined and its other words apart', () => {
    expect(searchQueryWords("Men's T-Shirt, size-M / 2-pack")).toEqual(['mens', 'tshirt', 'sizem', '2pack']);
  });
});
