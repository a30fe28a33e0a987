import { normalizedWords } from '../products/product-words.js';

/**
 * Hyphens (`-`, U+2010) and apostrophes (`'`, U+2019) between two letters, in NFKD text (a letter may carry its
 * combining marks; full-width and non-breaking forms have become these).
 */
const JOINER = /(?<=\p{L}\p{M}*)[-\u2010'\u2019](?=\p{L})/gu;

/**
 * The text (NFKD) with every hyphen or apostrophe between two letters taken out, so that `normalizedWords` of the
 * result reads `t-shirt` as `tshirt` and `men's` as `mens`; every other separator stays one. Pure: shared by the
 * synonyms and the product search's index of joined words.
 */
export function joinCompounds(text: string): string {
  return text.normalize('NFKD').replace(JOINER, '');
}

/**
 * The one search word a synonym's written word stands for: normalized as a search's words are (normalizedWords:
 * NFKD, no diacritics, lower case, cut to 64 characters), its parts joined across hyphens and apostrophes between
 * letters (`T-Shirt` → `tshirt`, `Men’s` → `mens`). Null when the text is not exactly one word: nothing but
 * separators, or words split by anything else (`t shirt`, `t/shirt`, `covid-19`).
 */
export function synonymWord(text: string): string | null {
  const words = normalizedWords(joinCompounds(text));
  return words.length === 1 ? words[0] : null;
}
