// The load scenarios: what each request looks like. Every request picks its user, product, page or category at
// random, so that caches see a realistic spread; the same generators drive the service and both baselines.
import {
  BENCH_PASSWORD,
  cartIdOf,
  COMMON_WORDS,
  DATA_SET,
  emptyAddCarts,
  HOT_PRODUCT_ID,
  SEARCH_WORDS,
  setAutomaticPromotion,
} from './seed.mjs';

const JSON_HEADERS = { 'content-type': 'application/json' };
const randomInt = (min, max) => min + Math.floor(Math.random() * (max - min + 1));
const randomWord = () => SEARCH_WORDS[randomInt(0, SEARCH_WORDS.length - 1)];
/** How deep the deep scenarios read: 5 000 pages of 20, or the last pages of a smaller data set. */
const DEEP_PAGE = 5000;
const deepPage = () => Math.min(DEEP_PAGE, Math.floor(DATA_SET.products / 20)) - randomInt(0, 9);

/** Words of 5 letters or more (a search's words tolerate typos from 5), the commonest first. */
const TYPO_WORDS = SEARCH_WORDS.filter((word) => word.length >= 5);
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** The word with one typo at random: two neighbours swapped, a letter replaced, dropped or added. */
function misspelled(word) {
  const i = randomInt(0, word.length - 2);
  const letter = LETTERS[randomInt(0, LETTERS.length - 1)];
  switch (randomInt(0, 3)) {
    case 0:
      return word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
    case 1:
      return word.slice(0, i) + (letter === word[i] ? 'x' : letter) + word.slice(i + 1);
    case 2:
      return word.slice(0, i) + word.slice(i + 1);
    default:
      return word.slice(0, i) + letter + word.slice(i);
  }
}

/** How many of the commonest words make the fresh pairs: 300 × 299 ordered pairs, each searched once a run. */
const FRESH_WORDS = 300;
/**
 * Every ordered pair of two of the FRESH_WORDS commonest words, in a random order drawn once per run: the fresh
 * searches of all servers take the next pair, so no pair is searched twice in a run (past 89 700 searches the
 * order starts again).
 */
const freshPairs = (() => {
  const pairs = [];
  for (let i = 0; i < FRESH_WORDS; i++) {
    for (let j = 0; j < FRESH_WORDS; j++) if (i !== j) pairs.push(i * FRESH_WORDS + j);
  }
  for (let i = pairs.length - 1; i > 0; i--) {
    const j = randomInt(0, i);
    [pairs[i], pairs[j]] = [pairs[j], pairs[i]];
  }
  let next = 0;
  return () => {
    const pair = pairs[next++ % pairs.length];
    return `${SEARCH_WORDS[Math.floor(pair / FRESH_WORDS)]} ${SEARCH_WORDS[pair % FRESH_WORDS]}`;
  };
})();

