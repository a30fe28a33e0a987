import { describe, expect, it } from '@jest/globals';
import { searchPlan, searchTerms, termPostings } from './product-search.js';

const RANK_LIMIT = 500;
const plan = (counts: number[], relevance = true, fewProducts = false) =>
  searchPlan(counts, RANK_LIMIT, { relevance, fewProducts });

describe('searchPlan', () => {
  it('ranks when some term has at most the rank limit of postings', () => {
    expect(plan([500])).toBe('ranked');
    expect(plan([5001, 12])).toBe('ranked');
  });

  it('merges several common terms while none is past twenty times the rank limit, in any order', () => {
    expect(plan([501, 10_000])).toBe('merged');
    expect(plan([3999, 7337], false)).toBe('merged');
    expect(plan([501, 10_001])).toBe('postings');
    expect(plan([501, 10_001], false)).toBe('products');
  });

  it('never merges one word: it has nothing to intersect', () => {
    expect(plan([501])).toBe('postings');
    expect(plan([501], false)).toBe('products');
  });

  it('walks the products for a filter by ids or slug', () => {
    expect(plan([501, 600], true, true)).toBe('products');
  });
});

describe('termPostings', () => {
  it('counts every term of several again up to twenty times the rank limit when all are common', async () => {
    const asked: Array<[string, number]> = [];
    const counts = await termPostings(searchTerms(['moga', 'lik']), RANK_LIMIT, async (term, cap) => {
      asked.push([term.word, cap]);
      return Math.min(cap, term.word === 'moga' ? 40_000 : 1_200);
    });
    expect(counts).toEqual([10_001, 1200]);
    expect(asked).toEqual([
      ['moga', 501],
      ['lik', 501],
      ['moga', 10_001],
      ['lik', 10_001],
    ]);
  });

  it('stops at the rank limit when a term is rare', async () => {
    const counts = await termPostings(searchTerms(['moga', 'lik']), RANK_LIMIT, async (term, cap) =>
      Math.min(cap, term.word === 'moga' ? 40_000 : 12),
    );
    expect(counts).toEqual([501, 12]);
  });
});
