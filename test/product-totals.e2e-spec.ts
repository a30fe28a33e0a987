import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import request from 'supertest';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { scrape } from './support/metrics.js';
import { placeOrder } from './support/orders.js';
import { createProduct, type ProductInput } from './support/products.js';
import { startTestApp, TestApp } from './support/test-app.js';

interface ListBody {
  data: Array<{ id: number }>;
  meta: { page: number | null; total: number; total_page: number; next_cursor: string | null };
}

/**
 * `meta.total` of the product list is counted once per filter and reused until the catalogue changes: every
 * product write of the service raises catalog_state.generation, on whichever instance it is made.
 */
describe('product list totals', () => {
  let a: TestApp;
  let b: TestApp;
  let shortLived: TestApp;
  let uncached: TestApp;
  let admin: Account;
  let user: Account;

  const list = async (t: TestApp, query: string): Promise<ListBody> => {
    const res = await request(t.url).get(`/api/v1/products?${query}`).auth(user.token, { type: 'bearer' });
    expect(res.status).toBe(200);
    return res.body as ListBody;
  };
  const totalOf = async (t: TestApp, query: string) => (await list(t, query)).meta.total;
  const add = async (input: ProductInput) => (await createProduct(a, admin.token, input)).id;
  const generation = async () => {
    const [row]: Array<{ generation: number | string }> = await a.dataSource.query(
      'SELECT generation FROM catalog_state WHERE id = 1',
    );
    return Number(row.generation);
  };
  const totalsCounted = async (t: TestApp, result: 'hit' | 'miss') =>
    (await scrape(t.url)).value('commerce_product_list_totals_total', { result }) ?? 0;
  /** A product written with SQL, as an operator would, bypassing the service. */
  const insertBySql = (categoryId: number) =>
    a.dataSource.query(
      'INSERT INTO products (name, description, price_cents, stock, category_id, image, is_active, created_at, updated_at) ' +
        "VALUES ('Written by hand', '', 500, 1, ?, '', 1, '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000')",
      [categoryId],
    );

  beforeAll(async () => {
    a = await startTestApp(ADMIN_ENV);
    // A second instance of the service on the same database.
    b = await startTestApp({ ...ADMIN_ENV, DATABASE_URL: a.databaseUrl });
    shortLived = await startTestApp({ DATABASE_URL: a.databaseUrl, PRODUCT_TOTALS_TTL: '1' });
    uncached = await startTestApp({ DATABASE_URL: a.databaseUrl, PRODUCT_TOTALS_TTL: '0' });
    admin = await loginAdmin(a);
    user = await createAccount(a);
  });

  afterAll(async () => {
    // Closing an instance on SQLite closes the file for all of them: the first one last.
    await uncached?.close();
    await shortLived?.close();
    await b?.close();
    await a?.close();
  });

  it('is reused while nothing changes, and exact after a create, a deactivation and a delete on either instance', async () => {
    const CATEGORY = 811;
    const query = `category_id=${CATEGORY}&page_size=2`;
    for (let i = 0; i < 3; i++) await add({ category_id: CATEGORY });
    const before = await generation();

    expect(await totalOf(a, query)).toBe(3);
    const hits = await totalsCounted(a, 'hit');
    const misses = await totalsCounted(a, 'miss');
    expect((await list(a, query)).meta).toMatchObject({ total: 3, total_page: 2 });
    expect(await totalsCounted(a, 'hit')).toBe(hits + 1);
    expect(await totalsCounted(a, 'miss')).toBe(misses);
    expect(await totalOf(b, query)).toBe(3);

    const created = (await createProduct(b, admin.token, { category_id: CATEGORY })).id;
    expect(await totalOf(a, query)).toBe(4);
    await request(a.url)
      .put(`/api/v1/products/${created}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ is_active: false })
      .expect(200);
    expect(await totalOf(b, query)).toBe(3);
    await request(b.url)
      .delete(`/api/v1/products/${created - 1}`)
      .auth(admin.token, { type: 'bearer' })
      .expect(200);
    expect(await totalOf(a, query)).toBe(2);
    expect(await totalOf(b, query)).toBe(2);

    // One generation per write: the create, the update and the delete.
    expect(await generation()).toBe(before + 3);
    const [{ n }]: Array<{ n: number | string }> = await a.dataSource.query(
      'SELECT COUNT(*) AS n FROM products WHERE category_id = ? AND is_active = 1 AND deleted_at IS NULL',
      [CATEGORY],
    );
    expect(Number(n)).toBe(2);
  });

  it('runs no count for a kept total, the capped count of a search included', async () => {
    const CATEGORY = 815;
    for (const word of ['alpha', 'beta', 'gamma'])
      await add({ name: `Wombatite ${word}`, category_id: CATEGORY });
    const statementsOf = async (query: string) => {
      const logQuery = jest.spyOn(a.dataSource.logger, 'logQuery');
      const body = await list(a, query);
      const statements = logQuery.mock.calls.map(([sql]) => sql);
      logQuery.mockRestore();
      return { total: body.meta.total, statements };
    };
    // Every count statement names its result n: the list's, a search's total and its words' postings.
    const counts = (statements: string[]) => statements.filter((sql) => /\bAS n\b/.test(sql));

    const listed = `category_id=${CATEGORY}&page_size=2`;
    expect(counts((await statementsOf(listed)).statements)).toHaveLength(1);
    const kept = await statementsOf(listed);
    expect(kept.total).toBe(3);
    expect(counts(kept.statements)).toEqual([]);
    expect(kept.statements.filter((sql) => sql.includes('FROM catalog_state'))).toHaveLength(1);

    const searched = await statementsOf('search=wombatite&page_size=2');
    expect(searched.total).toBe(3);
    // The search's total reads the driving word's postings (`d`); the plan's postings counts read `w`.
    expect(counts(searched.statements).filter((sql) => sql.includes('product_words d'))).toHaveLength(1);
    // The word's counted postings (which choose the plan) are remembered too.
    const searchedAgain = await statementsOf('search=wombatite&page_size=2');
    expect(searchedAgain.total).toBe(3);
    expect(counts(searchedAgain.statements)).toEqual([]);
  });

  it('misses a row written outside the service until PRODUCT_TOTALS_TTL passes or the generation is raised', async () => {
    const CATEGORY = 812;
    const query = `category_id=${CATEGORY}&page_size=1`;
    await add({ category_id: CATEGORY });
    await add({ category_id: CATEGORY });
    expect(await totalOf(a, query)).toBe(2);
    expect(await totalOf(shortLived, query)).toBe(2);

    await insertBySql(CATEGORY);
    expect(await totalOf(a, query)).toBe(2);
    expect(await totalOf(shortLived, query)).toBe(2);
    expect(await totalOf(uncached, query)).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await totalOf(shortLived, query)).toBe(3);

    await a.dataSource.query('UPDATE catalog_state SET generation = generation + 1 WHERE id = 1');
    expect(await totalOf(a, query)).toBe(3);
  });

  it('counts in_stock lists every time: an order that takes the last unit changes the total at once', async () => {
    const CATEGORY = 813;
    const query = `category_id=${CATEGORY}&in_stock=true&page_size=1`;
    const first = await add({ category_id: CATEGORY, stock: 1 });
    await add({ category_id: CATEGORY, stock: 1 });
    expect(await totalOf(a, query)).toBe(2);
    const before = await generation();

    await placeOrder(a, user.token, [[first, 1]]).expect(201);

    expect(await totalOf(a, query)).toBe(1);
    expect(await totalOf(b, query)).toBe(1);
    expect(await totalOf(a, `category_id=${CATEGORY}&in_stock=false&page_size=1`)).toBe(1);
    // Orders move stock without marking the catalogue changed.
    expect(await generation()).toBe(before);
    const [row]: Array<{ stock: number | string }> = await a.dataSource.query(
      'SELECT stock FROM products WHERE id = ?',
      [first],
    );
    expect(Number(row.stock)).toBe(0);
  });

  it('counts a search with its page by number, and apart on pages after a cursor', async () => {
    const CATEGORY = 814;
    const ids: number[] = [];
    for (const price of [5, 3, 4, 1, 2]) {
      ids.push(await add({ name: `Quokkaberry jam ${price}`, category_id: CATEGORY, price }));
    }
    await add({ name: 'Plain jam', category_id: CATEGORY });
    const search = 'search=quokkaberry&page_size=2';

    const first = await list(a, search);
    expect(first.meta).toMatchObject({ page: 1, total: 5, total_page: 3 });
    expect((await list(a, `${search}&page=3`)).meta).toMatchObject({ total: 5, total_page: 3 });
    expect(await list(a, `${search}&page=9`)).toMatchObject({ data: [], meta: { total: 5, total_page: 3 } });

    const byPrice = await list(a, `${search}&sort=price`);
    expect(byPrice.data.map((p) => p.id)).toEqual([ids[3], ids[4]]);
    const next = await list(a, `${search}&sort=price&cursor=${byPrice.meta.next_cursor}`);
    expect(next.data.map((p) => p.id)).toEqual([ids[1], ids[2]]);
    expect(next.meta).toMatchObject({ page: null, total: 5, total_page: 3 });

    await request(a.url)
      .delete(`/api/v1/products/${ids[0]}`)
      .auth(admin.token, { type: 'bearer' })
      .expect(200);
    expect((await list(b, search)).meta).toMatchObject({ total: 4, total_page: 2 });
    expect((await list(b, `${search}&sort=price&cursor=${byPrice.meta.next_cursor}`)).meta.total).toBe(4);
  });
});