/** Request builders over the seeded data; `tokens[i]` is a bearer token of user i + 1. */
export function requestBuilders(tokens) {
  const auth = () => ({ authorization: `Bearer ${tokens[randomInt(0, tokens.length - 1)]}` });
  /** A random user's bearer token and one of their seeded carts. */
  const cartOf = (kind) => {
    const user = randomInt(1, tokens.length);
    return { id: cartIdOf(user, kind), headers: { authorization: `Bearer ${tokens[user - 1]}` } };
  };
  const cartRead = (req, kind) => {
    const cart = cartOf(kind);
    req.method = 'GET';
    req.path = `/api/v1/carts/${cart.id}`;
    req.headers = cart.headers;
    req.body = undefined;
    return req;
  };
  const searchRequest = (req, text) => {
    req.method = 'GET';
    req.path = `/api/v1/products?search=${encodeURIComponent(text)}&page_size=20`;
    req.headers = auth();
    req.body = undefined;
    return req;
  };
  return {
    read: (req) => {
      req.method = 'GET';
      req.path = `/api/v1/products/${randomInt(1, DATA_SET.products)}`;
      req.headers = auth();
      req.body = undefined;
      return req;
    },
    list: (req) => {
      const pages = Math.ceil(DATA_SET.products / DATA_SET.categories / 20);
      req.method = 'GET';
      req.path = `/api/v1/products?page=${randomInt(1, pages)}&page_size=20&category_id=${randomInt(1, DATA_SET.categories)}`;
      req.headers = auth();
      req.body = undefined;
      return req;
    },
    /**
     * Words of the vocabulary, each equally likely: half one word, a quarter two words, a quarter the first
     * 3-5 letters of a word (a prefix).
     */
    search: (req) => {
      const roll = Math.random();
      const word = randomWord();
      const text =
        roll < 0.5 ? word : roll < 0.75 ? `${randomWord()} ${word}` : word.slice(0, randomInt(3, 5));
      return searchRequest(req, text);
    },
    /** The first 1-3 letters of a word of the vocabulary: a prefix shared by many words, as typed letter by letter. */
    searchPrefix: (req) => searchRequest(req, randomWord().slice(0, randomInt(1, 3))),
    /** One of the ten most frequent words of the catalogue: the expensive end of search. */
    searchCommon: (req) => searchRequest(req, COMMON_WORDS[randomInt(0, COMMON_WORDS.length - 1)]),
    /**
     * A misspelled word (one typo) of 5 letters or more, half the time one of the 100 commonest such words, else
     * any: alone (a prefix with a typo) or before another word (a whole word with a typo).
     */
    searchTypo: (req) => {
      const word = TYPO_WORDS[randomInt(0, Math.random() < 0.5 ? 99 : TYPO_WORDS.length - 1)];
      const typo = misspelled(word);
      return searchRequest(req, Math.random() < 0.5 ? typo : `${typo} ${randomWord()}`);
    },
    /** One of the ten commonest words with the three facets (categories, options, price buckets). */
    searchFacets: (req) => {
      searchRequest(req, COMMON_WORDS[randomInt(0, COMMON_WORDS.length - 1)]);
      req.path += '&facets=category_id,options,price';
      return req;
    },
    /** Two of the 300 commonest words, a pair not searched before in the run (freshPairs). */
    searchFresh: (req) => searchRequest(req, freshPairs()),
    firstPage: (req) => {
      req.method = 'GET';
      req.path = '/api/v1/products?page_size=20';
      req.headers = auth();
      req.body = undefined;
      return req;
    },
    deepPage: (req) => {
      req.method = 'GET';
      req.path = `/api/v1/products?page=${deepPage()}&page_size=20`;
      req.headers = auth();
      req.body = undefined;
      return req;
    },
    /**
     * The same pages by cursor. Every seeded product is active and ids have no gaps, so the page after id k is
     * the one after row k; the cursor is written as the service writes it (base64url of its JSON).
     */
    deepCursor: (req) => {
      const afterId = (deepPage() - 1) * 20;
      const cursor = Buffer.from(JSON.stringify({ s: 'id', i: afterId })).toString('base64url');
      req.method = 'GET';
      req.path = `/api/v1/products?cursor=${cursor}&page_size=20`;
      req.headers = auth();
      req.body = undefined;
      return req;
    },
    order: (req) => {
      const items = new Map();
      const lines = randomInt(1, 3);
      // The hot product is left out: its stock belongs to the hot-product scenario.
      while (items.size < lines) items.set(randomInt(1, HOT_PRODUCT_ID - 1), randomInt(1, 3));
      req.method = 'POST';
      req.path = '/api/v1/orders';
      req.headers = { ...auth(), ...JSON_HEADERS };
      req.body = JSON.stringify({
        items: [...items].map(([product_id, quantity]) => ({ product_id, quantity })),
        shipping_address: '1 Benchmark Road, Springfield',
        payment_method: 'credit_card',
      });
      return req;
    },
    /** The user's cart of 5 lines: live prices and stock of each, totals. */
    cartRead: (req) => cartRead(req, 'read'),
    /** The user's promo cart: the read cart's 5 lines with the automatic promotion and the code applied. */
    cartPromo: (req) => cartRead(req, 'promo'),
    /** 1-3 units of a product of 1-(N-1) into the user's add cart (emptied before each round). */
    cartAdd: (req) => {
      const cart = cartOf('add');
      req.method = 'POST';
      req.path = `/api/v1/carts/${cart.id}/items`;
      req.headers = { ...cart.headers, ...JSON_HEADERS };
      req.body = JSON.stringify({ product_id: randomInt(1, HOT_PRODUCT_ID - 1), quantity: randomInt(1, 3) });
      return req;
    },
    hotOrder: (req) => {
      req.method = 'POST';
      req.path = '/api/v1/orders';
      req.headers = { ...auth(), ...JSON_HEADERS };
      req.body = JSON.stringify({
        items: [{ product_id: HOT_PRODUCT_ID, quantity: 1 }],
        shipping_address: '1 Benchmark Road, Springfield',
        payment_method: 'credit_card',
      });
      return req;
    },
    login: (req) => {
      req.method = 'POST';
      req.path = '/api/v1/login';
      req.headers = { ...JSON_HEADERS };
      req.body = JSON.stringify({
        username: `user${String(randomInt(1, DATA_SET.users)).padStart(4, '0')}`,
        password: BENCH_PASSWORD,
      });
      return req;
    },
  };
}

/** Mixed load: 70 % product reads, 20 % lists, 9 % orders, 1 % logins. */
function mixed(builders) {
  return (req) => {
    const roll = Math.random() * 100;
    if (roll < 70) return builders.read(req);
    if (roll < 90) return builders.list(req);
    if (roll < 99) return builders.order(req);
    return builders.login(req);
  };
}

