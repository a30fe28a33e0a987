import { describe, expect, it } from '@jest/globals';
import { searchWordsProblem } from './product-list.query.js';
import { searchWords } from './product-words.js';

describe('searchWords', () => {
  it('keeps runs of letters, digits and _, whatever the script', () => {
    expect(searchWords('Desk lamp 55')).toEqual(['Desk', 'lamp', '55']);
    expect(searchWords('café Ünïcode 水')).toEqual(['café', 'Ünïcode', '水']);
    expect(searchWords('a_b')).toEqual(['a_b']);
  });

  it('drops every operator and wildcard character of the engines and of LIKE', () => {
    expect(searchWords('+lamp -floor "shade" (desk) ~tv <a >b @3 lamp* 100% x\\y')).toEqual([
      'lamp',
      'floor',
      'shade',
      'desk',
      'tv',
      'a',
      'b',
      '3',
      'lamp',
      '100',
      'x',
      'y',
    ]);
    expect(searchWords('+-*"()~<>@%')).toEqual([]);
  });
});

describe('searchWordsProblem', () => {
  it('allows 8 words of which 3 shorter than 3 characters', () => {
    expect(searchWordsProblem(searchWords('tv up to lamp desk oak shelf stand'))).toBeNull();
    expect(searchWordsProblem(searchWords('水 é 55'))).toBeNull();
  });

  it('refuses a 9th word, then a 4th short word, counting characters, not punctuation', () => {
    expect(searchWordsProblem(searchWords('a b c d e f g h i'))?.rule).toBe('maxWords');
    expect(searchWordsProblem(searchWords('+tv +up +to +55'))?.rule).toBe('maxShortWords');
    expect(searchWordsProblem(searchWords('水水 éé 55 lamp'))).toBeNull();
    expect(searchWordsProblem(searchWords('水 é 5 x'))?.rule).toBe('maxShortWords');
  });
});
