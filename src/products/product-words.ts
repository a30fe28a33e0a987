import type { EntityManager } from 'typeorm';
import { insertRows } from '../database/raw-query.js';

/**
 * The search's own index: `product_words` holds each live product's words (name, description and search_text,
 * normalized as a search's words are) with how strongly the product matches each (`weight`) and
 * `rank` = WORD_WEIGHT_MAX - weight (plus INACTIVE_RANK for an inactive product), so that the index (word, rank,
 * product_id) lists a word's products best
 * first. Written in the product write's transaction (writeProductWords); docs/benchmarks.md, "Search".
 * This module is pure (no Nest): the migration, the service and the benchmark's seeder share it.
 */

/** Longest word kept, in characters (the column is VARCHAR(64)); longer words are cut to it, in the index and in searches alike. */
export const WORD_MAX_LENGTH = 64;
/** A word's weight is capped here; `rank` is this minus the weight. */
export const WORD_WEIGHT_MAX = 100;
/** Weight of one occurrence in the name; an occurrence in the description or search_text weighs 1. */
const NAME_WEIGHT = 3;

/** The words of a text as written: runs of letters (with their combining marks), digits and `_`; all else separates them. */
export function searchWords(text: string): string[] {
  return text.match(/[\p{L}\p{M}\p{N}_]+/gu) ?? [];
}

/**
 * The words of a text as they are indexed and searched: compatibility-decomposed (NFKD), diacritics dropped,
 * lower case, split by searchWords, each cut to WORD_MAX_LENGTH characters. Every length counts (no stopwords).
 */
export function normalizedWords(text: string): string[] {
  return searchWords(fold(text)).map(cut);
}

/** Words joined by a hyphen or an apostrophe (`t-shirt`, `men's`): also indexed, and searched, as one word. */
const COMPOUND = /[\p{L}\p{M}\p{N}_]+(?:['\u2019\u2010\u2011-][\p{L}\p{M}\p{N}_]+)+/gu;

const fold = (text: string) => text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
/** A search's words: a compound, or a run of word characters. */
const QUERY_WORD = new RegExp(`${COMPOUND.source}|[\\p{L}\\p{M}\\p{N}_]+`, 'gu');

const cut = (word: string) =>
  word.length <= WORD_MAX_LENGTH ? word : [...word].slice(0, WORD_MAX_LENGTH).join('');

/** The compounds of a text (COMPOUND), normalized as normalizedWords does, their parts joined: `tshirt`. */
function compoundWords(text: string): string[] {
  return (fold(text).match(COMPOUND) ?? []).map((compound) => cut(searchWords(compound).join('')));
}

/**
 * The words of a search as they are looked up: normalizedWords, except that a compound (`t-shirt`) is one word,
 * its parts joined (`tshirt`), which products are also indexed by.
 */
export function searchQueryWords(text: string): string[] {
  const folded = fold(text);
  const words: string[] = [];
  for (const match of folded.matchAll(QUERY_WORD)) {
    words.push(cut(searchWords(match[0]).join('')));
  }
  return words;
}

/** The word a text is as one search word (searchQueryWords), or null when it is none or several. */
export function singleSearchWord(text: string): string | null {
  const words = searchQueryWords(text);
  return words.length === 1 ? words[0] : null;
}

export interface SearchableText {
  name: string;
  description: string | null;
  searchText: string | null;
  /** Whether customers see the product (`is_active`): its rows' ranks are below INACTIVE_RANK when they do. */
  active: boolean;
}

/**
 * The ranks of an inactive product's words start here (WORD_WEIGHT_MAX + WORD_WEIGHT_MAX - weight), so that a
 * customer's search keeps to `rank < INACTIVE_RANK` in the word index and counts its matches there, without
 * reading the products.
 */
export const INACTIVE_RANK = WORD_WEIGHT_MAX;

/** Each word of a product with its weight: NAME_WEIGHT per occurrence in the name, 1 per other one, capped. */
export function productWordWeights({
  name,
  description,
  searchText,
}: Omit<SearchableText, 'active'>): Map<string, number> {
  const weights = new Map<string, number>();
  const add = (text: string | null, weight: number) => {
    if (text === null) return;
    for (const word of [...normalizedWords(text), ...compoundWords(text)]) {
      weights.set(word, Math.min(WORD_WEIGHT_MAX, (weights.get(word) ?? 0) + weight));
    }
  };
  add(name, NAME_WEIGHT);
  add(description, 1);
  add(searchText, 1);
  return weights;
}

/** The rows of product_words for one product, in the column order of insertProductWords: product_id, word, weight, rank. */
export function productWordRows(
  productId: number,
  text: SearchableText,
): Array<[number, string, number, number]> {
  return [...productWordWeights(text)].map(([word, weight]) => [
    productId,
    word,
    weight,
    (text.active ? 0 : INACTIVE_RANK) + WORD_WEIGHT_MAX - weight,
  ]);
}

/** Multi-row INSERTs of product_words rows (insertRows). */
export async function insertProductWords(
  manager: EntityManager,
  rows: Array<[number, string, number, number]>,
): Promise<void> {
  await insertRows(manager, 'product_words', ['product_id', 'word', 'weight', '`rank`'], rows);
}

/**
 * Whether a word joins the search's dictionary (search_words), whose words a search's words may be typos or
 * stems of: letters only. Words with digits (sizes, model numbers, SKUs) match as written: one digit off is
 * another product, not a typo.
 */
export const isDictionaryWord = (word: string) => /^\p{L}+$/u.test(word);

let dictionaryWrites = 0;
/** How many times this process has written dictionary words: the search reads the new ones when it changes. */
export const dictionaryWriteCount = () => dictionaryWrites;

/** Adds the dictionary words among `words` to search_words (those already there are left). */
export async function insertDictionaryWords(manager: EntityManager, words: Iterable<string>): Promise<void> {
  const fresh = [...new Set(words)].filter(isDictionaryWord).sort();
  if (fresh.length === 0) return;
  await insertRows(
    manager,
    'search_words',
    ['word'],
    fresh.map((word) => [word]),
    { ignoreDuplicates: true },
  );
  dictionaryWrites++;
}

const SEARCHABLE_TEXT =
  'SELECT name, description, search_text, is_active FROM products WHERE id = ? AND deleted_at IS NULL';
const DELETE_PRODUCT_WORDS = 'DELETE FROM product_words WHERE product_id = ?';

/**
 * Writes the product's words from its row as the transaction sees it (none for a deleted product). Every product
 * write that can change name, description, search_text or is_active calls it in its transaction, after
 * `ProductListTotals.catalogChanged` (whose row every product write locks), so concurrent writes reach
 * product_words one at a time and the index is exact whatever their order.
 */
export async function writeProductWords(manager: EntityManager, productId: number): Promise<void> {
  // A locking read on MySQL/MariaDB: the row as last committed, whatever snapshot the transaction holds.
  const mysql = manager.connection.options.type === 'mysql';
  const [row]: Array<{
    name: string;
    description: string | null;
    search_text: string | null;
    is_active: number | boolean;
  }> = await manager.query(mysql ? `${SEARCHABLE_TEXT} FOR UPDATE` : SEARCHABLE_TEXT, [productId]);
  await manager.query(DELETE_PRODUCT_WORDS, [productId]);
  if (row === undefined) return;
  const rows = productWordRows(productId, {
    name: row.name,
    description: row.description,
    searchText: row.search_text,
    active: Boolean(row.is_active),
  });
  await insertProductWords(manager, rows);
  await insertDictionaryWords(
    manager,
    rows.map(([, word]) => word),
  );
}