/**
 * The scenarios. `target` is the least acceptable ratio app / Express baseline (requests per second): 0.85 for
 * reads, 0.80 for the rest; the service's CPU per request must also stay within CPU_TARGET times Express's.
 * `hot` scenarios run a fixed number of requests against a product with a known stock and are checked for
 * exactness too;
 * `beforeRound` runs before each server's round, `before` and `after` around the whole scenario.
 */
/** The most CPU per request the service may spend, as a multiple of the Express baseline's. */
export const CPU_TARGET = 1.3;

export function scenarios(tokens) {
  const builders = requestBuilders(tokens);
  return [
    { key: 'read', title: 'GET /products/{id}', target: 0.85, connections: 32, build: builders.read },
    {
      key: 'list',
      title: 'GET /products?page&page_size=20&category_id',
      target: 0.85,
      connections: 32,
      build: builders.list,
    },
    {
      key: 'search',
      title: 'GET /products?search (1-2 words or a prefix)',
      target: 0.85,
      connections: 32,
      build: builders.search,
    },
    {
      key: 'search-typo',
      title: 'GET /products?search (a misspelled word, alone or before another)',
      target: 0.85,
      connections: 32,
      build: builders.searchTypo,
    },
    {
      key: 'search-facets',
      title: 'GET /products?search&facets=category_id,options,price (one of the 10 commonest words)',
      target: 0.85,
      connections: 32,
      build: builders.searchFacets,
    },
    {
      key: 'search-fresh',
      title: 'GET /products?search (two common words, a pair not searched before in the run)',
      target: 0.85,
      connections: 32,
      build: builders.searchFresh,
    },
    {
      key: 'search-prefix',
      title: 'GET /products?search (a prefix of 1-3 letters)',
      target: 0.85,
      connections: 32,
      build: builders.searchPrefix,
    },
    {
      key: 'first',
      group: 'deep',
      title: 'GET /products?page_size=20 (page 1)',
      target: 0.85,
      connections: 32,
      build: builders.firstPage,
    },
    {
      key: 'deep',
      title: 'GET /products?page=5000&page_size=20',
      target: 0.85,
      connections: 32,
      build: builders.deepPage,
    },
    {
      key: 'cursor',
      group: 'deep',
      title: 'GET /products?cursor (page 5000)&page_size=20',
      target: 0.85,
      connections: 32,
      build: builders.deepCursor,
    },
    { key: 'order', title: 'POST /orders (1-3 items)', target: 0.8, connections: 32, build: builders.order },
    {
      key: 'cart-read',
      group: 'carts',
      title: 'GET /carts/{id} (5 lines)',
      target: 0.85,
      connections: 32,
      build: builders.cartRead,
    },
    {
      key: 'cart-promo',
      group: 'carts',
      title: 'GET /carts/{id} (5 lines, an automatic promotion and a code)',
      target: 0.85,
      connections: 32,
      build: builders.cartPromo,
      // The automatic promotion applies to every cart and order while it is on: on for this scenario only.
      before: (db) => setAutomaticPromotion(db, true),
      after: (db) => setAutomaticPromotion(db, false),
    },
    {
      key: 'cart-add',
      group: 'carts',
      title: 'POST /carts/{id}/items',
      target: 0.8,
      connections: 32,
      build: builders.cartAdd,
      // Every server's round starts from empty add carts, so none meets a longer cart than another.
      beforeRound: emptyAddCarts,
    },
    {
      key: 'hot',
      title: 'POST /orders on one hot product',
      target: 0.8,
      connections: 32,
      build: builders.hotOrder,
      hot: true,
    },
    { key: 'login', title: 'POST /login (argon2id)', target: 0.8, connections: 8, build: builders.login },
    {
      key: 'mixed',
      title: 'Mixed 70/20/9/1 read/list/order/login',
      target: 0.8,
      connections: 32,
      build: mixed(builders),
    },
    // Last: at a million products its requests outlast their rounds, and the database works off the backlog
    // for minutes after, which would slow every later scenario of all three servers.
    {
      key: 'search-common',
      title: 'GET /products?search (one of the 10 commonest words)',
      target: 0.85,
      connections: 32,
      build: builders.searchCommon,
    },
  ];
}

/**
 * Replica mode: the catalogue reads, each with a bearer token as everywhere else (the token's session is checked
 * on the primary) and without one (CATALOG_PUBLIC=true: nothing of the request reaches the primary).
 */
export function replicaScenarios(tokens) {
  const reads = scenarios(tokens).filter((s) => ['read', 'list', 'first'].includes(s.key));
  const anonymous = reads.map((s) => ({
    ...s,
    key: `${s.key}-anon`,
    group: 'anon',
    title: `${s.title}, no token`,
    build: (req) => {
      s.build(req);
      req.headers = {};
      return req;
    },
  }));
  return [...reads, ...anonymous].map((s) => ({ ...s, target: 0.85 }));
}
