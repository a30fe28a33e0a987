import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { RegionDirectory } from '../src/regions/region-directory.js';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { expectRefusals, type Refusal } from './support/field-errors.js';
import { concurrentClient } from './support/http.js';
import { startTestApp, TestApp } from './support/test-app.js';

interface RegionBody {
  id: number;
  name: string;
  currency_code: string;
  countries: string[];
  prices_include_tax: boolean;
  is_default: boolean;
  created_at: string;
  updated_at: string;
}

// Runs on SQLite, and on MariaDB/MySQL with a mysql:// TEST_DATABASE_URL.
describe('regions', () => {
  let t: TestApp;
  let admin: Account;
  let user: Account;

  const api = () => request(t.url);
  /** The stored regions with their countries in position order: what every refused write must leave alone. */
  const state = async () => ({
    regions: (await t.dataSource.query(
      'SELECT id, name, currency_code, prices_include_tax, is_default FROM regions ORDER BY id',
    )) as Array<Record<string, unknown>>,
    countries: (await t.dataSource.query(
      'SELECT country, region_id, position FROM region_countries ORDER BY region_id, position',
    )) as Array<Record<string, unknown>>,
  });
  const countriesOf = async (id: number) =>
    (
      (await t.dataSource.query(
        'SELECT country FROM region_countries WHERE region_id = ? ORDER BY position',
        [id],
      )) as Array<{ country: string }>
    ).map((row) => row.country);
  const create = async (body: object) =>
    (await api().post('/api/v1/regions').auth(admin.token, { type: 'bearer' }).send(body).expect(201)).body
      .data as RegionBody;
  const remove = (id: number) => api().delete(`/api/v1/regions/${id}`).auth(admin.token, { type: 'bearer' });
  let defaultRegion: RegionBody;

  beforeAll(async () => {
    t = await startTestApp({ ...ADMIN_ENV, CURRENCY: 'usd' });
    admin = await loginAdmin(t);
    user = await createAccount(t);
    const list = await api().get('/api/v1/regions').auth(user.token, { type: 'bearer' }).expect(200);
    defaultRegion = (list.body.data as RegionBody[]).find((region) => region.is_default)!;
  });

  afterAll(async () => {
    await t.close();
  });

  it('the default region comes from the migration: CURRENCY, no countries, is_default', () => {
    expect(defaultRegion).toEqual({
      id: expect.any(Number),
      name: 'Default',
      currency_code: 'usd',
      countries: [],
      prices_include_tax: false,
      is_default: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it('POST: an admin creates one (201), countries kept in the order given; a user 403, no token 401, nothing written', async () => {
    const before = await state();
    const body = { name: 'Nordics', currency_code: 'sek', countries: ['SE', 'DK', 'NO'] };
    const denied = await api()
      .post('/api/v1/regions')
      .auth(user.token, { type: 'bearer' })
      .send(body)
      .expect(403);
    expect(denied.body).toEqual({
      code: 403,
      message: 'Forbidden',
      data: { details: 'Insufficient permission' },
    });
    await api().post('/api/v1/regions').send(body).expect(401);
    expect(await state()).toEqual(before);

    const res = await api()
      .post('/api/v1/regions')
      .auth(admin.token, { type: 'bearer' })
      .send(body)
      .expect(201);
    expect(res.body).toEqual({
      code: 201,
      message: 'Created',
      data: {
        id: expect.any(Number),
        name: 'Nordics',
        currency_code: 'sek',
        countries: ['SE', 'DK', 'NO'],
        prices_include_tax: false,
        is_default: false,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
    const id = res.body.data.id as number;
    expect(await countriesOf(id)).toEqual(['SE', 'DK', 'NO']);
    const read = await api().get(`/api/v1/regions/${id}`).auth(user.token, { type: 'bearer' }).expect(200);
    expect(read.body.data).toEqual(res.body.data);

    // What pricing asks of the module sees the same region.
    const directory = t.app.get(RegionDirectory);
    expect(await directory.serving(t.dataSource.manager, 'DK')).toEqual({
      id,
      name: 'Nordics',
      currencyCode: 'sek',
      pricesIncludeTax: false,
      isDefault: false,
      countries: ['SE', 'DK', 'NO'],
    });
    expect((await directory.serving(t.dataSource.manager, 'JP')).id).toBe(defaultRegion.id);
    await remove(id).expect(200);
  });

  it('bad input is a 400 naming the field and rule, and nothing is written', async () => {
    const before = await state();
    const ok = { name: 'Ok', currency_code: 'eur' };
    const cases: Refusal[] = [
      [{ currency_code: 'eur' }, 'name', 'isString'],
      [{ ...ok, name: '' }, 'name', 'minLength'],
      [{ ...ok, name: 'x'.repeat(101) }, 'name', 'maxLength'],
      [{ ...ok, name: 'Bad\u200Bname' }, 'name', 'noInvisibleCharacters'],
      [{ name: 'Ok' }, 'currency_code', 'isCurrencyCode'],
      [{ ...ok, currency_code: 'EUR' }, 'currency_code', 'isCurrencyCode'],
      [{ ...ok, currency_code: 'xyz' }, 'currency_code', 'isCurrencyCode'],
      [{ ...ok, currency_code: 'euro' }, 'currency_code', 'isCurrencyCode'],
      [{ ...ok, currency_code: 978 }, 'currency_code', 'isCurrencyCode'],
      [{ ...ok, countries: 'DE' }, 'countries', 'isArray'],
      [{ ...ok, countries: null }, 'countries', 'isArray'],
      [{ ...ok, countries: ['DE', 'de'] }, 'countries', 'isCountryCode'],
      [{ ...ok, countries: ['ZZ'] }, 'countries', 'isCountryCode'],
      [{ ...ok, countries: ['XK'] }, 'countries', 'isCountryCode'],
      [{ ...ok, countries: ['DE', 'FR', 'DE'] }, 'countries', 'arrayUnique'],
      [{ ...ok, prices_include_tax: 'yes' }, 'prices_include_tax', 'isBoolean'],
      [{ ...ok, is_default: true }, 'is_default', 'whitelistValidation'],
      [{ ...ok, id: 5 }, 'id', 'whitelistValidation'],
    ];
    await expectRefusals(
      (body) => api().post('/api/v1/regions').auth(admin.token, { type: 'bearer' }).send(body),
      cases,
    );
    const region = await create({ name: 'Checked', currency_code: 'chf', countries: ['CH'] });
    const stored = await state();
    await expectRefusals(
      (body) => api().put(`/api/v1/regions/${region.id}`).auth(admin.token, { type: 'bearer' }).send(body),
      cases.filter(([, field]) => field !== 'name' && field !== 'currency_code'),
    );
    for (const [body, field] of [
      [{ name: null }, 'name'],
      [{ currency_code: null }, 'currency_code'],
      [{ prices_include_tax: null }, 'prices_include_tax'],
    ] as const) {
      const res = await api()
        .put(`/api/v1/regions/${region.id}`)
        .auth(admin.token, { type: 'bearer' })
        .send(body)
        .expect(400);
      expect(res.body.data.errors[0].field).toBe(field);
    }
    expect(await state()).toEqual(stored);
    await remove(region.id).expect(200);
    expect(await state()).toEqual(before);

    for (const id of ['abc', '0', '1.5']) {
      const res = await api().get(`/api/v1/regions/${id}`).auth(user.token, { type: 'bearer' }).expect(400);
      expect(res.body.data.errors[0].field).toBe('id');
    }
    await api().get('/api/v1/regions/999999').auth(user.token, { type: 'bearer' }).expect(404);
    const page = await api()
      .get('/api/v1/regions?page_size=0')
      .auth(user.token, { type: 'bearer' })
      .expect(400);
    expect(page.body.data.errors).toEqual([expect.objectContaining({ field: 'page_size', rule: 'min' })]);
  });

  it('a country already in another region is a 400 naming countries (rule unique) and the region; nothing changes', async () => {
    const europe = await create({ name: 'Europe', currency_code: 'eur', countries: ['DE', 'FR', 'AT'] });
    const before = await state();

    const created = await api()
      .post('/api/v1/regions')
      .auth(admin.token, { type: 'bearer' })
      .send({ name: 'DACH', currency_code: 'chf', countries: ['CH', 'AT', 'DE'] })
      .expect(400);
    expect(created.body).toEqual({
      code: 400,
      message: 'Bad Request',
      data: {
        details: `countries must not list a country of another region: AT is in region ${europe.id} (Europe), DE is in region ${europe.id} (Europe)`,
        errors: [
          {
            field: 'countries',
            rule: 'unique',
            message: `countries must not list a country of another region: AT is in region ${europe.id} (Europe), DE is in region ${europe.id} (Europe)`,
          },
        ],
      },
    });
    expect(await state()).toEqual(before);

    const other = await create({ name: 'Swiss', currency_code: 'chf', countries: ['CH'] });
    const stored = await state();
    const moved = await api()
      .put(`/api/v1/regions/${other.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ name: 'Renamed', countries: ['CH', 'FR'] })
      .expect(400);
    expect(moved.body.data.errors).toEqual([
      {
        field: 'countries',
        rule: 'unique',
        message: `countries must not list a country of another region: FR is in region ${europe.id} (Europe)`,
      },
    ]);
    expect(await state()).toEqual(stored);

    // Its own countries, listed again in another order, are no conflict.
    const reordered = await api()
      .put(`/api/v1/regions/${europe.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ countries: ['AT', 'DE', 'FR', 'IT'] })
      .expect(200);
    expect(reordered.body.data.countries).toEqual(['AT', 'DE', 'FR', 'IT']);
    expect(await countriesOf(europe.id)).toEqual(['AT', 'DE', 'FR', 'IT']);
    await remove(other.id).expect(200);
    await remove(europe.id).expect(200);
  });

  it('the same country listed by concurrent requests ends in exactly one region; the others are 400 countries/unique', async () => {
    const agent = concurrentClient();
    try {
      const attempts = 8;
      const results = await Promise.all(
        Array.from({ length: attempts }, (_, i) =>
          api()
            .post('/api/v1/regions')
            .agent(agent)
            .auth(admin.token, { type: 'bearer' })
            .send({ name: `Race ${i}`, currency_code: 'pln', countries: [`PL`, i % 2 === 0 ? 'CZ' : 'SK'] }),
        ),
      );
      const statuses = results.map((res) => res.status).sort();
      expect(statuses.filter((status) => status === 201)).toHaveLength(1);
      expect(statuses.filter((status) => status === 400)).toHaveLength(attempts - 1);
      const winner = results.find((res) => res.status === 201)!.body.data as RegionBody;
      for (const res of results.filter((res) => res.status === 400)) {
        expect(res.body.data.errors).toEqual([
          expect.objectContaining({
            field: 'countries',
            rule: 'unique',
            message: expect.stringContaining(`PL is in region ${winner.id} (${winner.name})`),
          }),
        ]);
      }
      const regions = (await t.dataSource.query(
        "SELECT id FROM regions WHERE name LIKE 'Race %'",
      )) as unknown[];
      expect(regions).toHaveLength(1);
      expect(await countriesOf(winner.id)).toEqual(winner.countries);
      await remove(winner.id).expect(200);
    } finally {
      agent.destroy();
    }
  });

  it('PUT is partial: only the fields sent change; countries sent replace the list; a user 403; unknown 404', async () => {
    const region = await create({
      name: 'Japan',
      currency_code: 'jpy',
      countries: ['JP'],
      prices_include_tax: true,
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const renamed = await api()
      .put(`/api/v1/regions/${region.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ name: 'Japan & Korea' })
      .expect(200);
    expect(renamed.body.data).toEqual({ ...region, name: 'Japan & Korea', updated_at: expect.any(String) });
    expect(Date.parse(renamed.body.data.updated_at)).toBeGreaterThan(Date.parse(region.updated_at));

    const listed = await api()
      .put(`/api/v1/regions/${region.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ countries: ['KR', 'JP'], currency_code: 'krw', prices_include_tax: false })
      .expect(200);
    expect(listed.body.data).toMatchObject({
      name: 'Japan & Korea',
      currency_code: 'krw',
      countries: ['KR', 'JP'],
      prices_include_tax: false,
    });
    expect(await countriesOf(region.id)).toEqual(['KR', 'JP']);
    const emptied = await api()
      .put(`/api/v1/regions/${region.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ countries: [] })
      .expect(200);
    expect(emptied.body.data.countries).toEqual([]);
    expect(await countriesOf(region.id)).toEqual([]);

    await api()
      .put(`/api/v1/regions/${region.id}`)
      .auth(user.token, { type: 'bearer' })
      .send({ name: 'Mine' })
      .expect(403);
    await api().put(`/api/v1/regions/${region.id}`).send({ name: 'Mine' }).expect(401);
    await api()
      .put('/api/v1/regions/999999')
      .auth(admin.token, { type: 'bearer' })
      .send({ name: 'x' })
      .expect(404);
    const read = await api()
      .get(`/api/v1/regions/${region.id}`)
      .auth(admin.token, { type: 'bearer' })
      .expect(200);
    expect(read.body.data.name).toBe('Japan & Korea');
    await remove(region.id).expect(200);
  });

  it('the default region: undeletable (400), its currency stays CURRENCY (400 naming currency_code), is_default read-only', async () => {
    const before = await state();
    const deleted = await remove(defaultRegion.id).expect(400);
    expect(deleted.body.data.errors).toEqual([
      {
        field: 'id',
        rule: 'defaultRegion',
        message: `Region ${defaultRegion.id} is the default region and cannot be deleted`,
      },
    ]);
    const currency = await api()
      .put(`/api/v1/regions/${defaultRegion.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ name: 'Elsewhere', currency_code: 'eur' })
      .expect(400);
    expect(currency.body.data.errors).toEqual([
      {
        field: 'currency_code',
        rule: 'defaultRegionCurrency',
        message: 'currency_code of the default region is CURRENCY (usd) and cannot be changed',
      },
    ]);
    const flag = await api()
      .put(`/api/v1/regions/${defaultRegion.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ is_default: false })
      .expect(400);
    expect(flag.body.data.errors).toEqual([
      expect.objectContaining({ field: 'is_default', rule: 'whitelistValidation' }),
    ]);
    expect(await state()).toEqual(before);

    // Its own currency again, its name, its countries: allowed.
    const res = await api()
      .put(`/api/v1/regions/${defaultRegion.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ name: 'Rest of the world', currency_code: 'usd', countries: ['US'] })
      .expect(200);
    expect(res.body.data).toMatchObject({
      name: 'Rest of the world',
      currency_code: 'usd',
      countries: ['US'],
      is_default: true,
    });
    await api()
      .put(`/api/v1/regions/${defaultRegion.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ name: 'Default', countries: [] })
      .expect(200);
  });

  it('DELETE: a user 403; the region and its countries are gone (404 after); its carts fall back to the default region', async () => {
    const region = await create({ name: 'UK', currency_code: 'gbp', countries: ['GB'] });
    await remove(region.id).auth(user.token, { type: 'bearer' }).expect(403);
    await api().delete(`/api/v1/regions/${region.id}`).expect(401);
    expect(await countriesOf(region.id)).toEqual(['GB']);

    const cart = await api().post('/api/v1/carts').expect(201);
    const cartId = cart.body.data.id as string | number;
    await t.dataSource.query('UPDATE carts SET region_id = ? WHERE id = ?', [region.id, cartId]);

    const res = await remove(region.id).expect(200);
    expect(res.body).toEqual({ code: 200, message: 'OK', data: null });
    expect(await countriesOf(region.id)).toEqual([]);
    expect(await t.dataSource.query('SELECT id FROM regions WHERE id = ?', [region.id])).toEqual([]);
    const [stored] = (await t.dataSource.query('SELECT region_id FROM carts WHERE id = ?', [
      cartId,
    ])) as Array<{
      region_id: unknown;
    }>;
    expect(stored.region_id).toBeNull();
    const directory = t.app.get(RegionDirectory);
    expect((await directory.find(t.dataSource.manager, null))?.id).toBe(defaultRegion.id);
    expect((await directory.serving(t.dataSource.manager, 'GB')).id).toBe(defaultRegion.id);

    await api().get(`/api/v1/regions/${region.id}`).auth(user.token, { type: 'bearer' }).expect(404);
    await remove(region.id).expect(404);
    // Its country is free again.
    const again = await create({ name: 'UK again', currency_code: 'gbp', countries: ['GB'] });
    await remove(again.id).expect(200);
  });

  it('GET /regions: id order, paged in the envelope; anonymous 401 without CATALOG_PUBLIC', async () => {
    const a = await create({ name: 'A', currency_code: 'aud', countries: ['AU'] });
    const b = await create({ name: 'B', currency_code: 'nzd', countries: ['NZ'] });
    const page = await api()
      .get('/api/v1/regions?page=2&page_size=2')
      .auth(user.token, { type: 'bearer' })
      .expect(200);
    expect(page.body).toEqual({
      code: 200,
      message: 'OK',
      data: [b],
      meta: { page: 2, page_size: 2, total: 3, total_page: 2 },
    });
    const first = await api()
      .get('/api/v1/regions?page_size=2')
      .auth(admin.token, { type: 'bearer' })
      .expect(200);
    expect(first.body.data.map((region: RegionBody) => region.id)).toEqual([defaultRegion.id, a.id]);
    await api().get('/api/v1/regions').expect(401);
    await api().get(`/api/v1/regions/${a.id}`).expect(401);
    await remove(a.id).expect(200);
    await remove(b.id).expect(200);
  });

  it('with CATALOG_PUBLIC=true regions are read without a token; writes still need an admin', async () => {
    const open = await startTestApp({ ...ADMIN_ENV, CATALOG_PUBLIC: 'true' });
    try {
      const token = (await loginAdmin(open)).token;
      const created = await request(open.url)
        .post('/api/v1/regions')
        .auth(token, { type: 'bearer' })
        .send({ name: 'Canada', currency_code: 'cad', countries: ['CA'], prices_include_tax: false })
        .expect(201);
      const list = await request(open.url).get('/api/v1/regions').expect(200);
      expect(list.body.data.map((region: RegionBody) => region.name)).toEqual(['Default', 'Canada']);
      const read = await request(open.url).get(`/api/v1/regions/${created.body.data.id}`).expect(200);
      expect(read.body.data).toEqual(created.body.data);
      await request(open.url).get('/api/v1/regions').auth('not-a-token', { type: 'bearer' }).expect(401);
      await request(open.url).post('/api/v1/regions').send({ name: 'x', currency_code: 'eur' }).expect(401);
      await request(open.url).delete(`/api/v1/regions/${created.body.data.id}`).expect(401);
    } finally {
      await open.close();
    }
  });
});
