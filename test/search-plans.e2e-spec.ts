import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import mysql from 'mysql2/promise';
import { performance } from 'node:perf_hooks';
import { newStemmer } from 'snowball-stemmers';
import request from 'supertest';
import { productWordRows } from '../src/products/product-words.js';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { concurrentClient } from './support/http.js';
import { createProduct } from './support/products.js';
import { startTestApp, TestApp } from './support/test-app.js';

const onMysql = process.env.TEST_DATABASE_URL?.startsWith('mysql') === true;
const TOTAL_LIMIT = 25;
const RANK_LIMIT = 2;
const COUNT = 60;
const englishStemmer = newStemmer('english');

interface Listed {
  id: number;
  name: string;
  price: number;
  stock: number;
  created_at: string;
}

interface ListBody {
  data: Listed[];
  meta: {
    page: number | null;
    page_size: number;
    total: number;
    total_exact?: boolean;
    total_page: number;
    next_cursor: string | null;
  };
}

/** Product i of the data set: words with known frequencies, so that each search is rare or common at will. */
function productOf(i: number) {
  return {
    name: `Zorblat ${i % 2 === 0 ? 'quenth' : 'plain'} item${i}`,
    description: [
      i % 20 === 0 ? 'vimmel' : 'other',
      i % 3 === 0 ? 'vimsy' : '',
      i <= TOTAL_LIMIT ? 'quarta' : '',
      i <= TOTAL_LIMIT + 1 ? 'quinta' : '',
      'zorblat',
      // A family for typos and stems: `lantern` and `lanterns` are one letter and one stem apart, `lantren` a swap.
      i % 2 === 0 ? 'lantern' : 'lanterns',
      i % 7 === 0 ? 'lantren' : '',
    ].join(' '),
    price: ((i * 37) % 100) + 1,
    stock: i % 4 === 0 ? 0 : 5,
  };
}

const stem = (word: string) => englishStemmer.stem(word);

/** The optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.length][b.length];
}

/**
 * How well a product's word matches a search's word, by the documented rules (docs/api.md#search), computed
 * apart from the service: 5 the word (the last one: a word it begins), 4 one typo (from 5 letters), 3 two typos
 * (from 9, not the last word), 2 the same stem, 0 none. Typos and stems only between words of letters.
 */
function matchTier(query: string, own: string, last: boolean): number {
  if (last ? own.startsWith(query) : own === query) return 5;
  if (!/^[a-z]+$/.test(query) || !/^[a-z]+$/.test(own)) return 0;
  if (query.length >= 5) {
    const edits = last
      ? Math.min(
          ...[query.length - 1, query.length, query.length + 1]
            .filter((k) => k <= own.length)
            .map((k) => editDistance(query, own.slice(0, k))),
        )
      : editDistance(query, own);
    if (edits === 1) return 4;
    if (edits === 2 && !last && query.length >= 9) return 3;
  }
  return stem(query) === stem(own) ? 2 : 0;
}

/** A product's relevance tiers for a search (each word's best match), or null when some word does not match. */
function tiersFor(text: string, search: string): number | null {
  const words: string[] = search.toLowerCase().match(/[a-z0-9_]+/g) ?? [];
  const own: string[] = text.toLowerCase().match(/[a-z0-9_]+/g) ?? [];
  let sum = 0;
  for (const [i, word] of words.entries()) {
    const best = Math.max(0, ...own.map((w) => matchTier(word, w, i === words.length - 1)));
    if (best === 0) return null;
    sum += best;
  }
  return sum;
}

/** What a search matches, computed apart from the service: every word, the last as a prefix, typos and stems. */
function bruteForce(
  products: Array<Listed & { text: string }>,
  search: string,
): Array<Listed & { text: string }> {
  return products.filter((product) => tiersFor(product.text, search) !== null);
}

/**
 * The search's plans (product-search.ts) against a brute-force check, its capped totals, the word index under
 * concurrent product writes, and SEARCH_TIMEOUT_MS. Two instances on one database: `ranked` counts postings up
 * to the default SEARCH_RANK_LIMIT (every search here is ranked), `walking` up to 2 (every word here but one
 * is common: its searches walk postings or the products' sort index, or merge the postings of words of at
 * most 40 postings each).
 */
