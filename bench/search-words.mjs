// What the search scenario's words match in the seeded catalogue, computed from the seeding's own generator
// (no database needed): for a word w, the products with a word that starts with w (the service's search
// takes the last word as a prefix), over the whole vocabulary, its ten commonest words and the prefixes.
//   node bench/search-words.mjs [products]      (100 000 by default)
import { COMMON_WORDS, PRODUCT_SEED, SEARCH_WORDS, productText, prng } from './lib/seed.mjs';

const products = Number(process.argv[2] ?? 100_000);
const random = prng(PRODUCT_SEED);
const vocabularyIndex = new Map(SEARCH_WORDS.map((word, i) => [word, i]));
// Every prefix of 3 letters or more of a vocabulary word, and the vocabulary words it starts.
const startsOf = new Map();
for (const [i, word] of SEARCH_WORDS.entries()) {
  for (let length = 3; length <= word.length; length++) {
    const prefix = word.slice(0, length);
    if (!startsOf.has(prefix)) startsOf.set(prefix, []);
    startsOf.get(prefix).push(i);
  }
}
const prefixes = [...startsOf.keys()];
const prefixIndex = new Map(prefixes.map((prefix, i) => [prefix, i]));
const matches = new Int32Array(prefixes.length);
const lastSeen = new Int32Array(prefixes.length).fill(-1);
const wordsOf = (text) => text.toLowerCase().match(/[a-z]+/g) ?? [];
for (let id = 1; id <= products; id++) {
  const { name, description } = productText(random, id);
  for (const word of [...wordsOf(name), ...wordsOf(description)]) {
    if (!vocabularyIndex.has(word)) continue;
    for (let length = 3; length <= word.length; length++) {
      const p = prefixIndex.get(word.slice(0, length));
      if (lastSeen[p] !== id) {
        lastSeen[p] = id;
        matches[p]++;
      }
    }
  }
}
const of = (text) => matches[prefixIndex.get(text)];
function describe(title, counts) {
  const sorted = [...counts].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, n) => sum + n, 0) / sorted.length;
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const share = (n) => `${((100 * n) / products).toFixed(2)} %`;
  console.log(
    `| ${title} | ${Math.round(mean)} (${share(mean)}) | ${at(0.5)} | ${at(0.99)} | ${sorted.at(-1)} (${share(sorted.at(-1))}) |`,
  );
}
console.log(`${products} products, ${SEARCH_WORDS.length} words\n`);
console.log('| Search | mean matches | median | 99th percentile | most |');
console.log('| --- | ---: | ---: | ---: | ---: |');
describe('one word of the vocabulary (`word*`)', SEARCH_WORDS.map(of));
describe('one of the 10 commonest words', COMMON_WORDS.map(of));
for (const length of [3, 4, 5]) {
  describe(
    `first ${length} letters of a word`,
    SEARCH_WORDS.filter((word) => word.length > length).map((word) => of(word.slice(0, length))),
  );
}
