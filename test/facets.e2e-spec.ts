import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import request from 'supertest';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { revertThrough } from './support/migrations.js';
import { startTestApp, TestApp } from './support/test-app.js';

interface ProductOption {
  name: string;
  values: string[];
}

/** A product as the API reads it back (admin `GET /products/{id}`): what the brute force counts from. */
interface Product {
  id: number;
  name: string;
  description: string;
  price: number;
  stock: number;
  category_id: number;
  is_active: boolean;
  created_at: string;
  options: ProductOption[];
}

interface ValueCount {
  value: string | number;
  count: number;
}
interface Facets {
  category_id?: ValueCount[];
  options?: Record<string, ValueCount[]>;
  price?: Array<{ min: number; max: number | null; count: number }>;
}

interface ListBody {
  data: Array<{ id: number; name: string; price: number; created_at: string }>;
  meta: {
    page: number | null;
    page_size: number;
    total: number;
    total_page: number;
    next_cursor: string | null;
    facets?: Facets;
    facets_exact?: boolean;
  };
}

/** A list's filters, as the brute force applies them. */
interface Filters {
  search?: string;
  category_id?: number;
  include_descendants?: boolean;
  price_min?: number;
  price_max?: number;
  min_price?: number;
  max_price?: number;
  in_stock?: boolean;
  option?: Record<string, string[]>;
  is_active?: boolean;
}

const ALL_FACETS = 'category_id,options,price';
/** The price buckets' edges, in the unit of `price`, as docs/api.md gives them. */
const EDGES = [0, 10, 25, 50, 100, 250, 500, 1000];

const fold = (text: string) => text.normalize('NFKC').toLowerCase();
const words = (text: string): string[] =>
  text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .match(/[\p{L}\p{M}\p{N}_]+/gu) ?? [];
const byValue = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);

function queryOf(filters: Filters, extra: Record<string, string | number> = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    if (key === 'option') {
      for (const [name, values] of Object.entries(value as Record<string, string[]>)) {
        for (const one of values) params.append(`option[${name}]`, one);
      }
    } else {
      params.append(key, String(value));
    }
  }
  for (const [key, value] of Object.entries(extra)) params.append(key, String(value));
  return params.toString();
}

/**
 * Products and categories of the catalogue: a subtree A > (A1 > A1a, A2) beside B; options Size, Color and, on
 * three products, Pattern with 25 values; prices across every bucket; some out of stock, inactive or deleted.
 */
