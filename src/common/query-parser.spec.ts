import { describe, expect, it } from '@jest/globals';
import { parseQuery } from './query-parser.js';

describe('parseQuery', () => {
  it('gathers option[Name] pairs into an object, a repeated name into an array', () => {
    const query = parseQuery('option%5BSize%5D=M&option[Size]=L&option[Color]=Red&page=2');
    expect(query).toEqual({ option: { Size: ['M', 'L'], Color: 'Red' }, page: '2' });
    expect(Object.getPrototypeOf(query.option)).toBeNull();
  });

  it('keeps every other key as node:querystring parses it', () => {
    expect(parseQuery('search=a%5Bb%5D&ids=1,2&page[x]=1&option[a][b]=1&x=1&x=2')).toEqual({
      search: 'a[b]',
      ids: '1,2',
      'page[x]': '1',
      'option[a][b]': '1',
      x: ['1', '2'],
    });
  });

  it('leaves the pairs alone when the field is also sent plain', () => {
    expect(parseQuery('option=M&option[Size]=L')).toEqual({ option: 'M', 'option[Size]': 'L' });
  });

  it('keeps a name such as __proto__ as an own key, never a prototype', () => {
    const query = parseQuery('option[__proto__]=x&option[constructor]=y');
    const option = query.option as Record<string, unknown>;
    expect(Object.keys(option)).toEqual(['__proto__', 'constructor']);
    expect(Object.getPrototypeOf(option)).toBeNull();
  });
});
