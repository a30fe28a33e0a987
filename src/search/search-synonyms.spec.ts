import { describe, expect, it } from '@jest/globals';
import { synonymTable } from './search-synonyms.js';

const synonymsOf = (table: Map<string, string[]>, word: string) => table.get(word) ?? [];

describe('synonymsOf rules (synonymTable)', () => {
  it('two-way: each word of an entry finds every other word of it, normalized, never itself', () => {
    const table = synonymTable([{ words: ['T-Shirt', 'Tee', 'top'], oneWayFrom: null }]);
    expect(synonymsOf(table, 'tshirt')).toEqual(['tee', 'top']);
    expect(synonymsOf(table, 'tee')).toEqual(['tshirt', 'top']);
    expect(synonymsOf(table, 'top')).toEqual(['tshirt', 'tee']);
    expect(synonymsOf(table, 't-shirt')).toEqual([]); // looked up by the search's word, not the written one
    expect(synonymsOf(table, 'shirt')).toEqual([]);
  });

  it('one-way: only a search for one_way_from finds the others; they find neither it nor each other', () => {
    const table = synonymTable([{ words: ['jumper', 'Sweater', 'pullover'], oneWayFrom: 'SWEATER' }]);
    expect(synonymsOf(table, 'sweater')).toEqual(['jumper', 'pullover']);
    expect(synonymsOf(table, 'jumper')).toEqual([]);
    expect(synonymsOf(table, 'pullover')).toEqual([]);
    expect([...table.keys()]).toEqual(['sweater']);
  });

  it('a word in several entries gets the union, each word once, in entry order', () => {
    const table = synonymTable([
      { words: ['couch', 'sofa'], oneWayFrom: null },
      { words: ['sofa', 'settee', 'couch'], oneWayFrom: null },
      { words: ['sofa', 'divan'], oneWayFrom: 'sofa' },
      { words: ['futon', 'sofa'], oneWayFrom: 'futon' },
    ]);
    expect(synonymsOf(table, 'sofa')).toEqual(['couch', 'settee', 'divan']);
    expect(synonymsOf(table, 'couch')).toEqual(['sofa', 'settee']);
    expect(synonymsOf(table, 'settee')).toEqual(['sofa', 'couch']);
    expect(synonymsOf(table, 'divan')).toEqual([]);
    expect(synonymsOf(table, 'futon')).toEqual(['sofa']);
  });

  it('no entries, no synonyms; an entry whose one_way_from is none of its words gives nothing', () => {
    expect(synonymTable([]).size).toBe(0);
    expect(synonymTable([{ words: ['a', 'b'], oneWayFrom: 'c' }]).size).toBe(0);
  });
});
