import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import mysql from 'mysql2/promise';
import { performance } from 'node:perf_hooks';
import request from 'supertest';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { concurrentClient } from './support/http.js';
import { scrape } from './support/metrics.js';
import { createProduct } from './support/products.js';
import { startTestApp, TestApp } from './support/test-app.js';

const onMysql = process.env.TEST_DATABASE_URL?.startsWith('mysql') === true;
const CATEGORY = 907;

/**
 * What one search may cost: at most 8 words, at most 3 of them shorter than 3 characters; at most
 * SEARCH_CONCURRENCY searches at once per instance with SEARCH_QUEUE waiting, the rest 429; and on MySQL/MariaDB a
 * statement past DATABASE_QUERY_TIMEOUT_MS is stopped on the server, not only given up by the service.
 */
describe('search cost bounds', () => {
  let t: TestApp;
  /** A second instance on the same database whose statements time out after 500 ms (MariaDB/MySQL only). */
  let bounded: TestApp | undefined;
  let admin: Account;
  let user: Account;
  const ids: Record<string, number> = {};

  const search = (app: TestApp, text: string, agent?: ReturnType<typeof concurrentClient>) => {
    const req = request(app.url)
      .get(`/api/v1/products?search=${encodeURIComponent(text)}&category_id=${CATEGORY}&sort=id`)
      .auth(user.token, { type: 'bearer' });
    return agent === undefined ? req : req.agent(agent);
  };
  const productRows = async (app: TestApp) =>
    Number((await app.dataSource.query('SELECT COUNT(*) AS n FROM products'))[0].n);

  beforeAll(async () => {
    t = await startTestApp({ ...ADMIN_ENV, SEARCH_CONCURRENCY: '1', SEARCH_QUEUE: '1' });
    admin = await loginAdmin(t);
    user = await createAccount(t);
    const products = {
      tv: { name: 'TV stand', description: 'Oak, for a TV up to 55 in, with a shelf' },
      lamp: { name: 'Desk lamp', description: 'A lamp on an oak foot' },
    };
    for (const [key, product] of Object.entries(products)) {
      ids[key] = (await createProduct(t, admin.token, { ...product, category_id: CATEGORY })).id;
    }
    if (onMysql)
      bounded = await startTestApp({ DATABASE_URL: t.databaseUrl, DATABASE_QUERY_TIMEOUT_MS: '500' });
  });

  afterAll(async () => {
    await bounded?.close();
    await t?.close();
  });

  it('a search of more than 8 words is 400 naming search and maxWords; 8 words are searched', async () => {
    const before = await productRows(t);
    const nine = await search(t, 'oak stand shelf with for tv up to 55');
    expect({ status: nine.status, body: nine.body }).toEqual({
      status: 400,
      body: {
        code: 400,
        message: 'Bad Request',
        data: {
          details: 'search must have at most 8 words',
          errors: [{ field: 'search', rule: 'maxWords', message: 'search must have at most 8 words' }],
        },
      },
    });
    // 100 characters of one-letter words: refused before any statement.
    const letters = 'a b c d e f g h i j k l m n o p q r s t u v w x y z '.repeat(4).slice(0, 100);
    const costly = await search(t, letters);
    expect({ status: costly.status, rule: costly.body.data.errors[0].rule }).toEqual({
      status: 400,
      rule: 'maxWords',
    });
    const eight = await search(t, 'oak stand shelf with for tv 55 oa');
    expect({ status: eight.status, ids: eight.body.data?.map((p: { id: number }) => p.id) }).toEqual({
      status: 200,
      ids: [ids.tv],
    });
    expect(await productRows(t)).toBe(before);
  });

  it('more than 3 words shorter than 3 characters is 400 naming search and maxShortWords; 3 are searched', async () => {
    const four = await search(t, 'tv up to 55');
    expect({ status: four.status, body: four.body.data }).toEqual({
      status: 400,
      body: {
        details: 'search must have at most 3 words shorter than 3 characters',
        errors: [
          {
            field: 'search',
            rule: 'maxShortWords',
            message: 'search must have at most 3 words shorter than 3 characters',
          },
        ],
      },
    });
    // Only short words, and short words beside a longer one: words like any other in the word index.
    const onlyShort = await search(t, 'tv 55 in');
    expect({ status: onlyShort.status, ids: onlyShort.body.data.map((p: { id: number }) => p.id) }).toEqual({
      status: 200,
      ids: [ids.tv],
    });
    const mixed = await search(t, 'oak a on');
    expect({ status: mixed.status, ids: mixed.body.data.map((p: { id: number }) => p.id) }).toEqual({
      status: 200,
      ids: [ids.lamp],
    });
  });

  it('past SEARCH_CONCURRENCY running and SEARCH_QUEUE waiting, a search is 429 with Retry-After; other reads are not limited', async () => {
    const agent = concurrentClient();
    try {
      // Connections opened first, so that the searches arrive together.
      await Promise.all(
        Array.from({ length: 30 }, () => request(t.url).get('/api/v1/health/live').agent(agent).expect(200)),
      );
      const before =
        (await scrape(t.url)).value('commerce_rate_limit_refusals_total', { limit: 'search' }) ?? 0;
      const answers = await Promise.all(Array.from({ length: 30 }, () => search(t, 'oak stand', agent)));
      const read = await request(t.url)
        .get(`/api/v1/products?category_id=${CATEGORY}&sort=id`)
        .auth(user.token, { type: 'bearer' })
        .agent(agent);
      expect({ status: read.status, ids: read.body.data.map((p: { id: number }) => p.id) }).toEqual({
        status: 200,
        ids: [ids.tv, ids.lamp],
      });

      const refused = answers.filter((res) => res.status === 429);
      const served = answers.filter((res) => res.status === 200);
      expect(refused.length + served.length).toBe(30);
      expect(refused.length).toBeGreaterThan(0);
      expect(served.length).toBeGreaterThanOrEqual(2); // the running one and the one that waited
      for (const res of served) expect(res.body.data.map((p: { id: number }) => p.id)).toEqual([ids.tv]);
      expect({ retryAfter: refused[0].headers['retry-after'], body: refused[0].body }).toEqual({
        retryAfter: '1',
        body: {
          code: 429,
          message: 'Too Many Requests',
          data: { details: 'Too many searches at once: retry in 1 s' },
        },
      });
      const after = await scrape(t.url);
      expect(after.value('commerce_rate_limit_refusals_total', { limit: 'search' })).toBe(
        before + refused.length,
      );
      expect(after.value('commerce_product_searches', { state: 'running' })).toBe(0);
      expect(after.value('commerce_product_searches', { state: 'queued' })).toBe(0);
    } finally {
      agent.destroy();
    }
  });

  (onMysql ? it : it.skip)(
    'MariaDB/MySQL: a statement past DATABASE_QUERY_TIMEOUT_MS is stopped on the server within 1 s',
    async () => {
      const watcher = await mysql.createConnection(t.databaseUrl);
      // A statement that computes for minutes and never looks at its connection: closing the connection alone
      // leaves it running (a lock wait, by contrast, notices the closed connection by itself).
      const marker = `slow_${Date.now()}`;
      const running = async (): Promise<number[]> => {
        const [rows] = await watcher.query(
          'SELECT ID AS id FROM information_schema.PROCESSLIST WHERE INFO LIKE ? AND ID <> CONNECTION_ID()',
          [`%${marker}%`],
        );
        return (rows as Array<{ id: number }>).map((row) => Number(row.id));
      };
      try {
        const started = performance.now();
        const failure = await bounded!.dataSource
          .query(`SELECT BENCHMARK(5000000000, MD5('x')) AS ${marker}`)
          .then(
            () => 'no error',
            (error: Error) => error.message,
          );
        const gaveUpAt = performance.now();
        expect({ failure, gaveUpWithin2s: gaveUpAt - started < 2000 }).toEqual({
          failure: 'Query inactivity timeout',
          gaveUpWithin2s: true,
        });
        let left = await running();
        while (left.length > 0 && performance.now() - gaveUpAt < 1000) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          left = await running();
        }
        expect({ left, within1s: performance.now() - gaveUpAt < 1000 }).toEqual({ left: [], within1s: true });
      } finally {
        // Never leave a statement computing on the server, whatever the outcome.
        for (const id of await running()) await watcher.query(`KILL QUERY ${id}`);
        await watcher.end();
      }
      // The instance serves the next search as usual (the stopped statement's connection was replaced).
      const after = await search(bounded!, 'oak stand');
      expect({ status: after.status, ids: after.body.data.map((p: { id: number }) => p.id) }).toEqual({
        status: 200,
        ids: [ids.tv],
      });
    },
  );
});
