import { newStemmer } from 'snowball-stemmers';
import { MATCH_TIER, type TermVariant } from './product-search.js';
import { isDictionaryWord } from './product-words.js';

/** Words this long or longer are matched with one typo; TWO_TYPOS_LENGTH or longer with two. */
export const ONE_TYPO_LENGTH = 5;
export const TWO_TYPOS_LENGTH = 9;
/** Most typo variants a term gets (the closest first): each is one more word the search's statements read. */
export const MAX_TYPO_VARIANTS = 20;
/** Most stem variants a term gets. */
export const MAX_STEM_VARIANTS = 20;

/** A word or a prefix of the dictionary, and how many edits it is from what was searched. */
interface Near {
  text: string;
  edits: number;
}

/**
 * The distinct words of the catalogue (letters only), in memory: the words a search's word may mean besides
 * itself, its typos (words within one or two edits: insertion, deletion, substitution, or two neighbours
 * swapped) and the words of the same stem. Typos are found by walking the sorted words as a trie with one row
 * of the edit distance per letter, pruned where the row passes the allowed edits: the words are never compared
 * one by one.
 */
export class WordDictionary {
  /** Sorted by UTF-16 code units, so that the words with a prefix are contiguous, the prefix itself first. */
  private words: string[] = [];
  private readonly known = new Set<string>();
  private readonly byStem = new Map<string, string[]>();
  private readonly stemmer;

  constructor(language: string) {
    this.stemmer = newStemmer(language);
  }

  get size(): number {
    return this.words.length;
  }

  /** Adds the words not known yet; true when some were new. */
  add(words: Iterable<string>): boolean {
    const fresh = [...new Set(words)].filter((word) => isDictionaryWord(word) && !this.known.has(word));
    if (fresh.length === 0) return false;
    for (const word of fresh) {
      this.known.add(word);
      const stem = this.stem(word);
      const same = this.byStem.get(stem);
      if (same === undefined) this.byStem.set(stem, [word]);
      else same.push(word);
    }
    // Merged, not sorted again: a write adds a word or two to a dictionary of many thousands.
    fresh.sort();
    const merged: string[] = [];
    let i = 0;
    for (const word of fresh) {
      while (i < this.words.length && this.words[i] < word) merged.push(this.words[i++]);
      merged.push(word);
    }
    while (i < this.words.length) merged.push(this.words[i++]);
    this.words = merged;
    return true;
  }

  stem(word: string): string {
    return this.stemmer.stem(word);
  }

  /**
   * The variants of a search's word besides itself: for a whole word, the words one typo away (from
   * ONE_TYPO_LENGTH letters) or two (from TWO_TYPOS_LENGTH), when `typos`; for the last word (`prefix`), the
   * prefixes of words one typo away from it (from ONE_TYPO_LENGTH letters). Then the words of its stem. Closest
   * first, each word once at its best tier.
   */
  variants(word: string, prefix: boolean, typos: boolean): TermVariant[] {
    if (!isDictionaryWord(word)) return [];
    const variants: TermVariant[] = [];
    const length = [...word].length;
    if (typos && length >= ONE_TYPO_LENGTH) {
      const maxEdits = !prefix && length >= TWO_TYPOS_LENGTH ? 2 : 1;
      const near = this.near(word, maxEdits, prefix)
        .filter((n) => n.edits > 0 && !(prefix && n.text.startsWith(word)))
        .sort((a, b) => a.edits - b.edits || a.text.length - b.text.length || (a.text < b.text ? -1 : 1))
        .slice(0, MAX_TYPO_VARIANTS);
      for (const n of near) {
        variants.push({
          word: n.text,
          prefix,
          tier: n.edits === 1 ? MATCH_TIER.oneTypo : MATCH_TIER.twoTypos,
        });
      }
    }
    const stems = (this.byStem.get(this.stem(word)) ?? [])
      .filter((other) => other !== word && !variants.some((v) => !v.prefix && v.word === other))
      .filter((other) => !(prefix && other.startsWith(word)))
      .sort((a, b) => a.length - b.length || (a < b ? -1 : 1))
      .slice(0, MAX_STEM_VARIANTS);
    for (const other of stems) variants.push({ word: other, prefix: false, tier: MATCH_TIER.stem });
    return variants;
  }

  /**
   * The words (or, with `prefix`, the shortest prefixes of words) within `maxEdits` of `query` by optimal string
   * alignment distance: a depth-first walk of the sorted words as a trie, one row of the distance per letter.
   */
  private near(query: string, maxEdits: number, prefix: boolean): Near[] {
    const words = this.words;
    const found: Near[] = [];
    const n = query.length;
    const firstRow = Array.from({ length: n + 1 }, (_, k) => k);
    /** The end of the run of words in [from, to) whose letter at `depth` is `letter`. */
    const runEnd = (from: number, to: number, depth: number, letter: string) => {
      let [low, high] = [from, to];
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (words[middle][depth] <= letter) low = middle + 1;
        else high = middle;
      }
      return low;
    };
    const walk = (from: number, to: number, text: string, row: number[], before: number[] | null) => {
      const depth = text.length;
      let i = from;
      while (i < to && words[i].length === depth) i++;
      while (i < to) {
        const letter = words[i][depth];
        const end = runEnd(i, to, depth, letter);
        const next = new Array<number>(n + 1);
        next[0] = depth + 1;
        let smallest = next[0];
        for (let k = 1; k <= n; k++) {
          let value = Math.min(row[k] + 1, next[k - 1] + 1, row[k - 1] + (query[k - 1] === letter ? 0 : 1));
          if (before !== null && k > 1 && query[k - 1] === text[depth - 1] && query[k - 2] === letter) {
            value = Math.min(value, before[k - 2] + 1);
          }
          next[k] = value;
          smallest = Math.min(smallest, value);
        }
        const reached = text + letter;
        if (prefix && next[n] <= maxEdits) {
          // Every word below starts with this prefix: the prefix stands for them all.
          found.push({ text: reached, edits: next[n] });
        } else {
          if (!prefix && next[n] <= maxEdits && words[i].length === depth + 1) {
            found.push({ text: reached, edits: next[n] });
          }
          if (smallest <= maxEdits) walk(i, end, reached, next, row);
        }
        i = end;
      }
    };
    walk(0, words.length, '', firstRow, null);
    return found;
  }
}