describe('search plans, capped totals and the word index', () => {
  let ranked: TestApp;
  let walking: TestApp;
  /** A third instance whose search statements time out (SEARCH_TIMEOUT_MS). */
  let bounded: TestApp;
  let admin: Account;
  let user: Account;
  const products: Array<Listed & { text: string }> = [];

  const list = async (app: TestApp, query: string): Promise<ListBody> => {
    const res = await request(app.url).get(`/api/v1/products?${query}`).auth(user.token, { type: 'bearer' });
    expect({ query, status: res.status, body: res.status === 200 ? 'ok' : res.body }).toEqual({
      query,
      status: 200,
      body: 'ok',
    });
    return res.body as ListBody;
  };

  beforeAll(async () => {
    const env = { ...ADMIN_ENV, SEARCH_TOTAL_LIMIT: String(TOTAL_LIMIT) };
    ranked = await startTestApp(env);
    walking = await startTestApp({
      ...env,
      DATABASE_URL: ranked.databaseUrl,
      SEARCH_RANK_LIMIT: String(RANK_LIMIT),
    });
    bounded = await startTestApp({
      DATABASE_URL: ranked.databaseUrl,
      // On SQLite a new reader thread takes longer than 1 ms to open the file; on MariaDB a table lock holds it.
      SEARCH_TIMEOUT_MS: onMysql ? '300' : '1',
    });
    admin = await loginAdmin(ranked);
    user = await createAccount(ranked);
    for (let i = 1; i <= COUNT; i++) {
      const input = productOf(i);
      const created = (await createProduct(ranked, admin.token, {
        ...input,
        category_id: 1 + (i % 3),
      })) as Listed;
      products.push({ ...created, text: `${input.name} ${input.description}` });
    }
  });

  afterAll(async () => {
    // Closed in the reverse order (on SQLite an instance closed before the first one closes its connection).
    await bounded?.close();
    await walking?.close();
    await ranked?.close();
  });

  // On `walking`: postings or products walks, but `zorblat item6` (ranked: item6 and item60) and `vimsy quenth` /
  // `quenth item1` (merged: 20 and 30, 30 and 11 postings).
  const SEARCHES = [
    'zorblat',
    'zorblat quenth',
    'quenth zorb',
    'vimmel',
    'zorblat vimmel',
    'zorblat vim',
    'vim',
    'quenth item1',
    'zorblat item6',
    'vimsy quenth',
    'other plain z',
    'lantern',
    'lantren zorblat',
    'lanterns quenth',
    'zorblat lantrn',
    'quenth lanternz',
    'vimmel lantern',
  ];
  const FILTERS = ['', '&min_price=20&max_price=70', '&in_stock=true', '&category_id=2'];
  const SORTS: Array<[string, (a: Listed, b: Listed) => number]> = [
    ['id', (a, b) => a.id - b.id],
    ['-id', (a, b) => b.id - a.id],
    ['price', (a, b) => a.price - b.price || a.id - b.id],
    ['-price', (a, b) => b.price - a.price || b.id - a.id],
    ['name', (a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : 1)],
    [
      'created_at',
      (a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id - b.id),
    ],
  ];
  const matching = (search: string, filter: string) =>
    bruteForce(products, search).filter((product) => {
      const params = new URLSearchParams(filter);
      const category = params.get('category_id');
      return (
        (params.get('min_price') === null || product.price >= Number(params.get('min_price'))) &&
        (params.get('max_price') === null || product.price <= Number(params.get('max_price'))) &&
        (params.get('in_stock') === null || product.stock > 0) &&
        (category === null || (products.indexOf(product) + 1) % 3 === Number(category) - 1)
      );
    });

  it('every plan finds what a brute-force check finds, in every sort, with every filter', async () => {
    const lowerBounds = new Map<TestApp, number>();
    for (const app of [ranked, walking]) {
      for (const search of SEARCHES) {
        for (const filter of FILTERS) {
          const expected = matching(search, filter);
          const query = `search=${encodeURIComponent(search)}${filter}`;
          // Relevance: the same set; the pages by number are one order (the page of 100 cut in sevens).
          const all = await list(app, `${query}&page_size=100`);
          expect({ query, ids: all.data.map((p) => p.id).sort((a, b) => a - b) }).toEqual({
            query,
            ids: expected.map((p) => p.id).sort((a, b) => a - b),
          });
          // Better matches first: the word above a typo, one typo above two, a typo above a stem.
          const tiers = all.data.map((p) => tiersFor(products.find((q) => q.id === p.id)!.text, search)!);
          expect({ query, tiers }).toEqual({ query, tiers: [...tiers].sort((a, b) => b - a) });
          const paged: number[] = [];
          for (let page = 1; (page - 1) * 7 < Math.min(TOTAL_LIMIT, expected.length); page++) {
            const body = await list(app, `${query}&page_size=7&page=${page}`);
            const full = Math.min(TOTAL_LIMIT, expected.length);
            if (body.meta.total_exact === false && body.meta.total < TOTAL_LIMIT) {
              // A count that stopped at its budget of the driver's postings (countBudget: 4 × the rank limit,
              // 8 on `walking`): a lower bound, at least what the pages so far have seen.
              lowerBounds.set(app, (lowerBounds.get(app) ?? 0) + 1);
              const seen = Math.min(page * 7 + 1, expected.length);
              const total = body.meta.total;
              expect({ query, page, total, within: total >= seen && total <= expected.length }).toEqual({
                query,
                page,
                total,
                within: true,
              });
            } else {
              // Counted when more follow the page: the plan's count, capped.
              expect({ query, page, total: body.meta.total }).toEqual({ query, page, total: full });
            }
            paged.push(...body.data.map((p) => p.id));
          }
          expect({ query, paged }).toEqual({
            query,
            paged: all.data.map((p) => p.id).slice(0, paged.length),
          });
          // Every other sort: the exact order, read through cursor pages of 7.
          for (const [sort, compare] of SORTS) {
            const seen: number[] = [];
            let cursor: string | null = null;
            do {
              const body: ListBody = await list(
                app,
                `${query}&sort=${sort}&page_size=7${cursor === null ? '' : `&cursor=${cursor}`}`,
              );
              seen.push(...body.data.map((p) => p.id));
              cursor = body.meta.next_cursor;
            } while (cursor !== null);
            expect({ query, sort, seen }).toEqual({
              query,
              sort,
              seen: [...expected].sort(compare).map((p) => p.id),
            });
          }
        }
      }
    }
    // With the default rank limit no count here reaches its budget (2 000 postings); at 2 some do.
    expect({ ranked: lowerBounds.get(ranked) ?? 0, walking: (lowerBounds.get(walking) ?? 0) > 0 }).toEqual({
      ranked: 0,
      walking: true,
    });
  });

  it('a search total is exact up to SEARCH_TOTAL_LIMIT, then the limit with total_exact false; lists stay exact', async () => {
    for (const app of [ranked, walking]) {
      expect((await list(app, 'search=vimmel&page_size=2')).meta).toEqual({
        page: 1,
        page_size: 2,
        total: 3,
        total_exact: true,
        total_page: 2,
        next_cursor: null,
      });
      expect((await list(app, 'search=quarta&page_size=10')).meta).toMatchObject({
        total: TOTAL_LIMIT,
        total_exact: true,
        total_page: 3,
      });
      expect((await list(app, 'search=quinta&page_size=10')).meta).toMatchObject({
        total: TOTAL_LIMIT,
        total_exact: false,
        total_page: 3,
      });
      const common = await list(app, 'search=zorblat&sort=id&page_size=10');
      expect(common.meta).toMatchObject({ total: TOTAL_LIMIT, total_exact: false, total_page: 3 });
      // A cursor walks past the limit; its total stays capped.
      const next = await list(app, `search=zorblat&sort=id&page_size=10&cursor=${common.meta.next_cursor}`);
      expect(next.meta).toMatchObject({ page: null, total: TOTAL_LIMIT, total_exact: false });
      // No search: no total_exact, the exact count.
      const listed = await list(app, 'page_size=10');
      expect(listed.meta.total_exact).toBeUndefined();
      expect(listed.meta.total).toBeGreaterThan(TOTAL_LIMIT);
    }
    const last = await list(ranked, 'search=zorblat&page_size=10&page=3');
    expect(last.data).toHaveLength(10);
  });

  it('a page whose offset reaches SEARCH_TOTAL_LIMIT is 400 naming page and searchWindow', async () => {
    const res = await request(ranked.url)
      .get('/api/v1/products?search=zorblat&page_size=10&page=4')
      .auth(user.token, { type: 'bearer' });
    const message =
      `page must be at most 3 with page_size 10: a search pages through its first ${TOTAL_LIMIT} matches by ` +
      'page; use cursor with a sort other than relevance to go further';
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400,
      body: {
        code: 400,
        message: 'Bad Request',
        data: { details: message, errors: [{ field: 'page', rule: 'searchWindow', message }] },
      },
    });
  });

  it('a page past the window of a search with at most SEARCH_TOTAL_LIMIT matches is the empty page it always was', async () => {
    for (const app of [ranked, walking]) {
      for (const [search, total, totalPage] of [
        ['vimmel', 3, 1],
        ['quarta', TOTAL_LIMIT, 3],
      ] as const) {
        const res = await request(app.url)
          .get(`/api/v1/products?search=${search}&page_size=10&page=4`)
          .auth(user.token, { type: 'bearer' });
        expect({ status: res.status, body: res.body }).toEqual({
          status: 200,
          body: {
            code: 200,
            message: 'OK',
            data: [],
            meta: {
              page: 4,
              page_size: 10,
              total,
              total_exact: true,
              total_page: totalPage,
              next_cursor: null,
            },
          },
        });
      }
      // One match more than the limit: the page would need matches past the window.
      const refused = await request(app.url)
        .get('/api/v1/products?search=quinta&page_size=10&page=4')
        .auth(user.token, { type: 'bearer' });
      expect(refused.status).toBe(400);
      expect(refused.body.data.errors).toEqual([
        expect.objectContaining({ field: 'page', rule: 'searchWindow' }),
      ]);
    }
  });

  it('product_words is exactly the tokenizer applied to every live product after 200 concurrent creates, renames and deletes', async () => {
    const base: number[] = [];
    for (let i = 0; i < 100; i++) {
      base.push(
        (await createProduct(ranked, admin.token, { name: `Crowd base ${i}`, description: 'plain' })).id,
      );
    }
    const agent = concurrentClient();
    const send = (method: 'post' | 'put' | 'delete', path: string, body?: object) => {
      const req = request(ranked.url)[method](`/api/v1/products${path}`).agent(agent).auth(admin.token, {
        type: 'bearer',
      });
      return body === undefined ? req : req.send(body);
    };
    try {
      const writes = [
        ...Array.from({ length: 100 }, (_, i) =>
          send('post', '', {
            name: `Crowd new ${i} Éclair`,
            description: `fresh ${i % 7} words ${i}`,
            price: 5,
            stock: 1,
            category_id: 1,
          }),
        ),
        ...base
          .slice(0, 60)
          .map((id, i) =>
            send('put', `/${id}`, { name: `Crowd renamed ${i} ÜBER`, description: `moved ${i}` }),
          ),
        ...base.slice(60).map((id) => send('delete', `/${id}`)),
      ];
      const answers = await Promise.all(writes);
      expect(answers.map((res) => res.status).sort((a, b) => a - b)).toEqual([
        ...Array<number>(100).fill(200),
        ...Array<number>(100).fill(201),
      ]);
    } finally {
      agent.destroy();
    }
    const live: Array<{
      id: number;
      name: string;
      description: string | null;
      search_text: string | null;
      is_active: number | boolean;
    }> = await ranked.dataSource.query(
      'SELECT id, name, description, search_text, is_active FROM products WHERE deleted_at IS NULL ORDER BY id',
    );
    const expected = live
      .flatMap((row) =>
        productWordRows(Number(row.id), {
          name: row.name,
          description: row.description,
          searchText: row.search_text,
          active: Boolean(row.is_active),
        }),
      )
      .map((row) => row.join('|'))
      .sort();
    const stored: Array<{ product_id: number; word: string; weight: number; rank: number }> =
      await ranked.dataSource.query('SELECT product_id, word, weight, `rank` FROM product_words');
    const actual = stored
      .map((row) => [Number(row.product_id), row.word, Number(row.weight), Number(row.rank)].join('|'))
      .sort();
    expect(actual.length).toBe(expected.length);
    expect(actual).toEqual(expected);
    // Searched as written: the new words found, the old and the deleted ones not.
    expect((await list(walking, 'search=crowd%20uber&page_size=100')).data).toHaveLength(60);
    expect((await list(walking, 'search=crowd%20eclair&page_size=100')).data).toHaveLength(100);
    expect((await list(walking, 'search=crowd%20base&page_size=100')).data).toEqual([]);
  });

  it('a search statement past SEARCH_TIMEOUT_MS is a 500 envelope at the deadline, and nothing is left running', async () => {
    const locker = onMysql ? await mysql.createConnection(ranked.databaseUrl) : undefined;
    try {
      await locker?.query('LOCK TABLES product_words WRITE');
      const started = performance.now();
      const res = await request(bounded.url)
        .get('/api/v1/products?search=zorblat')
        .auth(user.token, { type: 'bearer' });
      const elapsed = performance.now() - started;
      expect({ status: res.status, body: res.body, withinASecond: elapsed < 1000 }).toEqual({
        status: 500,
        body: {
          code: 500,
          message: 'Internal Server Error',
          data: {
            details: `The search took longer than ${onMysql ? 300 : 1} ms and was stopped: try more or longer words`,
          },
        },
        withinASecond: true,
      });
      if (locker !== undefined) {
        // The statement is killed on the server (KILL QUERY from a connection of its own, just after the answer).
        const running = async () =>
          (
            await locker.query(
              "SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE '%product_words%' AND ID <> CONNECTION_ID()",
            )
          )[0] as unknown[];
        let left = await running();
        for (let tries = 0; left.length > 0 && tries < 20; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          left = await running();
        }
        expect(left).toEqual([]);
      }
      // Lists without search are not bounded so, and the instance answers them meanwhile.
      const listed = await request(bounded.url).get('/api/v1/products?page_size=1').auth(user.token, {
        type: 'bearer',
      });
      expect(listed.status).toBe(200);
    } finally {
      await locker?.query('UNLOCK TABLES');
      await locker?.end();
    }
    // Another instance searches as usual.
    expect((await list(ranked, 'search=vimmel')).meta.total).toBe(3);
  });

  it('a search counted in the word index alone follows is_active: users count active products, admins what they ask', async () => {
    const vimmel = products.filter((product) => product.text.includes('vimmel')).map((product) => product.id);
    for (const id of vimmel.slice(0, 2)) {
      await request(ranked.url)
        .put(`/api/v1/products/${id}`)
        .auth(admin.token, { type: 'bearer' })
        .send({ is_active: false })
        .expect(200);
    }
    const asAdmin = async (query: string) => {
      const res = await request(walking.url)
        .get(`/api/v1/products?${query}`)
        .auth(admin.token, { type: 'bearer' });
      return res.body as ListBody;
    };
    // page_size=1: more follow, so each total is counted.
    for (const app of [ranked, walking]) {
      expect((await list(app, 'search=vimmel&page_size=1')).meta).toMatchObject({
        total: 1,
        total_exact: true,
      });
    }
    const inactive = await asAdmin('search=vimmel&is_active=false&page_size=1');
    expect(inactive.meta).toMatchObject({ total: 2, total_exact: true });
    expect((await asAdmin('search=vimmel&page_size=1')).meta).toMatchObject({ total: 3, total_exact: true });
    const [{ n }] = await ranked.dataSource.query(
      `SELECT COUNT(*) AS n FROM product_words WHERE word = 'vimmel' AND \`rank\` >= 100`,
    );
    expect(Number(n)).toBe(2);
  });
});
