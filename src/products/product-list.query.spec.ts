import { describe, expect, it } from '@jest/globals';
import { searchWords } from './product-list.query.js';

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
