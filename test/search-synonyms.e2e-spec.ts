import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { SearchSynonyms } from '../src/search/search-synonyms.js';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { eventually } from './support/eventually.js';
import { expectRefusals } from './support/field-errors.js';
import { concurrentClient } from './support/http.js';
import { startTestApp, TestApp } from './support/test-app.js';

interface SynonymData {
  id: number;
  words: string[];
  one_way_from: string | null;
  created_at: string;
  updated_at: string;
}

const PATH = '/api/v1/search/synonyms';
/** The polling interval of both instances: another instance must see a change within it (plus one reload). */
const POLL_MS = 300;

// Runs on SQLite, and on MariaDB/MySQL with a mysql:// TEST_DATABASE_URL.
describe('search synonyms', () => {
  let t: TestApp;
  let admin: Account;
  let user: Account;

  const api = () => request(t.url);
  const synonyms = () => t.app.get(SearchSynonyms);
  /** The stored row, words parsed from their JSON text. */
  const row = async (id: number) => {
    const [found] = await t.dataSource.query('SELECT words, one_way_from FROM search_synonyms WHERE id = ?', [
      id,
    ]);
    return found === undefined
      ? undefined
      : { words: JSON.parse(found.words) as string[], one_way_from: found.one_way_from as string | null };
  };
  const count = async () =>
    Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM search_synonyms'))[0].n);
  const revision = async () =>
    Number((await t.dataSource.query('SELECT revision FROM search_synonyms_state WHERE id = 1'))[0].revision);
  const create = async (body: object) =>
    (await api().post(PATH).auth(admin.token, { type: 'bearer' }).send(body).expect(201)).body
      .data as SynonymData;

  beforeAll(async () => {
    t = await startTestApp({ ...ADMIN_ENV, SEARCH_SYNONYMS_POLL_MS: String(POLL_MS) });
    admin = await loginAdmin(t);
    user = await createAccount(t);
  });

  afterAll(async () => {
    await t.close();
  });

  it('POST: an admin creates an entry (201, words as written, stored, revision raised); the provider answers it at once', async () => {
    const before = { count: await count(), revision: await revision() };
    expect(synonyms().synonymsOf('tshirt')).toEqual([]);

    const res = await api()
      .post(PATH)
      .auth(admin.token, { type: 'bearer' })
      .send({ words: ['T-Shirt', 'Tee', 'top'] })
      .expect(201);
    expect(res.body).toEqual({
      code: 201,
      message: 'Created',
      data: {
        id: expect.any(Number),
        words: ['T-Shirt', 'Tee', 'top'],
        one_way_from: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
    expect(res.body.data.created_at).toBe(res.body.data.updated_at);
    expect(await row(res.body.data.id)).toEqual({ words: ['T-Shirt', 'Tee', 'top'], one_way_from: null });
    expect(await count()).toBe(before.count + 1);
    expect(await revision()).toBe(before.revision + 1);

    // Two-way: every word finds the others, as the search's normalized words.
    expect(synonyms().synonymsOf('tshirt')).toEqual(['tee', 'top']);
    expect(synonyms().synonymsOf('tee')).toEqual(['tshirt', 'top']);
    expect(synonyms().synonymsOf('top')).toEqual(['tshirt', 'tee']);
  });

  it('POST one-way: only a search for one_way_from finds the others; a word in two entries gets the union', async () => {
    const created = await create({ words: ['jumper', 'Sweater', 'pullover'], one_way_from: 'Sweater' });
    expect(created).toMatchObject({ words: ['jumper', 'Sweater', 'pullover'], one_way_from: 'Sweater' });
    expect(await row(created.id)).toEqual({
      words: ['jumper', 'Sweater', 'pullover'],
      one_way_from: 'Sweater',
    });
    expect(synonyms().synonymsOf('sweater')).toEqual(['jumper', 'pullover']);
    expect(synonyms().synonymsOf('jumper')).toEqual([]);
    expect(synonyms().synonymsOf('pullover')).toEqual([]);

    await create({ words: ['jumper', 'cardigan'] });
    expect(synonyms().synonymsOf('jumper')).toEqual(['cardigan']);
    expect(synonyms().synonymsOf('cardigan')).toEqual(['jumper']);
    await create({ words: ['sweater', 'hoodie'] });
    expect(synonyms().synonymsOf('sweater')).toEqual(['jumper', 'pullover', 'hoodie']);
    expect(synonyms().synonymsOf('hoodie')).toEqual(['sweater']);
  });

  it('users get 403 and callers without a token 401 on every route; nothing is written', async () => {
    const created = await create({ words: ['sofa', 'couch'] });
    const before = { count: await count(), revision: await revision() };
    const body = { words: ['denied', 'refused'] };
    for (const [method, path] of [
      ['get', PATH],
      ['post', PATH],
      ['get', `${PATH}/${created.id}`],
      ['patch', `${PATH}/${created.id}`],
      ['delete', `${PATH}/${created.id}`],
    ] as const) {
      const send = (req: request.Test) => (method === 'post' || method === 'patch' ? req.send(body) : req);
      const denied = await send(api()[method](path).auth(user.token, { type: 'bearer' })).expect(403);
      expect(denied.body).toEqual({
        code: 403,
        message: 'Forbidden',
        data: { details: 'Insufficient permission' },
      });
      const anonymous = await send(api()[method](path)).expect(401);
      expect({ method, path, code: anonymous.body.code }).toEqual({ method, path, code: 401 });
    }
    expect(await count()).toBe(before.count);
    expect(await revision()).toBe(before.revision);
    expect(await row(created.id)).toEqual({ words: ['sofa', 'couch'], one_way_from: null });
    expect(synonyms().synonymsOf('denied')).toEqual([]);
  });

  it('bad input is a 400 naming the field and rule; nothing is written and the revision stays', async () => {
    const before = { count: await count(), revision: await revision() };
    const twenty = Array.from({ length: 20 }, (_, i) => `w${i}`);
    await expectRefusals(
      (body) => api().post(PATH).auth(admin.token, { type: 'bearer' }).send(body),
      [
        [{}, 'words', 'isArray'],
        [{ words: 'tee' }, 'words', 'isArray'],
        [{ words: null }, 'words', 'isArray'],
        [{ words: ['tee'] }, 'words', 'arrayMinSize'],
        [{ words: [...twenty, 'w20'] }, 'words', 'arrayMaxSize'],
        [{ words: ['tee', 7] }, 'words', 'isString'],
        [{ words: ['tee', ''] }, 'words.1', 'minLength'],
        [{ words: ['tee', 'x'.repeat(65)] }, 'words.1', 'maxLength'],
        [{ words: ['   ', 'tee'] }, 'words.0', 'notBlank'],
        [{ words: ['tee', 't shirt'] }, 'words.1', 'singleWord'],
        [{ words: ['tee', 't/shirt'] }, 'words.1', 'singleWord'],
        [{ words: ['tee', 't--shirt'] }, 'words.1', 'singleWord'],
        [{ words: ['tee', '!!!'] }, 'words.1', 'singleWord'],
        [{ words: ['tshirt', 'tee', 'T-Shirt'] }, 'words.2', 'unique'],
        [{ words: ['Café', 'cafe'] }, 'words.1', 'unique'],
        [{ words: ['tee', 'top'], one_way_from: 'shirt' }, 'one_way_from', 'oneOfWords'],
        [{ words: ['tee', 'top'], one_way_from: 'tee top' }, 'one_way_from', 'oneOfWords'],
        [{ words: ['tee', 'top'], one_way_from: '' }, 'one_way_from', 'minLength'],
        [{ words: ['tee', 'top'], one_way_from: 'x'.repeat(65) }, 'one_way_from', 'maxLength'],
        [{ words: ['tee', 'top'], one_way_from: 3 }, 'one_way_from', 'isString'],
        [{ words: ['tee', 'top'], unknown: 1 }, 'unknown', 'whitelistValidation'],
      ],
    );
    // Every problem of the words together, each naming its word.
    const res = await api()
      .post(PATH)
      .auth(admin.token, { type: 'bearer' })
      .send({ words: ['tee', 'TEE', 'top hat', ''], one_way_from: 'shirt' })
      .expect(400);
    expect(res.body.data.errors).toEqual([
      {
        field: 'words.1',
        rule: 'unique',
        message: 'words.1 ("TEE") is the same word as words.0 ("tee") once normalized: tee',
      },
      {
        field: 'words.2',
        rule: 'singleWord',
        message:
          'words.2 must be one word (letters, digits and _, with hyphens or apostrophes only between them): "top hat"',
      },
      {
        field: 'words.3',
        rule: 'minLength',
        message: 'words.3 must be longer than or equal to 1 characters',
      },
      {
        field: 'one_way_from',
        rule: 'oneOfWords',
        message: 'one_way_from must be one of the words: "shirt" is not',
      },
    ]);
    expect(await count()).toBe(before.count);
    expect(await revision()).toBe(before.revision);

    // At the bounds: 20 words of 64 characters, one_way_from matched once normalized, null for two-way.
    const long = twenty.map((word) => word.padEnd(64, 'x'));
    expect(await create({ words: long })).toMatchObject({ words: long, one_way_from: null });
    expect(await create({ words: ['Men’s', 'mans'], one_way_from: "MEN'S" })).toMatchObject({
      words: ['Men’s', 'mans'],
      one_way_from: "MEN'S",
    });
    expect(synonyms().synonymsOf('mens')).toEqual(['mans']);
    expect(await create({ words: ['rug', 'mat'], one_way_from: null })).toMatchObject({ one_way_from: null });
    expect(await revision()).toBe(before.revision + 3);
  });

  it('GET one: an admin reads it as created; an unknown id 404; a malformed id 400 naming id', async () => {
    const created = await create({ words: ['lamp', 'light'], one_way_from: 'lamp' });
    const res = await api().get(`${PATH}/${created.id}`).auth(admin.token, { type: 'bearer' }).expect(200);
    expect(res.body).toEqual({ code: 200, message: 'OK', data: created });
    const missing = await api().get(`${PATH}/999999`).auth(admin.token, { type: 'bearer' }).expect(404);
    expect(missing.body).toEqual({
      code: 404,
      message: 'Not Found',
      data: { details: 'Search synonym 999999 not found' },
    });
    const bad = await api().get(`${PATH}/abc`).auth(admin.token, { type: 'bearer' }).expect(400);
    expect(bad.body.data.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'id', rule: 'isInt' })]),
    );
  });

  it('PATCH: only the fields sent change, updated_at moves, the provider answers the new words at once', async () => {
    const created = await create({ words: ['desk', 'table'] });
    expect(synonyms().synonymsOf('desk')).toEqual(['table']);
    await new Promise((resolve) => setTimeout(resolve, 5));

    const oneWay = await api()
      .patch(`${PATH}/${created.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ one_way_from: 'Desk' })
      .expect(200);
    expect(oneWay.body.data).toMatchObject({
      id: created.id,
      words: ['desk', 'table'],
      one_way_from: 'Desk',
    });
    expect(oneWay.body.data.created_at).toBe(created.created_at);
    expect(Date.parse(oneWay.body.data.updated_at)).toBeGreaterThan(Date.parse(created.updated_at));
    expect(await row(created.id)).toEqual({ words: ['desk', 'table'], one_way_from: 'Desk' });
    expect(synonyms().synonymsOf('desk')).toEqual(['table']);
    expect(synonyms().synonymsOf('table')).toEqual([]);

    const replaced = await api()
      .patch(`${PATH}/${created.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ words: ['desk', 'bureau', 'écritoire'] })
      .expect(200);
    expect(replaced.body.data).toMatchObject({
      words: ['desk', 'bureau', 'écritoire'],
      one_way_from: 'Desk',
    });
    expect(synonyms().synonymsOf('desk')).toEqual(['bureau', 'ecritoire']);
    expect(synonyms().synonymsOf('table')).toEqual([]);

    const twoWay = await api()
      .patch(`${PATH}/${created.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ one_way_from: null })
      .expect(200);
    expect(twoWay.body.data).toMatchObject({ words: ['desk', 'bureau', 'écritoire'], one_way_from: null });
    expect(await row(created.id)).toEqual({ words: ['desk', 'bureau', 'écritoire'], one_way_from: null });
    expect(synonyms().synonymsOf('ecritoire')).toEqual(['desk', 'bureau']);
  });

  it('PATCH: the entry after the change keeps the rules (400, nothing changed); an unknown id 404', async () => {
    const created = await create({ words: ['chair', 'seat'], one_way_from: 'chair' });
    const before = await revision();
    // The stored one_way_from is no longer among the words sent.
    const orphaned = await api()
      .patch(`${PATH}/${created.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ words: ['seat', 'stool'] })
      .expect(400);
    expect(orphaned.body.data.errors).toEqual([
      {
        field: 'one_way_from',
        rule: 'oneOfWords',
        message: 'one_way_from must be one of the words: "chair" is not',
      },
    ]);
    await expectRefusals(
      (body) => api().patch(`${PATH}/${created.id}`).auth(admin.token, { type: 'bearer' }).send(body),
      [
        [{ words: null }, 'words', 'isArray'],
        [{ words: ['chair'] }, 'words', 'arrayMinSize'],
        [{ words: ['chair', 'arm chair'] }, 'words.1', 'singleWord'],
        [{ one_way_from: 'stool' }, 'one_way_from', 'oneOfWords'],
      ],
    );
    expect(await row(created.id)).toEqual({ words: ['chair', 'seat'], one_way_from: 'chair' });
    expect(await revision()).toBe(before);
    expect(synonyms().synonymsOf('chair')).toEqual(['seat']);

    const missing = await api()
      .patch(`${PATH}/999999`)
      .auth(admin.token, { type: 'bearer' })
      .send({ words: ['a', 'b'] })
      .expect(404);
    expect(missing.body.data).toEqual({ details: 'Search synonym 999999 not found' });
    expect(await revision()).toBe(before);
  });

  it('DELETE: the row goes (200, data null), the provider forgets it at once; again is 404', async () => {
    const created = await create({ words: ['bin', 'trash'] });
    const kept = await create({ words: ['bin', 'basket'] });
    expect(synonyms().synonymsOf('bin')).toEqual(['trash', 'basket']);
    const before = await revision();
    const res = await api().delete(`${PATH}/${created.id}`).auth(admin.token, { type: 'bearer' }).expect(200);
    expect(res.body).toEqual({ code: 200, message: 'OK', data: null });
    expect(await row(created.id)).toBeUndefined();
    expect(await row(kept.id)).toBeDefined();
    expect(await revision()).toBe(before + 1);
    expect(synonyms().synonymsOf('bin')).toEqual(['basket']);
    expect(synonyms().synonymsOf('trash')).toEqual([]);

    await api().delete(`${PATH}/${created.id}`).auth(admin.token, { type: 'bearer' }).expect(404);
    expect(await revision()).toBe(before + 1);
  });

  it('GET list: an admin pages in id order with meta; page_size above the maximum is a 400', async () => {
    for (const words of [
      ['page', 'leaf'],
      ['sheet', 'leaf'],
      ['folio', 'leaf'],
    ]) {
      await create({ words });
    }
    const total = await count();
    const ids: Array<{ id: number | string }> = await t.dataSource.query(
      'SELECT id FROM search_synonyms ORDER BY id',
    );
    const res = await api()
      .get(`${PATH}?page=2&page_size=2`)
      .auth(admin.token, { type: 'bearer' })
      .expect(200);
    expect(res.body.meta).toEqual({ page: 2, page_size: 2, total, total_page: Math.ceil(total / 2) });
    expect(res.body.data.map((item: SynonymData) => item.id)).toEqual(
      ids.slice(2, 4).map(({ id }) => Number(id)),
    );
    const first = await api().get(`${PATH}/${ids[2].id}`).auth(admin.token, { type: 'bearer' }).expect(200);
    expect(res.body.data[0]).toEqual(first.body.data);
    const tooBig = await api().get(`${PATH}?page_size=101`).auth(admin.token, { type: 'bearer' }).expect(400);
    expect(tooBig.body.data.errors).toEqual([expect.objectContaining({ field: 'page_size', rule: 'max' })]);
  });

  it('concurrent writes take turns on the revision: every entry applied, the revision raised once each', async () => {
    const before = await revision();
    const agent = concurrentClient();
    try {
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          api()
            .post(PATH)
            .agent(agent)
            .auth(admin.token, { type: 'bearer' })
            .send({ words: [`race${i}`, 'racing'] }),
        ),
      );
      expect(results.map((res) => res.status)).toEqual(new Array(12).fill(201));
    } finally {
      agent.destroy();
    }
    expect(await revision()).toBe(before + 12);
    expect([...synonyms().synonymsOf('racing')].sort()).toEqual(
      Array.from({ length: 12 }, (_, i) => `race${i}`).sort(),
    );
  });

  describe('two instances on one database', () => {
    let second: TestApp;

    beforeAll(async () => {
      second = await startTestApp({ SEARCH_SYNONYMS_POLL_MS: String(POLL_MS), DATABASE_URL: t.databaseUrl });
    });

    afterAll(async () => {
      await second.app.close();
    });

    /** Milliseconds until `instance` answers `expected` for `word`. */
    const seenAfter = async (instance: TestApp, word: string, expected: string[]) => {
      const began = Date.now();
      await eventually(
        () => JSON.stringify(instance.app.get(SearchSynonyms).synonymsOf(word)) === JSON.stringify(expected),
        {
          ms: 10_000,
          everyMs: 10,
        },
      );
      return Date.now() - began;
    };

    it('the other instance loaded every entry at start', () => {
      expect(second.app.get(SearchSynonyms).synonymsOf('tshirt')).toEqual(['tee', 'top']);
      expect(second.app.get(SearchSynonyms).synonymsOf('sweater')).toEqual(['jumper', 'pullover', 'hoodie']);
    });

    it('a create, an update and a delete on one instance reach the other within SEARCH_SYNONYMS_POLL_MS', async () => {
      // One poll interval, plus one reload and a busy machine's delays.
      const bound = POLL_MS + 700;
      const created = await create({ words: ['mug', 'cup'] });
      expect(synonyms().synonymsOf('mug')).toEqual(['cup']);
      expect(await seenAfter(second, 'mug', ['cup'])).toBeLessThan(bound);

      await api()
        .patch(`${PATH}/${created.id}`)
        .auth(admin.token, { type: 'bearer' })
        .send({ words: ['mug', 'beaker'], one_way_from: 'mug' })
        .expect(200);
      expect(synonyms().synonymsOf('mug')).toEqual(['beaker']);
      expect(await seenAfter(second, 'mug', ['beaker'])).toBeLessThan(bound);
      expect(second.app.get(SearchSynonyms).synonymsOf('beaker')).toEqual([]);

      // The other way round: written on the second instance, seen by the first.
      await request(second.url)
        .delete(`${PATH}/${created.id}`)
        .auth(admin.token, { type: 'bearer' })
        .expect(200);
      expect(second.app.get(SearchSynonyms).synonymsOf('mug')).toEqual([]);
      expect(await seenAfter(t, 'mug', [])).toBeLessThan(bound);
    });
  });
});
