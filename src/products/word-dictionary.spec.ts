import { describe, expect, it } from '@jest/globals';
import { MATCH_TIER } from './product-search.js';
import { productWordWeights, searchQueryWords } from './product-words.js';
import { WordDictionary } from './word-dictionary.js';

const dictionary = (language: string, words: string[]) => {
  const d = new WordDictionary(language);
  d.add(words);
  return d;
};
const typos = (d: WordDictionary, word: string, prefix = false) =>
  d
    .variants(word, prefix, true)
    .filter((v) => v.tier !== MATCH_TIER.stem)
    .map((v) => [v.word, v.tier]);

describe('WordDictionary typos', () => {
  const words = [
    'lamp',
    'lamps',
    'lampe',
    'desk',
    'organic',
    'cotton',
    'shade',
    'lampshade',
    'wardrobes',
    'wardrobe',
  ];
  const d = dictionary('english', words);

  it('finds a word one insertion, deletion, substitution or swap away from five letters', () => {
    expect(typos(d, 'cottn')).toEqual([['cotton', MATCH_TIER.oneTypo]]); // insertion of the missing letter
    expect(typos(d, 'cotxon')).toEqual([['cotton', MATCH_TIER.oneTypo]]); // substitution
    expect(typos(d, 'cottoon')).toEqual([['cotton', MATCH_TIER.oneTypo]]); // insertion
    expect(typos(d, 'ctoton')).toEqual([['cotton', MATCH_TIER.oneTypo]]); // swap
    expect(typos(d, 'orgnic')).toEqual([['organic', MATCH_TIER.oneTypo]]); // deletion
  });

  it('allows no typo below five letters and two from nine', () => {
    expect(typos(d, 'lmap')).toEqual([]);
    expect(typos(d, 'wradrboes')).toEqual([['wardrobes', MATCH_TIER.twoTypos]]);
    expect(typos(d, 'wradrboe')).toEqual([]); // eight letters, two typos from `wardrobe`: too many
  });

  it('gives the prefixes of words one typo from the last word, not those the word itself begins', () => {
    expect(typos(d, 'lampshd', true)).toEqual([['lampsh', MATCH_TIER.oneTypo]]);
    // `wardro` (one deletion) begins every word `wardrob` (one swap) would: the shorter prefix stands for both.
    expect(typos(d, 'wardrbo', true)).toEqual([['wardro', MATCH_TIER.oneTypo]]);
  });

  it('leaves words with digits alone', () => {
    const withDigits = dictionary('english', ['model', 'mode1']);
    expect(withDigits.size).toBe(1);
    expect(typos(withDigits, 'mode2')).toEqual([]);
  });
});

describe('WordDictionary stems', () => {
  it('matches plurals in English and German', () => {
    const english = dictionary('english', ['lamp', 'lamps', 'lamb']);
    expect(english.variants('lamps', false, false)).toEqual([
      { word: 'lamp', prefix: false, tier: MATCH_TIER.stem },
    ]);
    const german = dictionary('german', ['lampe', 'lampen', 'tisch']);
    expect(german.variants('lampen', false, false)).toEqual([
      { word: 'lampe', prefix: false, tier: MATCH_TIER.stem },
    ]);
  });
});

describe('compound words', () => {
  it('indexes a hyphenated word by its parts and joined, and searches it joined', () => {
    expect([
      ...productWordWeights({ name: "Men's T-Shirt", description: null, searchText: null }).keys(),
    ]).toEqual(['men', 's', 't', 'shirt', 'mens', 'tshirt']);
    expect(searchQueryWords("men's t-shirt blue")).toEqual(['mens', 'tshirt', 'blue']);
  });
});

describe('WordDictionary.add', () => {
  it('keeps the words sorted as they come in batches, each once', () => {
    const d = new WordDictionary('english');
    expect(d.add(['table', 'chair'])).toBe(true);
    expect(d.add(['chair', 'bench', 'tablet', 'zebra'])).toBe(true);
    expect(d.add(['bench'])).toBe(false);
    expect(d.size).toBe(5);
    // Every word is reachable by the trie walk, which needs them sorted: each one typo away is found.
    for (const word of ['tablx', 'chaxr', 'bencx', 'tablxt', 'zebrx']) {
      expect(d.variants(word, false, true).length).toBeGreaterThan(0);
    }
  });
});