describe('product list filters and facets', () => {
  let t: TestApp;
  /** The same service and database with SEARCH_TOTAL_LIMIT=5. */
  let capped: TestApp | undefined;
  let admin: Account;
  let user: Account;
  const cat: Record<'A' | 'A1' | 'A1a' | 'A2' | 'B', number> = { A: 0, A1: 0, A1a: 0, A2: 0, B: 0 };
  /** Each category's parent, for the brute force's subtrees. */
  const parents = new Map<number, number | null>();
  const created: number[] = [];
  /** The live products as read back through the API. */
  let catalogue: Product[] = [];

  const api = () => request(t.url);
  const list = async (query: string, as: Account = user, on: TestApp = t): Promise<ListBody> => {
    const res = await request(on.url).get(`/api/v1/products?${query}`).auth(as.token, { type: 'bearer' });
    expect({ status: res.status, body: res.status === 200 ? 'ok' : res.body }).toEqual({
      status: 200,
      body: 'ok',
    });
    return res.body as ListBody;
  };
  const refusal = async (query: string) => {
    const res = await api().get(`/api/v1/products?${query}`).auth(user.token, { type: 'bearer' });
    return { status: res.status, code: res.body.code, errors: res.body.data?.errors };
  };

  const subtree = (root: number): Set<number> => {
    const ids = new Set([root]);
    let grown = true;
    while (grown) {
      grown = false;
      for (const [id, parent] of parents) {
        if (parent !== null && ids.has(parent) && !ids.has(id)) {
          ids.add(id);
          grown = true;
        }
      }
    }
    return ids;
  };

  /** Whether the product passes the filters, `leftOut` (a facet's own filter) aside. */
  function passes(p: Product, f: Filters, asAdmin: boolean, leftOut?: string): boolean {
    if (!asAdmin && !p.is_active) return false;
    if (f.is_active !== undefined && p.is_active !== f.is_active) return false;
    if (f.search !== undefined) {
      const own = words(`${p.name} ${p.description}`);
      const terms = words(f.search);
      const ok = terms.every((term, i) =>
        i === terms.length - 1 ? own.some((word) => word.startsWith(term)) : own.includes(term),
      );
      if (!ok) return false;
    }
    if (leftOut !== 'category_id' && f.category_id !== undefined) {
      const within = f.include_descendants ? subtree(f.category_id) : new Set([f.category_id]);
      if (!within.has(p.category_id)) return false;
    }
    const cents = Math.round(p.price * 100);
    const min = f.price_min ?? f.min_price;
    const max = f.price_max ?? f.max_price;
    if (leftOut !== 'price' && min !== undefined && cents < Math.round(min * 100)) return false;
    if (leftOut !== 'price' && max !== undefined && cents > Math.round(max * 100)) return false;
    if (f.in_stock !== undefined && p.stock > 0 !== f.in_stock) return false;
    for (const [name, values] of Object.entries(f.option ?? {})) {
      if (leftOut === `option:${name}`) continue;
      const option = p.options.find((o) => o.name === name);
      const wanted = new Set(values.map(fold));
      if (option === undefined || !option.values.some((value) => wanted.has(fold(value)))) return false;
    }
    return true;
  }

  const matching = (f: Filters, asAdmin = false, leftOut?: string) =>
    catalogue.filter((p) => passes(p, f, asAdmin, leftOut));

  /** The facets counted by brute force over the catalogue, as docs/api.md defines them. */
  function expectedFacets(f: Filters, asAdmin = false): Required<Facets> {
    const top = (counts: Map<string | number, number>, shown = (key: string | number) => key) =>
      [...counts]
        .map(([key, count]) => ({ value: shown(key), count }))
        .sort((a, b) => b.count - a.count || byValue(a.value, b.value))
        .slice(0, 20);

    const categories = new Map<number, number>();
    for (const p of matching(f, asAdmin, 'category_id')) {
      categories.set(p.category_id, (categories.get(p.category_id) ?? 0) + 1);
    }

    const buckets = new Map<number, number>();
    for (const p of matching(f, asAdmin, 'price')) {
      const bucket = EDGES.findLastIndex((edge) => Math.round(p.price * 100) >= edge * 100);
      buckets.set(bucket, (buckets.get(bucket) ?? 0) + 1);
    }

    const names = new Set(catalogue.flatMap((p) => p.options.map((o) => o.name)));
    const options: Record<string, ValueCount[]> = {};
    for (const name of [...names].sort(byValue)) {
      const counts = new Map<string, number>();
      const spellings = new Map<string, string>();
      for (const p of matching(f, asAdmin, `option:${name}`)) {
        for (const value of p.options.find((o) => o.name === name)?.values ?? []) {
          counts.set(fold(value), (counts.get(fold(value)) ?? 0) + 1);
          const known = spellings.get(fold(value));
          if (known === undefined || value < known) spellings.set(fold(value), value);
        }
      }
      if (counts.size > 0) options[name] = top(counts, (key) => spellings.get(key as string)!);
    }
    return {
      category_id: top(categories),
      options,
      price: [...buckets]
        .sort(([a], [b]) => a - b)
        .map(([bucket, count]) => ({ min: EDGES[bucket], max: EDGES[bucket + 1] ?? null, count })),
    };
  }

  /** Every product of a filtered list, by page or by cursor, in the order it lists them. */
  async function walk(
    f: Filters,
    sort: string,
    by: 'page' | 'cursor',
    as: Account = user,
    pageSize = 3,
  ): Promise<number[]> {
    const ids: number[] = [];
    let cursor: string | null = null;
    for (let page = 1; page <= 50; page++) {
      const position: Record<string, string | number> =
        by === 'cursor' && cursor !== null ? { cursor } : { page };
      const body = await list(queryOf(f, { sort, page_size: pageSize, ...position }), as);
      ids.push(...body.data.map((p) => p.id));
      cursor = body.meta.next_cursor;
      if (by === 'cursor' ? cursor === null : body.data.length < pageSize) return ids;
    }
    throw new Error('more than 50 pages');
  }

  /** The brute force's order for a sort: the field, then id in the same direction. */
  function sorted(products: Product[], sort: string): number[] {
    const descending = sort.startsWith('-');
    const field = sort.replace(/^-/, '') as 'id' | 'price' | 'name' | 'created_at';
    const value = (p: Product) => (field === 'price' ? Math.round(p.price * 100) : p[field]);
    return [...products]
      .sort((a, b) => {
        const order = byValue(value(a), value(b)) || a.id - b.id;
        return descending ? -order : order;
      })
      .map((p) => p.id);
  }

  async function readBack(): Promise<void> {
    const live: Product[] = [];
    for (const id of created) {
      const res = await api().get(`/api/v1/products/${id}`).auth(admin.token, { type: 'bearer' });
      expect([200, 404]).toContain(res.status);
      if (res.status === 200) live.push(res.body.data as Product);
    }
    catalogue = live;
  }

  /** product_option_values as the database holds it, and as the live products' options say it must be. */
  async function indexRows(): Promise<{ stored: string[]; expected: string[] }> {
    const rows: Array<{ product_id: number | string; name: string; value_key: string; value: string }> =
      await t.dataSource.query('SELECT product_id, name, value_key, value FROM product_option_values');
    const stored = rows
      .map((r) => JSON.stringify([Number(r.product_id), r.name, r.value_key, r.value]))
      .sort();
    const expected = catalogue
      .flatMap((p) =>
        p.options.flatMap((o) => o.values.map((v) => JSON.stringify([p.id, o.name, fold(v), v]))),
      )
      .sort();
    return { stored, expected };
  }

  beforeAll(async () => {
    t = await startTestApp(ADMIN_ENV);
    admin = await loginAdmin(t);
    user = await createAccount(t);
    const category = async (name: string, parent: number | null) => {
      const res = await api()
        .post('/api/v1/categories')
        .auth(admin.token, { type: 'bearer' })
        .send({ name, parent_id: parent })
        .expect(201);
      parents.set(res.body.data.id, parent);
      return res.body.data.id as number;
    };
    cat.A = await category('Apparel', null);
    cat.A1 = await category('Tops', cat.A);
    cat.A1a = await category('Shirts', cat.A1);
    cat.A2 = await category('Scarves', cat.A);
    cat.B = await category('Home', null);

    const materials = ['Linen', 'Wool', 'Cotton', 'Silk'];
    const kinds = ['shirt', 'scarf', 'mug', 'lamp', 'sock'];
    const prices = [
      4.5, 9.99, 10, 17.5, 24.99, 25, 42, 50, 64.9, 99.99, 100, 180, 250, 320, 499.99, 500, 750, 1000, 1500,
    ];
    const sizes = ['S', 'M', 'L', 'XL'];
    const colors = ['Red', 'Blue', 'Green', 'Black'];
    const categories = [cat.A, cat.A1, cat.A1a, cat.A2, cat.B];
    const patterns = Array.from({ length: 25 }, (_, i) => `P${String(i + 1).padStart(2, '0')}`);
    for (let i = 0; i < 42; i++) {
      const options: ProductOption[] = [];
      if (i % 5 !== 4) options.push({ name: 'Size', values: sizes.filter((_, k) => (i + k) % 3 !== 0) });
      if (i % 3 !== 2) {
        options.push({ name: 'Color', values: [colors[i % 4], ...(i % 2 ? [colors[(i + 1) % 4]] : [])] });
      }
      // Other spellings of one value (folded alike), and a name that differs from Size by case only.
      if (i === 7) options.splice(1, 1, { name: 'Color', values: ['red'] });
      if (i === 13) options.splice(1, 1, { name: 'Color', values: ['ＲＥＤ', 'Green'] });
      if (i === 20) options.splice(0, 1, { name: 'size', values: ['M'] });
      // 25 values of Pattern: P01-P05 on three products, P06-P10 on two, the rest on one.
      if (i === 9) options.push({ name: 'Pattern', values: patterns });
      if (i === 10) options.push({ name: 'Pattern', values: patterns.slice(0, 10) });
      if (i === 11) options.push({ name: 'Pattern', values: patterns.slice(0, 5) });
      const res = await api()
        .post('/api/v1/products')
        .auth(admin.token, { type: 'bearer' })
        .send({
          name: `${materials[i % 4]} ${kinds[Math.floor(i / 4) % 5]} ${i}`,
          description: i % 4 === 0 ? 'Washed linen weave' : 'Plain',
          price: prices[i % prices.length],
          stock: i % 6 === 0 ? 0 : 5 + i,
          category_id: categories[i % 5],
          options,
        })
        .expect(201);
      const id = res.body.data.id as number;
      created.push(id);
      if (i % 7 === 3) {
        await api()
          .put(`/api/v1/products/${id}`)
          .auth(admin.token, { type: 'bearer' })
          .send({ is_active: false })
          .expect(200);
      }
      if (i % 11 === 5) {
        await api().delete(`/api/v1/products/${id}`).auth(admin.token, { type: 'bearer' }).expect(200);
      }
    }
    await readBack();
  });

  afterAll(async () => {
    // Closing an instance on SQLite closes the file for all of them: the first one last.
    await capped?.close();
    await t?.close();
  });

  it('the catalogue has what the tests need: deleted, inactive and out-of-stock products, every bucket', () => {
    expect(catalogue.length).toBe(42 - 4);
    expect(catalogue.filter((p) => !p.is_active).length).toBeGreaterThanOrEqual(4);
    expect(catalogue.filter((p) => p.stock === 0).length).toBeGreaterThanOrEqual(5);
    expect(expectedFacets({}).price).toHaveLength(EDGES.length);
  });

  it('product_option_values holds exactly the live products’ option values (none of the deleted ones)', async () => {
    const { stored, expected } = await indexRows();
    expect(stored).toEqual(expected);
    const deleted = created.filter((id) => !catalogue.some((p) => p.id === id));
    expect(deleted).toHaveLength(4);
    const [{ n }] = await t.dataSource.query(
      `SELECT COUNT(*) AS n FROM product_option_values WHERE product_id IN (${deleted.join(', ')})`,
    );
    expect(Number(n)).toBe(0);
  });

  const combinations: Array<[string, Filters]> = [
    ['no filter', {}],
    ['search', { search: 'linen' }],
    ['a search of two words, the last a prefix', { search: 'linen sh' }],
    ['a category exactly', { category_id: 0 }],
    ['a category subtree', { category_id: -1, include_descendants: true }],
    ['price_min and price_max', { price_min: 10, price_max: 100 }],
    ['min_price and max_price (the old names)', { min_price: 25, max_price: 500 }],
    ['in_stock', { in_stock: true }],
    ['in_stock=false', { in_stock: false }],
    ['one option value', { option: { Size: ['M'] } }],
    ['two values of one option, ignoring case', { option: { Size: ['m', 'XL'] } }],
    ['two options', { option: { Size: ['L'], Color: ['RED'] } }],
    ['an option name that differs by case only is another option', { option: { size: ['M'] } }],
    [
      'everything at once',
      {
        search: 'linen',
        category_id: -1,
        include_descendants: true,
        price_min: 5,
        price_max: 1000,
        in_stock: true,
        option: { Size: ['M', 'L'], Color: ['red', 'blue'] },
      },
    ],
  ];
  /** Category ids are known once the catalogue is made: 0 stands for A1a, -1 for A's subtree. */
  const resolve = (f: Filters): Filters =>
    f.category_id === 0
      ? { ...f, category_id: cat.A1a }
      : f.category_id === -1
        ? { ...f, category_id: cat.A }
        : f;

  it.each(combinations)(
    'filters by %s: the products, the total and every facet are those of a brute-force count',
    async (_name, given) => {
      const f = resolve(given);
      const expected = matching(f);
      expect(expected.length).toBeGreaterThan(0);
      const body = await list(queryOf(f, { facets: ALL_FACETS, page_size: 100 }));
      expect(body.data.map((p) => p.id).sort((a, b) => a - b)).toEqual(
        expected.map((p) => p.id).sort((a, b) => a - b),
      );
      expect(body.meta.total).toBe(expected.length);
      expect(body.meta.facets).toEqual(expectedFacets(f));
      expect(body.meta.facets_exact).toBe(true);
    },
  );

  it('each facet leaves its own filter out and keeps the others', async () => {
    const f: Filters = {
      category_id: cat.A1,
      price_min: 10,
      price_max: 99.99,
      option: { Size: ['M'], Color: ['Blue'] },
    };
    const { meta } = await list(queryOf(f, { facets: ALL_FACETS }));
    const facets = meta.facets!;
    // The category facet: other categories than A1 too, each counted under the price and option filters.
    expect(facets.category_id!.length).toBeGreaterThan(1);
    for (const { value, count } of facets.category_id!) {
      expect(count).toBe(matching({ ...f, category_id: value as number }).length);
    }
    // Size's values under Color's filter but not Size's; Color's under Size's but not Color's.
    for (const { value, count } of facets.options!.Size) {
      expect(count).toBe(matching({ ...f, option: { Color: ['Blue'], Size: [value as string] } }).length);
    }
    for (const { value, count } of facets.options!.Color) {
      expect(count).toBe(matching({ ...f, option: { Size: ['M'], Color: [value as string] } }).length);
    }
    expect(facets.options!.Size.length).toBeGreaterThan(1);
    // Prices outside the bounds are counted.
    const sum = facets.price!.reduce((total, bucket) => total + bucket.count, 0);
    expect(sum).toBe(matching(f, false, 'price').length);
    expect(sum).toBeGreaterThan(matching(f).length);
    expect(facets).toEqual(expectedFacets(f));
  });

  it('only the asked facets are given; without `facets` the meta has none', async () => {
    const f: Filters = { option: { Color: ['Red'] } };
    const price = await list(queryOf(f, { facets: 'price' }));
    expect(Object.keys(price.meta.facets!)).toEqual(['price']);
    expect(price.meta.facets!.price).toEqual(expectedFacets(f).price);
    const two = await list(queryOf(f, { facets: 'options,category_id,options' }));
    expect(Object.keys(two.meta.facets!).sort()).toEqual(['category_id', 'options']);
    const none = await list(queryOf(f));
    expect(Object.keys(none.meta).sort()).toEqual([
      'next_cursor',
      'page',
      'page_size',
      'total',
      'total_page',
    ]);
  });

  it('an option name is compared exactly, a value ignoring case after NFKC; a value is shown as spelled', async () => {
    const red = await list(queryOf({ option: { Color: ['ｒｅｄ'] } }, { facets: 'options', page_size: 100 }));
    const spelled = (spelling: string) =>
      catalogue.filter(
        (p) => p.is_active && p.options.some((o) => o.name === 'Color' && o.values.includes(spelling)),
      );
    const ids = red.data.map((p) => p.id);
    for (const spelling of ['Red', 'red', 'ＲＥＤ']) {
      expect(spelled(spelling).length).toBeGreaterThan(0);
      for (const p of spelled(spelling)) expect(ids).toContain(p.id);
    }
    // One value for the three spellings, shown as the first in code-point order.
    const shown = red.meta.facets!.options!.Color.filter((v) => fold(String(v.value)) === 'red');
    expect(shown).toEqual([{ value: 'Red', count: ids.length }]);
    // `size` and `Size` are two options.
    const lower = await list(queryOf({ option: { size: ['M'] } }, { page_size: 100 }));
    expect(lower.data.map((p) => p.id)).toEqual(matching({ option: { size: ['M'] } }).map((p) => p.id));
    expect(lower.meta.total).toBe(1);
  });

  it('a facet gives at most 20 values, most products first, ties by value', async () => {
    const { meta } = await list(queryOf({}, { facets: 'options' }), admin);
    const patterns = meta.facets!.options!.Pattern;
    expect(patterns).toHaveLength(20);
    expect(patterns.slice(0, 5)).toEqual(
      ['P01', 'P02', 'P03', 'P04', 'P05'].map((value) => ({ value, count: 3 })),
    );
    expect(patterns.slice(5, 10).map((v) => v.count)).toEqual([2, 2, 2, 2, 2]);
    expect(patterns.slice(10).map((v) => v.value)).toEqual([
      'P11',
      'P12',
      'P13',
      'P14',
      'P15',
      'P16',
      'P17',
      'P18',
      'P19',
      'P20',
    ]);
    const [{ n }] = await t.dataSource.query(
      "SELECT COUNT(DISTINCT value_key) AS n FROM product_option_values WHERE name = 'Pattern'",
    );
    expect(Number(n)).toBe(25);
  });

  it('inactive products count for admins only; deleted ones never', async () => {
    const asAdmin = await list(queryOf({}, { facets: ALL_FACETS }), admin);
    expect(asAdmin.meta.facets).toEqual(expectedFacets({}, true));
    expect(asAdmin.meta.total).toBe(catalogue.length);
    const activeOnly = await list(queryOf({ is_active: true }, { facets: ALL_FACETS }), admin);
    expect(activeOnly.meta.facets).toEqual(expectedFacets({}));
    const inactive = await list(
      queryOf({ is_active: false, option: { Size: ['S'] } }, { facets: ALL_FACETS }),
      admin,
    );
    expect(inactive.meta.facets).toEqual(expectedFacets({ is_active: false, option: { Size: ['S'] } }, true));
    expect(inactive.meta.total).toBe(matching({ is_active: false, option: { Size: ['S'] } }, true).length);
  });

  it.each(['id', '-id', 'price', '-price', 'name', '-name', 'created_at', '-created_at'])(
    'sort=%s over filtered pages: by page and by cursor, every product once, in order',
    async (sort) => {
      const f: Filters = {
        category_id: cat.A,
        include_descendants: true,
        price_min: 9.99,
        in_stock: true,
        option: { Size: ['M', 'L'] },
      };
      const expected = sorted(matching(f), sort);
      expect(expected.length).toBeGreaterThan(6);
      expect(await walk(f, sort, 'cursor')).toEqual(expected);
      expect(await walk(f, sort, 'page')).toEqual(expected);
      const searched: Filters = {
        ...f,
        search: 'linen',
        include_descendants: undefined,
        category_id: undefined,
      };
      expect(await walk(searched, sort, 'cursor', user, 2)).toEqual(sorted(matching(searched), sort));
    },
  );

  it('a search in relevance order with filters and facets pages through every match once', async () => {
    const f: Filters = { search: 'linen', option: { Color: ['red', 'Green', 'Blue'] } };
    const expected = matching(f)
      .map((p) => p.id)
      .sort((a, b) => a - b);
    const walked = await walk(f, 'relevance', 'page', user, 2);
    expect([...walked].sort((a, b) => a - b)).toEqual(expected);
    const { meta } = await list(queryOf(f, { facets: ALL_FACETS }));
    expect(meta.facets).toEqual(expectedFacets(f));
  });

  it("reads each facet filter's matches once, then counts them by key in the index tables; without `facets` runs none", async () => {
    const statementsOf = async (query: string) => {
      const logQuery = jest.spyOn(t.dataSource.logger, 'logQuery');
      await list(query);
      const statements = logQuery.mock.calls.map(([sql]) => sql);
      logQuery.mockRestore();
      return statements;
    };
    const f: Filters = {
      category_id: cat.A,
      include_descendants: true,
      option: { Size: ['M'], Color: ['Red'] },
    };
    const isFacetCount = (sql: string) =>
      sql.includes('GROUP BY category_id') || sql.includes('GROUP BY name, value_key');
    const plain = await statementsOf(queryOf(f, { page_size: 2 }));
    expect(plain.filter(isFacetCount)).toEqual([]);
    // The filter reads the option values' index, never product_options.
    expect(plain.filter((sql) => sql.includes('product_options'))).toEqual([]);
    expect(
      plain.filter((sql) => sql.includes('product_option_values v WHERE v.name = ?')).length,
    ).toBeGreaterThan(0);
    const faceted = await statementsOf(queryOf(f, { page_size: 2, facets: ALL_FACETS }));
    // Four filters: without the category (category facet), the list's own (price facet, the options but Size
    // and Color), without Size (Size's values), without Color (Color's values): each one's matches read once,
    // then two counts over the products' rows and three over the option values.
    const counts = faceted.filter(isFacetCount);
    expect(counts.filter((sql) => sql.includes('FROM products WHERE id IN'))).toHaveLength(2);
    expect(
      counts.filter((sql) => sql.includes('FROM product_option_values WHERE product_id IN')),
    ).toHaveLength(3);
    // (Counted by kind: the instance's background work, its pollers and jobs, logs statements too.)
    const idReads = (statements: string[]) =>
      statements.filter((sql) => /^(WITH [^]*)?SELECT (DISTINCT )?p\.id AS id FROM /.test(sql));
    expect(idReads(plain)).toHaveLength(0);
    expect(idReads(faceted)).toHaveLength(4);
    expect(faceted.filter((sql) => sql.includes('product_options '))).toEqual([]);
  });

  it('facets_exact is false when a facet has more matches than SEARCH_TOTAL_LIMIT: it counts the first ones', async () => {
    const five = await startTestApp({ DATABASE_URL: t.databaseUrl, SEARCH_TOTAL_LIMIT: '5' });
    capped = five;
    const all = await list(queryOf({}, { facets: ALL_FACETS }), user, five);
    expect(all.meta.facets_exact).toBe(false);
    const full = expectedFacets({});
    const sum = (values: Array<{ count: number }>) => values.reduce((total, v) => total + v.count, 0);
    // Each product has one category and one price: the facets counted 5 products.
    expect(sum(all.meta.facets!.category_id!)).toBe(5);
    expect(sum(all.meta.facets!.price!)).toBe(5);
    for (const { value, count } of all.meta.facets!.category_id!) {
      expect(count).toBeLessThanOrEqual(full.category_id.find((v) => v.value === value)!.count);
    }
    for (const [name, values] of Object.entries(all.meta.facets!.options!)) {
      for (const { value, count } of values) {
        expect(count).toBeLessThanOrEqual(full.options[name].find((v) => v.value === value)!.count);
        expect(count).toBeLessThanOrEqual(5);
      }
    }

    // A result of at most 5, whose every facet's query has at most 5 matches too: exact.
    const few: Filters = { category_id: cat.B, option: { Size: ['XL'] }, price_min: 100 };
    expect(matching(few, false, 'category_id').length).toBeLessThanOrEqual(5);
    expect(matching(few, false, 'price').length).toBeLessThanOrEqual(5);
    expect(matching(few, false, 'option:Size').length).toBeLessThanOrEqual(5);
    const exact = await list(queryOf(few, { facets: ALL_FACETS }), user, five);
    expect(exact.meta.facets_exact).toBe(true);
    expect(exact.meta.facets).toEqual(expectedFacets(few));

    // The result itself is small, but the Pattern values' query (Pattern's filter left out) has more than 5.
    const narrow: Filters = { option: { Size: ['XL'], Pattern: ['P01'] } };
    expect(matching(narrow).length).toBeLessThanOrEqual(5);
    expect(matching(narrow, false, 'option:Pattern').length).toBeGreaterThan(5);
    const inexact = await list(queryOf(narrow, { facets: 'options' }), user, five);
    expect(inexact.meta.facets_exact).toBe(false);
    const onlyPrice = await list(queryOf(narrow, { facets: 'price' }), user, five);
    expect(onlyPrice.meta.facets_exact).toBe(true);
    expect(onlyPrice.meta.facets!.price).toEqual(expectedFacets(narrow).price);
  });

  it('refuses a bad option, facets or price bounds with a 400 naming the field and the rule', async () => {
    const generation = async () =>
      Number((await t.dataSource.query('SELECT generation FROM catalog_state WHERE id = 1'))[0].generation);
    const before = { generation: await generation(), index: await indexRows() };
    const eleven = Array.from({ length: 11 }, (_, i) => `option[O${i}]=x`).join('&');
    const twentyOne = Array.from({ length: 21 }, (_, i) => `option[Size]=v${i}`).join('&');
    const cases: Array<[string, string, string]> = [
      ['option=M', 'option', 'isObject'],
      ['option[Size]=', 'option[Size]', 'optionValue'],
      ['option[Size]=%20', 'option[Size]', 'optionValue'],
      [`option[Size]=${'x'.repeat(51)}`, 'option[Size]', 'optionValue'],
      ['option[]=M', 'option[]', 'optionName'],
      [`option[${'n'.repeat(51)}]=M`, `option[${'n'.repeat(51)}]`, 'optionName'],
      [eleven, 'option', 'maxOptions'],
      [twentyOne, 'option[Size]', 'maxValues'],
      ['option[Size][x]=M', 'option[Size][x]', 'whitelistValidation'],
      ['option=M&option[Size]=M', 'option', 'isObject'],
      ['facets=colour', 'facets', 'isIn'],
      ['facets=', 'facets', 'isIn'],
      ['facets=price&facets=options', 'facets', 'isIn'],
      ['facets=price,,options', 'facets', 'isIn'],
      ['price_min=50&price_max=10', 'price_min', 'notAboveMaxPrice'],
      ['price_min=50&max_price=10', 'price_min', 'notAboveMaxPrice'],
      ['min_price=50&max_price=10', 'min_price', 'notAboveMaxPrice'],
      ['price_min=5&min_price=6', 'price_min', 'sameAsMinPrice'],
      ['price_max=5&max_price=6', 'price_max', 'sameAsMaxPrice'],
      ['price_min=1.234', 'price_min', 'isMoney'],
    ];
    for (const [query, field, rule] of cases) {
      const answer = await refusal(query);
      expect({ query, ...answer }).toEqual({
        query,
        status: 400,
        code: 400,
        errors: expect.arrayContaining([expect.objectContaining({ field, rule })]),
      });
    }
    expect((await refusal('price_min=5&min_price=5')).status).toBe(200);
    const maxed = Array.from({ length: 10 }, (_, i) => `option[O${i}]=x`).join('&');
    expect((await refusal(maxed)).status).toBe(200);
    expect((await refusal(Array.from({ length: 20 }, (_, i) => `option[Size]=v${i}`).join('&'))).status).toBe(
      200,
    );
    expect({ generation: await generation(), index: await indexRows() }).toEqual(before);
  });

  it('an option change (PUT) and a delete change the filters and the facets at once', async () => {
    const target = catalogue.find(
      (p) =>
        p.is_active &&
        p.options.some((o) => o.name === 'Size' && o.values.includes('M')) &&
        p.category_id === cat.A2,
    )!;
    expect(target).toBeDefined();
    const f: Filters = { category_id: cat.A2 };
    const facetsNow = async () => (await list(queryOf(f, { facets: ALL_FACETS }))).meta.facets;
    const sizeM = async () =>
      (await list(queryOf({ ...f, option: { Size: ['M'] } }, { page_size: 100 }))).data.map((p) => p.id);
    expect(await sizeM()).toContain(target.id);
    const mBefore = (await facetsNow())!.options!.Size.find((v) => v.value === 'M')!.count;

    await api()
      .put(`/api/v1/products/${target.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({
        options: [
          { name: 'Size', values: ['XXL'] },
          { name: 'Fit', values: ['Slim'] },
        ],
      })
      .expect(200);
    await readBack();
    expect(await sizeM()).not.toContain(target.id);
    const changed = (await facetsNow())!;
    expect(changed.options!.Size.find((v) => v.value === 'M')?.count ?? 0).toBe(mBefore - 1);
    expect(changed.options!.Size.find((v) => v.value === 'XXL')).toEqual({ value: 'XXL', count: 1 });
    expect(changed.options!.Fit).toEqual([{ value: 'Slim', count: 1 }]);
    expect(changed).toEqual(expectedFacets(f));
    expect((await list(queryOf({ option: { Size: ['xxl'] } }))).data.map((p) => p.id)).toEqual([target.id]);
    const index = await indexRows();
    expect(index.stored).toEqual(index.expected);

    await api().delete(`/api/v1/products/${target.id}`).auth(admin.token, { type: 'bearer' }).expect(200);
    await readBack();
    const after = (await facetsNow())!;
    expect(after.options!.Size.find((v) => v.value === 'XXL')).toBeUndefined();
    expect(after.options!.Fit).toBeUndefined();
    expect(after).toEqual(expectedFacets(f));
    expect((await list(queryOf({ option: { Size: ['XXL'] } }))).meta.total).toBe(0);
    const rows = await t.dataSource.query('SELECT * FROM product_option_values WHERE product_id = ?', [
      target.id,
    ]);
    expect(rows).toEqual([]);
  });

  it('a product removed from the table takes its option values with it (foreign key cascade)', async () => {
    const res = await api()
      .post('/api/v1/products')
      .auth(admin.token, { type: 'bearer' })
      .send({
        name: 'Cascade test',
        price: 3,
        category_id: cat.B,
        options: [{ name: 'Size', values: ['S', 'M'] }],
      })
      .expect(201);
    const id = res.body.data.id as number;
    const rowsOf = async () =>
      Number(
        (
          await t.dataSource.query('SELECT COUNT(*) AS n FROM product_option_values WHERE product_id = ?', [
            id,
          ])
        )[0].n,
      );
    expect(await rowsOf()).toBe(2);
    await t.dataSource.query('DELETE FROM products WHERE id = ?', [id]);
    expect(await rowsOf()).toBe(0);
  });

  it('the migration backfills the table from the live products’ options, and its revert drops it', async () => {
    const before = await indexRows();
    expect(before.stored).toEqual(before.expected);
    await revertThrough(t.dataSource, 'CreateProductOptionValues1763803900000');
    await expect(t.dataSource.query('SELECT COUNT(*) AS n FROM product_option_values')).rejects.toThrow();
    await t.dataSource.runMigrations();
    expect(await indexRows()).toEqual(before);
    const body = await list(queryOf({ option: { Color: ['red'] } }, { facets: ALL_FACETS, page_size: 100 }));
    expect(body.meta.facets).toEqual(expectedFacets({ option: { Color: ['red'] } }));
  });
});
