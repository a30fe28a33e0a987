import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { ShippingOptionCatalog } from '../src/shipping-options/shipping-option-catalog.js';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { startTestApp, TestApp } from './support/test-app.js';

interface OptionBody {
  id: number;
  name: string;
  price: number;
  countries: string[];
  is_active: boolean;
  created_at: string;
  updated_at: string;
}

// Runs on SQLite, and on MariaDB/MySQL with a mysql:// TEST_DATABASE_URL.
describe('shipping options (catalogue open to anonymous readers)', () => {
  let t: TestApp;
  let admin: Account;
  let user: Account;

  const api = () => request(t.url);
  const row = async (id: number) =>
    (
      (await t.dataSource.query(
        'SELECT name, price_cents, countries, is_active, deleted_at FROM shipping_options WHERE id = ?',
        [id],
      )) as Array<Record<string, unknown>>
    ).map((r) => ({
      name: r.name,
      price_cents: Number(r.price_cents),
      countries: JSON.parse(String(r.countries)) as string[],
      is_active: Boolean(Number(r.is_active)),
      deleted: r.deleted_at !== null,
    }))[0];
  const count = async () =>
    Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM shipping_options'))[0].n);
  const create = async (body: object) =>
    (
      await api()
        .post('/api/v1/shipping-options')
        .auth(admin.token, { type: 'bearer' })
        .send(body)
        .expect(201)
    ).body.data as OptionBody;
  /** The ids of a list answer among `mine` (other tests' options share the database). */
  const listed = async (query: string, token?: string) => {
    const req = api().get(`/api/v1/shipping-options?page_size=100${query}`);
    if (token !== undefined) req.auth(token, { type: 'bearer' });
    const res = await req.expect(200);
    expect(res.body.meta.total).toBe(res.body.data.length);
    return (res.body.data as OptionBody[]).map((option) => option.id);
  };

  beforeAll(async () => {
    t = await startTestApp({ ...ADMIN_ENV, CATALOG_PUBLIC: 'true' });
    admin = await loginAdmin(t);
    user = await createAccount(t);
  });

  afterAll(async () => {
    await t.close();
  });

  it('by country: an option without countries ships everywhere; users and anonymous readers see active ones only', async () => {
    const everywhere = await create({ name: 'Everywhere', price: 9.9 });
    const dach = await create({ name: 'DACH', price: 4.95, countries: ['DE', 'AT', 'CH'] });
    const france = await create({ name: 'France', price: 0, countries: ['FR'] });
    const hidden = await create({ name: 'Hidden DE', price: 1, countries: ['DE'], is_active: false });

    expect(await listed('&country=DE')).toEqual([everywhere.id, dach.id]);
    expect(await listed('&country=DE', user.token)).toEqual([everywhere.id, dach.id]);
    expect(await listed('&country=FR', user.token)).toEqual([everywhere.id, france.id]);
    expect(await listed('&country=JP', user.token)).toEqual([everywhere.id]);
    expect(await listed('', user.token)).toEqual([everywhere.id, dach.id, france.id]);
    expect(await listed('&country=DE', admin.token)).toEqual([everywhere.id, dach.id, hidden.id]);
    expect(await listed('&country=DE&is_active=false', admin.token)).toEqual([hidden.id]);

    const page = await api().get('/api/v1/shipping-options?country=FR&page=2&page_size=1').expect(200);
    expect(page.body).toEqual({
      code: 200,
      message: 'OK',
      data: [france],
      meta: { page: 2, page_size: 1, total: 2, total_page: 2 },
    });

    // The facade other modules use (a cart's address decides), through the same rules.
    const catalog = t.app.get(ShippingOptionCatalog);
    expect((await catalog.applicableTo('DE')).map((o) => o.id)).toEqual([everywhere.id, dach.id]);
    expect(await catalog.applicableTo('FR')).toEqual([everywhere, france]);
    const tx = t.dataSource.manager;
    expect(await catalog.findApplicable(tx, dach.id, 'AT')).toEqual(dach);
    expect(await catalog.findApplicable(tx, dach.id, 'FR')).toBeNull();
    expect(await catalog.findApplicable(tx, hidden.id, 'DE')).toBeNull();
    expect(await catalog.findApplicable(tx, everywhere.id, 'JP')).toEqual(everywhere);

    for (const option of [everywhere, dach, france, hidden]) {
      await api()
        .delete(`/api/v1/shipping-options/${option.id}`)
        .auth(admin.token, { type: 'bearer' })
        .expect(200);
    }
    expect(await catalog.applicableTo('DE')).toEqual([]);
  });

  it('POST: an admin creates one (201, price stored in cents, defaults); a user 403, no token 401, nothing written', async () => {
    const before = await count();
    const denied = await api()
      .post('/api/v1/shipping-options')
      .auth(user.token, { type: 'bearer' })
      .send({ name: 'Denied', price: 1 })
      .expect(403);
    expect(denied.body).toEqual({
      code: 403,
      message: 'Forbidden',
      data: { details: 'Insufficient permission' },
    });
    await api().post('/api/v1/shipping-options').send({ name: 'Anonymous', price: 1 }).expect(401);
    expect(await count()).toBe(before);

    const res = await api()
      .post('/api/v1/shipping-options')
      .auth(admin.token, { type: 'bearer' })
      .send({ name: 'Express', price: 19.99 })
      .expect(201);
    expect(res.body).toMatchObject({
      code: 201,
      message: 'Created',
      data: {
        id: expect.any(Number),
        name: 'Express',
        price: 19.99,
        countries: [],
        is_active: true,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
    expect(await row(res.body.data.id)).toEqual({
      name: 'Express',
      price_cents: 1999,
      countries: [],
      is_active: true,
      deleted: false,
    });
    const read = await api().get(`/api/v1/shipping-options/${res.body.data.id}`).expect(200);
    expect(read.body.data).toEqual(res.body.data);
  });

  it('bad input is a 400 naming the field and rule, and nothing is written', async () => {
    const before = await count();
    const cases: Array<[object, string, string]> = [
      [{ price: 1 }, 'name', 'isString'],
      [{ name: '', price: 1 }, 'name', 'minLength'],
      [{ name: 'x'.repeat(201), price: 1 }, 'name', 'maxLength'],
      [{ name: 'Ok' }, 'price', 'isMoney'],
      [{ name: 'Ok', price: -0.01 }, 'price', 'min'],
      [{ name: 'Ok', price: 1.005 }, 'price', 'isMoney'],
      [{ name: 'Ok', price: '4.95' }, 'price', 'isMoney'],
      [{ name: 'Ok', price: 10_000_000 }, 'price', 'max'],
      [{ name: 'Ok', price: 1, countries: 'DE' }, 'countries', 'isArray'],
      [{ name: 'Ok', price: 1, countries: ['DE', 'de'] }, 'countries', 'isCountryCode'],
      [{ name: 'Ok', price: 1, countries: ['ZZ'] }, 'countries', 'isCountryCode'],
      [{ name: 'Ok', price: 1, countries: ['DE', 'DE'] }, 'countries', 'arrayUnique'],
      [{ name: 'Ok', price: 1, countries: null }, 'countries', 'isArray'],
      [{ name: 'Ok', price: 1, is_active: 'yes' }, 'is_active', 'isBoolean'],
    ];
    for (const [body, field, rule] of cases) {
      const res = await api()
        .post('/api/v1/shipping-options')
        .auth(admin.token, { type: 'bearer' })
        .send(body)
        .expect(400);
      expect({ body, code: res.body.code, errors: res.body.data.errors }).toEqual({
        body,
        code: 400,
        errors: expect.arrayContaining([expect.objectContaining({ field, rule })]),
      });
    }
    expect(await count()).toBe(before);

    const badCountry = await api().get('/api/v1/shipping-options?country=de').expect(400);
    expect(badCountry.body.data.errors).toEqual([
      expect.objectContaining({ field: 'country', rule: 'isCountryCode' }),
    ]);
    const filter = await api()
      .get('/api/v1/shipping-options?is_active=false')
      .auth(user.token, { type: 'bearer' })
      .expect(403);
    expect(filter.body.data.details).toBe('Only an admin may filter by is_active');
  });

  it('PUT: an admin changes only the fields sent; deactivated it is 404 to users and anonymous readers; a user 403', async () => {
    const option = await create({ name: 'Courier', price: 7.5, countries: ['NL'] });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const res = await api()
      .put(`/api/v1/shipping-options/${option.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ price: 0.1, countries: ['NL', 'BE'], is_active: false })
      .expect(200);
    expect(res.body.data).toEqual({
      ...option,
      price: 0.1,
      // The default currency's price is `price`.
      prices: [{ currency_code: 'usd', amount: 0.1 }],
      countries: ['NL', 'BE'],
      is_active: false,
      updated_at: expect.any(String),
    });
    expect(Date.parse(res.body.data.updated_at)).toBeGreaterThan(Date.parse(option.updated_at));
    expect(await row(option.id)).toEqual({
      name: 'Courier',
      price_cents: 10,
      countries: ['NL', 'BE'],
      is_active: false,
      deleted: false,
    });
    await api().get(`/api/v1/shipping-options/${option.id}`).expect(404);
    await api().get(`/api/v1/shipping-options/${option.id}`).auth(user.token, { type: 'bearer' }).expect(404);
    await api()
      .get(`/api/v1/shipping-options/${option.id}`)
      .auth(admin.token, { type: 'bearer' })
      .expect(200);

    await api()
      .put(`/api/v1/shipping-options/${option.id}`)
      .auth(user.token, { type: 'bearer' })
      .send({ price: 1 })
      .expect(403);
    const bad = await api()
      .put(`/api/v1/shipping-options/${option.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ name: 'Renamed', price: -1 })
      .expect(400);
    expect(bad.body.data.errors).toEqual([expect.objectContaining({ field: 'price', rule: 'min' })]);
    expect((await row(option.id))?.name).toBe('Courier');
    await api()
      .put('/api/v1/shipping-options/999999')
      .auth(admin.token, { type: 'bearer' })
      .send({ price: 1 })
      .expect(404);
  });

  it('DELETE is soft: gone from every read (admins too), the row kept with deleted_at; again 404; a user 403', async () => {
    const option = await create({ name: 'Doomed', price: 3 });
    await api()
      .delete(`/api/v1/shipping-options/${option.id}`)
      .auth(user.token, { type: 'bearer' })
      .expect(403);
    expect((await row(option.id))?.deleted).toBe(false);
    const res = await api()
      .delete(`/api/v1/shipping-options/${option.id}`)
      .auth(admin.token, { type: 'bearer' })
      .expect(200);
    expect(res.body).toEqual({ code: 200, message: 'OK', data: null });
    expect(await row(option.id)).toEqual({
      name: 'Doomed',
      price_cents: 300,
      countries: [],
      is_active: true,
      deleted: true,
    });
    await api()
      .get(`/api/v1/shipping-options/${option.id}`)
      .auth(admin.token, { type: 'bearer' })
      .expect(404);
    expect(await listed('', admin.token)).not.toContain(option.id);
    await api()
      .put(`/api/v1/shipping-options/${option.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ price: 1 })
      .expect(404);
    await api()
      .delete(`/api/v1/shipping-options/${option.id}`)
      .auth(admin.token, { type: 'bearer' })
      .expect(404);
  });

  it('the database itself refuses a negative price (CHECK on both databases)', async () => {
    await expect(
      t.dataSource.query(
        "INSERT INTO shipping_options (name, price_cents, countries) VALUES ('Direct', -1, '[]')",
      ),
    ).rejects.toThrow(/CHK_shipping_options_price|CHECK constraint/i);
  });
});

describe('shipping options with CATALOG_PUBLIC unset', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    await t.close();
  });

  it('reading them needs a token (401); a signed-in user reads them', async () => {
    const res = await request(t.url).get('/api/v1/shipping-options').expect(401);
    expect(res.body.code).toBe(401);
    const user = await createAccount(t);
    const list = await request(t.url)
      .get('/api/v1/shipping-options')
      .auth(user.token, { type: 'bearer' })
      .expect(200);
    expect(list.body).toEqual({
      code: 200,
      message: 'OK',
      data: [],
      meta: { page: 1, page_size: 10, total: 0, total_page: 0 },
    });
  });
});
