import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { createProduct, type ProductInput } from './support/products.js';
import { startTestApp, TestApp } from './support/test-app.js';

interface ListBody {
  data: Array<{ id: number; name: string; price: number }>;
  meta: {
    page: number | null;
    page_size: number;
    total: number;
    total_page: number;
    next_cursor: string | null;
  };
}

describe('product search and cursor pagination', () => {
  let t: TestApp;
  let admin: Account;
  let user: Account;

  const api = () => request(t.url);
  const list = async (query: string, as: Account = user): Promise<ListBody> => {
    const res = await api().get(`/api/v1/products?${query}`).auth(as.token, { type: 'bearer' });
    expect({ status: res.status, body: res.status === 200 ? 'ok' : res.body }).toEqual({
      status: 200,
      body: 'ok',
    });
    return res.body as ListBody;
  };
  const search = (text: string, rest = '') => list(`search=${encodeURIComponent(text)}${rest}`);
  const ids = (body: ListBody) => body.data.map((p) => p.id);
  const add = async (input: ProductInput) => (await createProduct(t, admin.token, input)).id;

  beforeAll(async () => {
    t = await startTestApp(ADMIN_ENV);
    admin = await loginAdmin(t);
    user = await createAccount(t);
  });

  afterAll(async () => {
    await t.close();
  });

  describe('words, prefixes and literal characters', () => {
    const CATEGORY = 701;
    const p: Record<string, number> = {};

    beforeAll(async () => {
      p.desk = await add({
        name: 'Brass desk lamp',
        description: 'Warm light for the study',
        category_id: CATEGORY,
      });
      p.floor = await add({
        name: 'Floor lamp',
        description: 'Tall lamp with a linen shade',
        category_id: CATEGORY,
      });
      p.organiser = await add({ name: 'Desk organiser', description: 'Bamboo trays', category_id: CATEGORY });
      p.shade = await add({
        name: 'Lampshade',
        description: 'Linen shade for a floor lamp',
        category_id: CATEGORY,
      });
      p.wool = await add({
        name: 'Operators +x -y',
        description: '100% wool, code a_b',
        category_id: CATEGORY,
      });
      p.tv = await add({ name: 'TV stand', description: 'Oak, for a TV up to 55 in', category_id: CATEGORY });
      p.hidden = await add({ name: 'Hidden lamp', description: 'Retired', category_id: CATEGORY });
      await api()
        .put(`/api/v1/products/${p.hidden}`)
        .auth(admin.token, { type: 'bearer' })
        .send({ is_active: false })
        .expect(200);
    });

    it('a word matches a whole word of the name or the description, ignoring case', async () => {
      expect(ids(await search('LINEN', '&sort=id'))).toEqual([p.floor, p.shade]);
      expect(ids(await search('bamboo'))).toEqual([p.organiser]);
    });

    it('several words must all match; only the last one is a prefix', async () => {
      expect(ids(await search('desk lamp'))).toEqual([p.desk]);
      expect(ids(await search('floor linen', '&sort=id'))).toEqual([p.floor, p.shade]);
      expect(ids(await search('lamp des'))).toEqual([p.desk]);
      expect(ids(await search('lam desk'))).toEqual([]);
    });

    it('the last word matches as a prefix; inactive products stay hidden from users', async () => {
      // `lamps` begins `lampshade`; `lamp` is its stem and one typo away (ranked below, the heavier first).
      expect(ids(await search('lamps'))).toEqual([p.shade, p.floor, p.desk]);
      expect(ids(await search('lam', '&sort=id'))).toEqual([p.desk, p.floor, p.shade]);
      const asAdmin = await list(`search=lam&sort=id&is_active=false`, admin);
      expect(ids(asAdmin)).toEqual([p.hidden]);
    });

    it('no match is an empty page with true meta', async () => {
      const body = await search('zzzz');
      expect(body.data).toEqual([]);
      expect(body.meta).toEqual({
        page: 1,
        page_size: 10,
        total: 0,
        total_exact: true,
        total_page: 0,
        next_cursor: null,
      });
    });

    it('words shorter than the full-text minimum and stopwords still match as words', async () => {
      expect(ids(await search('tv'))).toEqual([p.tv]);
      expect(ids(await search('55 in'))).toEqual([p.tv]);
      expect(ids(await search('t', '&sort=id'))).toEqual([p.desk, p.floor, p.organiser, p.tv]);
      expect(ids(await search('with a linen'))).toEqual([p.floor]);
      expect(ids(await search('for the study'))).toEqual([p.desk]);
    });

    it('operator characters are never operators: the same result as the bare words, never a 500', async () => {
      // As operators, -floor would exclude the floor lamp and the shade, "..." would ask for a phrase.
      expect(ids(await search('+lamp -floor', '&sort=id'))).toEqual([p.floor, p.shade]);
      expect(ids(await search('"linen lamp"', '&sort=id'))).toEqual([p.floor, p.shade]);
      const nasty = [
        '+desk +lamp',
        'desk* lamp*',
        '(desk) ~lamp',
        '<desk >lamp',
        'desk @3 lamp',
        '"desk lamp"@2',
        "desk' lamp",
        'desk\\ lamp',
        'desk AND lamp',
        'desk OR NOT lamp',
        'desk: lamp^',
      ];
      for (const text of nasty) {
        const words = text.match(/[\p{L}\p{M}\p{N}_]+/gu)!.join(' ');
        expect({ text, ids: ids(await search(text, '&sort=id')) }).toEqual({
          text,
          ids: ids(await search(words, '&sort=id')),
        });
      }
      for (const text of ['+', '-', '*', '"', '()', '~', '<>', '@', '@@@', '%', '%%', '"*"', '(*)']) {
        expect({ text, ids: ids(await search(text)) }).toEqual({ text, ids: [] });
      }
    });

    it('% and _ are literal: never wildcards', async () => {
      expect(ids(await search('100%'))).toEqual([p.wool]);
      expect(ids(await search('a_b'))).toEqual([p.wool]);
      expect(ids(await search('a_'))).toEqual([p.wool]);
      expect(ids(await search('_b'))).toEqual([]);
      expect(ids(await search('a%b'))).toEqual([]);
      expect(ids(await search('l_mp'))).toEqual([]);
    });

    it('follows the product: a renamed product is found by its new words only, a deleted one not at all', async () => {
      const id = await add({ name: 'Quill pen', description: 'Goose feather', category_id: CATEGORY });
      expect(ids(await search('quill'))).toEqual([id]);
      await api()
        .put(`/api/v1/products/${id}`)
        .auth(admin.token, { type: 'bearer' })
        .send({ name: 'Fountain pen', description: 'Steel nib' })
        .expect(200);
      expect(ids(await search('quill'))).toEqual([]);
      expect(ids(await search('feather'))).toEqual([]);
      expect(ids(await search('fountain nib'))).toEqual([id]);
      await api().delete(`/api/v1/products/${id}`).auth(admin.token, { type: 'bearer' }).expect(200);
      expect(ids(await search('fountain'))).toEqual([]);
      const rows = await t.dataSource.query('SELECT name, deleted_at FROM products WHERE id = ?', [id]);
      expect(rows[0].name).toBe('Fountain pen');
      expect(rows[0].deleted_at).not.toBeNull();
    });
  });

  describe('relevance', () => {
    const CATEGORY = 702;

    it('orders by relevance by default when searching, ties by id; other sorts on request', async () => {
      const once = await add({
        name: 'Copper kettle',
        description: 'Polished copper',
        category_id: CATEGORY,
      });
      const often = await add({ name: 'Kettle', description: 'Kettle kettle kettle', category_id: CATEGORY });
      const twice = await add({ name: 'Kettle stand', description: 'Holds a kettle', category_id: CATEGORY });
      const body = await search('kettle');
      expect(ids(body)).toEqual([often, twice, once]);
      expect(body.meta.next_cursor).toBeNull();
      expect(ids(await search('kettle', '&sort=relevance'))).toEqual([often, twice, once]);
      expect(ids(await search('kettle', '&sort=id'))).toEqual([once, often, twice]);

      const first = await add({ name: 'Teapot', description: 'Teapot', category_id: CATEGORY });
      const second = await add({ name: 'Teapot', description: 'Teapot', category_id: CATEGORY });
      expect(ids(await search('teapot'))).toEqual([first, second]);
      expect(ids(await search('teapot', '&sort=-id'))).toEqual([second, first]);
      const paged = await search('kettle', '&page=2&page_size=2');
      expect(ids(paged)).toEqual([once]);
      expect(paged.meta).toEqual({
        page: 2,
        page_size: 2,
        total: 3,
        total_exact: true,
        total_page: 2,
        next_cursor: null,
      });
    });

    it('search combines with category, price and stock filters', async () => {
      const cheap = await add({ name: 'Oak chair', price: 10, stock: 3, category_id: 703 });
      const dear = await add({ name: 'Oak chair deluxe', price: 50, stock: 3, category_id: 703 });
      const empty = await add({ name: 'Oak chair', price: 12, stock: 0, category_id: 703 });
      await add({ name: 'Oak chair', price: 10, stock: 3, category_id: 704 });
      expect(ids(await search('oak chair', '&category_id=703&sort=id'))).toEqual([cheap, dear, empty]);
      expect(ids(await search('oak chair', '&category_id=703&max_price=20&sort=id'))).toEqual([cheap, empty]);
      expect(ids(await search('chair', '&category_id=703&min_price=11'))).toContain(dear);
      expect(ids(await search('chair', '&category_id=703&min_price=11&sort=price'))).toEqual([empty, dear]);
      expect(ids(await search('oak', '&category_id=703&max_price=20&in_stock=true'))).toEqual([cheap]);
    });

    it.each([
      ['sort=relevance', 'sort', 'sort=relevance needs a search'],
      ['search=kettle&sort=relevance&cursor=eyJzIjoiaWQiLCJpIjoxfQ', 'cursor', 'cursor is not available'],
    ])('refuses %s with 400 naming %s', async (query, field, details) => {
      const res = await api()
        .get(`/api/v1/products?${query}`)
        .auth(user.token, { type: 'bearer' })
        .expect(400);
      expect(res.body.data.errors[0].field).toBe(field);
      expect(res.body.data.details).toContain(details);
    });
  });

  describe('cursor pagination', () => {
    const CATEGORY = 800;
    let serial = 0;
    const price = () => [3, 5, 5, 8][serial % 4];

    /** Products of the category as the list shows them, for comparing cursor walks with the database. */
    const addItem = async () => {
      serial += 1;
      return add({ name: `Item ${String(serial).padStart(4, '0')}`, price: price(), category_id: CATEGORY });
    };

    beforeAll(async () => {
      for (let i = 0; i < 30; i++) await addItem();
    });

    const sortKey: Record<
      string,
      (row: { id: number; name: string; price: number }) => [number | string, number]
    > = {
      id: (row) => [row.id, row.id],
      '-price': (row) => [row.price, row.id],
      name: (row) => [row.name, row.id],
      created_at: (row) => [row.id, row.id],
    };

    it.each(['id', '-price', 'name', 'created_at'])(
      'sort=%s: visits every product exactly once while products are inserted and deleted between pages',
      async (sort) => {
        const all = async () => {
          const rows: Array<{ id: number; name: string; price_cents: number }> = await t.dataSource.query(
            'SELECT id, name, price_cents FROM products WHERE category_id = ? AND deleted_at IS NULL',
            [CATEGORY],
          );
          return rows.map((row) => ({ id: row.id, name: row.name, price: row.price_cents / 100 }));
        };
        const descending = sort.startsWith('-');
        const after = (row: Parameters<(typeof sortKey)['id']>[0], last: typeof row) => {
          const [a, aid] = sortKey[sort](row);
          const [b, bid] = sortKey[sort](last);
          const order = a < b ? -1 : a > b ? 1 : aid - bid;
          return descending ? order < 0 : order > 0;
        };

        const seen: number[] = [];
        const deletedAhead = new Set<number>();
        const addedAhead = new Set<number>();
        const addedBehind = new Set<number>();
        let body = await list(`category_id=${CATEGORY}&sort=${sort}&page_size=4`);
        expect(body.meta.page).toBe(1);
        for (let round = 0; ; round++) {
          seen.push(...ids(body));
          if (body.meta.next_cursor === null) break;
          expect(body.data).toHaveLength(4);
          const last = body.data.at(-1)!;
          // Between pages: one product added, one not yet reached and one already seen deleted.
          const added = await addItem();
          const current = await all();
          (after(
            current.find((row) => row.id === added)!,
            last,
          )
            ? addedAhead
            : addedBehind
          ).add(added);
          const ahead = current.filter((row) => row.id !== added && after(row, last));
          const victim = ahead[round % Math.max(ahead.length, 1)];
          if (victim !== undefined) deletedAhead.add(victim.id);
          for (const id of [victim?.id, seen[round]]) {
            if (id === undefined) continue;
            await api().delete(`/api/v1/products/${id}`).auth(admin.token, { type: 'bearer' }).expect(200);
          }
          body = await list(
            `category_id=${CATEGORY}&sort=${sort}&page_size=4&cursor=${body.meta.next_cursor}`,
          );
          expect(body.meta.page).toBeNull();
          expect(body.meta.total).toBe((await all()).length);
        }
        expect(new Set(seen).size).toBe(seen.length);
        for (const id of deletedAhead) expect(seen).not.toContain(id);
        for (const id of addedAhead) if (!deletedAhead.has(id)) expect(seen).toContain(id);
        const remaining = (await all()).map((row) => row.id);
        expect(remaining.filter((id) => !seen.includes(id) && !addedBehind.has(id))).toEqual([]);
        expect(addedAhead.size + addedBehind.size).toBeGreaterThan(2);
        if (sort === 'id' || sort === 'created_at') expect(addedBehind.size).toBe(0);
      },
    );

    it('a cursor page equals the page of the same position by number', async () => {
      const first = await list(`category_id=${CATEGORY}&sort=-price&page_size=5`);
      const byCursor = await list(
        `category_id=${CATEGORY}&sort=-price&page_size=5&cursor=${first.meta.next_cursor}`,
      );
      const byPage = await list(`category_id=${CATEGORY}&sort=-price&page_size=5&page=2`);
      expect(ids(byCursor)).toEqual(ids(byPage));
      expect(byCursor.meta.next_cursor).toBe(byPage.meta.next_cursor);
      expect(byCursor.meta.total).toBe(byPage.meta.total);
    });

    it.each([
      ['not base64url', 'abc!', 'cursor must be a next_cursor returned by this list'],
      ['not JSON', Buffer.from('hello').toString('base64url'), 'cursor must be a next_cursor'],
      [
        'a negative id',
        Buffer.from('{"s":"id","i":-1}').toString('base64url'),
        'cursor must be a next_cursor',
      ],
      [
        'a wrong value type',
        `${Buffer.from('{"s":"price","v":"x","i":3}').toString('base64url')}&sort=price`,
        'cursor must be',
      ],
      [
        'a bad timestamp',
        `${Buffer.from('{"s":"created_at","v":"yesterday","i":3}').toString('base64url')}&sort=created_at`,
        'cursor must be a next_cursor',
      ],
      ['another sort', Buffer.from('{"s":"name","v":"a","i":3}').toString('base64url'), 'not sort=id'],
      ['too long', 'A'.repeat(2000), 'cursor must be shorter than or equal to 1024'],
    ])('refuses a cursor that is %s with 400 naming cursor', async (_what, cursor, details) => {
      const res = await api()
        .get(`/api/v1/products?cursor=${cursor}`)
        .auth(user.token, { type: 'bearer' })
        .expect(400);
      expect(res.body.code).toBe(400);
      expect(res.body.data.errors[0].field).toBe('cursor');
      expect(res.body.data.details).toContain(details);
    });
  });
});
