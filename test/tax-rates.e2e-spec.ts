import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { TaxProvider } from '../src/taxes/tax-provider.js';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { expectRefusals, type Refusal } from './support/field-errors.js';
import { concurrentClient } from './support/http.js';
import { startTestApp, TestApp } from './support/test-app.js';

interface TaxRateBody {
  id: number;
  country: string;
  subdivision: string | null;
  tax_class: string;
  rate: number;
  name: string;
  code: string;
  created_at: string;
  updated_at: string;
}

// Runs on SQLite, and on MariaDB/MySQL with a mysql:// TEST_DATABASE_URL.
describe('tax rates (admin only)', () => {
  let t: TestApp;
  let admin: Account;
  let user: Account;

  const api = () => request(t.url);
  const rows = async () =>
    (
      (await t.dataSource.query(
        'SELECT id, country, subdivision, tax_class, rate, name, code FROM tax_rates ORDER BY id',
      )) as Array<Record<string, unknown>>
    ).map((row) => ({ ...row, id: Number(row.id), rate: Number(row.rate) }) as Record<string, unknown>);
  const rowOf = async (id: number) => (await rows()).find((row) => row.id === id);
  const create = async (body: object) =>
    (await api().post('/api/v1/tax-rates').auth(admin.token, { type: 'bearer' }).send(body).expect(201)).body
      .data as TaxRateBody;
  const put = (id: number, body: object) =>
    api().put(`/api/v1/tax-rates/${id}`).auth(admin.token, { type: 'bearer' }).send(body);
  const remove = (id: number) =>
    api().delete(`/api/v1/tax-rates/${id}`).auth(admin.token, { type: 'bearer' });

  beforeAll(async () => {
    // Even with a public catalogue, the rate table is the back office's.
    t = await startTestApp({ ...ADMIN_ENV, CATALOG_PUBLIC: 'true' });
    admin = await loginAdmin(t);
    user = await createAccount(t);
  });

  afterAll(async () => {
    await t.close();
  });

  it('every route is for admins: a customer 403, no token 401, nothing written', async () => {
    const rate = await create({ country: 'DE', rate: 19, name: 'MwSt', code: 'DE-VAT' });
    const before = await rows();
    const body = { country: 'AT', rate: 20, name: 'USt', code: 'AT-VAT' };
    const routes = [
      () => api().get('/api/v1/tax-rates'),
      () => api().get(`/api/v1/tax-rates/${rate.id}`),
      () => api().post('/api/v1/tax-rates').send(body),
      () => api().put(`/api/v1/tax-rates/${rate.id}`).send({ rate: 7 }),
      () => api().delete(`/api/v1/tax-rates/${rate.id}`),
    ];
    for (const route of routes) {
      const denied = await route().auth(user.token, { type: 'bearer' }).expect(403);
      expect(denied.body).toEqual({
        code: 403,
        message: 'Forbidden',
        data: { details: 'Insufficient permission' },
      });
      const anonymous = await route().expect(401);
      expect(anonymous.body.data.details).toBe('Missing bearer token');
    }
    expect(await rows()).toEqual(before);
    await remove(rate.id).expect(200);
  });

  it('POST: 201 with the defaults (whole country, class standard); stored with subdivision "" and the exact rate', async () => {
    const res = await api()
      .post('/api/v1/tax-rates')
      .auth(admin.token, { type: 'bearer' })
      .send({ country: 'US', rate: 0, name: 'No state tax', code: 'US' })
      .expect(201);
    expect(res.body).toEqual({
      code: 201,
      message: 'Created',
      data: {
        id: expect.any(Number),
        country: 'US',
        subdivision: null,
        tax_class: 'standard',
        rate: 0,
        name: 'No state tax',
        code: 'US',
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
    const california = await create({
      country: 'US',
      subdivision: 'CA',
      tax_class: 'reduced-food',
      rate: 7.2525,
      name: 'California sales tax',
      code: 'US-CA',
    });
    expect(california).toMatchObject({ subdivision: 'CA', tax_class: 'reduced-food', rate: 7.2525 });
    expect(await rowOf(res.body.data.id)).toEqual({
      id: res.body.data.id,
      country: 'US',
      subdivision: '',
      tax_class: 'standard',
      rate: 0,
      name: 'No state tax',
      code: 'US',
    });
    expect(await rowOf(california.id)).toMatchObject({ subdivision: 'CA', rate: 7.2525 });
    const read = await api()
      .get(`/api/v1/tax-rates/${california.id}`)
      .auth(admin.token, { type: 'bearer' })
      .expect(200);
    expect(read.body.data).toEqual(california);
    const explicitNull = await create({
      country: 'CA',
      subdivision: null,
      rate: 5,
      name: 'GST',
      code: 'CA-GST',
    });
    expect(explicitNull.subdivision).toBeNull();
    expect((await rowOf(explicitNull.id))?.subdivision).toBe('');

    // The rate table the tax provider reads is this one.
    const quote = await t.app.get(TaxProvider).quote(t.dataSource.manager, {
      currency: 'usd',
      pricesIncludeTax: false,
      address: { country: 'US', subdivision: 'CA' },
      lines: [],
      shipping: null,
    });
    expect(quote.ratesOf({ taxClass: 'reduced-food' } as never)).toEqual([
      { code: 'US-CA', name: 'California sales tax', rate: 7.2525 },
    ]);
    for (const id of [res.body.data.id, california.id, explicitNull.id]) await remove(id).expect(200);
  });

  it('bad input is a 400 naming the field and rule, and nothing is written', async () => {
    const before = await rows();
    const ok = { country: 'FR', rate: 20, name: 'TVA', code: 'FR-TVA' };
    const cases: Refusal[] = [
      [{ ...ok, country: undefined }, 'country', 'isCountryCode'],
      [{ ...ok, country: 'fr' }, 'country', 'isCountryCode'],
      [{ ...ok, country: 'ZZ' }, 'country', 'isCountryCode'],
      [{ ...ok, country: 'FRA' }, 'country', 'isCountryCode'],
      [{ ...ok, subdivision: 'ca' }, 'subdivision', 'matches'],
      [{ ...ok, subdivision: '' }, 'subdivision', 'matches'],
      [{ ...ok, subdivision: 'ABCD' }, 'subdivision', 'matches'],
      [{ ...ok, subdivision: 'US-CA' }, 'subdivision', 'matches'],
      [{ ...ok, subdivision: 12 }, 'subdivision', 'isString'],
      [{ ...ok, tax_class: 'Standard' }, 'tax_class', 'matches'],
      [{ ...ok, tax_class: 'reduced rate' }, 'tax_class', 'matches'],
      [{ ...ok, tax_class: '-x' }, 'tax_class', 'matches'],
      [{ ...ok, tax_class: '' }, 'tax_class', 'minLength'],
      [{ ...ok, tax_class: 'a'.repeat(33) }, 'tax_class', 'maxLength'],
      [{ ...ok, tax_class: null }, 'tax_class', 'isString'],
      [{ ...ok, rate: undefined }, 'rate', 'isPercent'],
      [{ ...ok, rate: '20' }, 'rate', 'isPercent'],
      [{ ...ok, rate: -0.5 }, 'rate', 'min'],
      [{ ...ok, rate: 100.0001 }, 'rate', 'max'],
      [{ ...ok, rate: 7.12345 }, 'rate', 'isPercent'],
      [{ ...ok, rate: 1e-7 }, 'rate', 'isPercent'],
      [{ ...ok, rate: null }, 'rate', 'isPercent'],
      [{ ...ok, name: undefined }, 'name', 'isString'],
      [{ ...ok, name: '' }, 'name', 'minLength'],
      [{ ...ok, name: 'x'.repeat(101) }, 'name', 'maxLength'],
      [{ ...ok, code: undefined }, 'code', 'isString'],
      [{ ...ok, code: 'x'.repeat(33) }, 'code', 'maxLength'],
      [{ ...ok, code: 'FR\u0000' }, 'code', 'noInvisibleCharacters'],
      [{ ...ok, id: 3 }, 'id', 'whitelistValidation'],
    ];
    await expectRefusals(
      (body) => api().post('/api/v1/tax-rates').auth(admin.token, { type: 'bearer' }).send(body),
      cases,
    );
    expect(await rows()).toEqual(before);

    const rate = await create(ok);
    const stored = await rows();
    await expectRefusals(
      (body) => put(rate.id, body),
      cases.filter(([body]) => !Object.values(body).includes(undefined)),
    );
    expect(await rows()).toEqual(stored);
    await remove(rate.id).expect(200);

    const filter = await api()
      .get('/api/v1/tax-rates?country=fr')
      .auth(admin.token, { type: 'bearer' })
      .expect(400);
    expect(filter.body.data.errors).toEqual([
      expect.objectContaining({ field: 'country', rule: 'isCountryCode' }),
    ]);
    const id = await api().get('/api/v1/tax-rates/abc').auth(admin.token, { type: 'bearer' }).expect(400);
    expect(id.body.data.errors[0]).toMatchObject({ field: 'id' });
    await api().get('/api/v1/tax-rates/999999').auth(admin.token, { type: 'bearer' }).expect(404);
    await put(999999, { rate: 1 }).expect(404);
    await remove(999999).expect(404);
  });

  it('one rate per country, subdivision and class: 400 naming tax_class (rule unique), nothing written', async () => {
    const whole = await create({ country: 'IT', rate: 22, name: 'IVA', code: 'IT-IVA' });
    const reduced = await create({
      country: 'IT',
      tax_class: 'reduced',
      rate: 10,
      name: 'IVA ridotta',
      code: 'IT-R',
    });
    const region = await create({
      country: 'IT',
      subdivision: '32',
      rate: 22,
      name: 'IVA Trentino',
      code: 'IT-32',
    });
    const before = await rows();

    const taken = await api()
      .post('/api/v1/tax-rates')
      .auth(admin.token, { type: 'bearer' })
      .send({ country: 'IT', tax_class: 'standard', rate: 21, name: 'Again', code: 'IT-2' })
      .expect(400);
    expect(taken.body).toEqual({
      code: 400,
      message: 'Bad Request',
      data: {
        details: `tax_class standard in IT already has a rate: tax rate ${whole.id}`,
        errors: [
          {
            field: 'tax_class',
            rule: 'unique',
            message: `tax_class standard in IT already has a rate: tax rate ${whole.id}`,
          },
        ],
      },
    });
    const subdivision = await api()
      .post('/api/v1/tax-rates')
      .auth(admin.token, { type: 'bearer' })
      .send({ country: 'IT', subdivision: '32', rate: 21, name: 'Again', code: 'IT-2' })
      .expect(400);
    expect(subdivision.body.data.errors[0].message).toBe(
      `tax_class standard in IT-32 already has a rate: tax rate ${region.id}`,
    );
    // Moved onto another rate's place by a PUT: the same 400.
    const moved = await put(reduced.id, { tax_class: 'standard' }).expect(400);
    expect(moved.body.data.errors).toEqual([
      {
        field: 'tax_class',
        rule: 'unique',
        message: `tax_class standard in IT already has a rate: tax rate ${whole.id}`,
      },
    ]);
    const toWhole = await put(region.id, { subdivision: null }).expect(400);
    expect(toWhole.body.data.errors[0]).toMatchObject({ field: 'tax_class', rule: 'unique' });
    expect(await rows()).toEqual(before);

    // Its own place again is no conflict.
    await put(whole.id, { country: 'IT', tax_class: 'standard', rate: 22.5 }).expect(200);
    for (const rate of [whole, reduced, region]) await remove(rate.id).expect(200);
  });

  it('concurrent requests for the same place create exactly one rate; the others are 400 tax_class/unique', async () => {
    const agent = concurrentClient();
    try {
      const attempts = 8;
      const results = await Promise.all(
        Array.from({ length: attempts }, (_, i) =>
          api()
            .post('/api/v1/tax-rates')
            .agent(agent)
            .auth(admin.token, { type: 'bearer' })
            .send({ country: 'ES', subdivision: 'CN', rate: 7, name: `IGIC ${i}`, code: 'ES-CN' }),
        ),
      );
      const created = results.filter((res) => res.status === 201);
      expect(created).toHaveLength(1);
      const refused = results.filter((res) => res.status === 400);
      expect(refused).toHaveLength(attempts - 1);
      for (const res of refused) {
        expect(res.body.data.errors).toEqual([
          {
            field: 'tax_class',
            rule: 'unique',
            message: `tax_class standard in ES-CN already has a rate: tax rate ${created[0].body.data.id}`,
          },
        ]);
      }
      const stored = (await rows()).filter((row) => row.country === 'ES');
      expect(stored).toEqual([expect.objectContaining({ id: created[0].body.data.id, subdivision: 'CN' })]);
      await remove(created[0].body.data.id).expect(200);
    } finally {
      agent.destroy();
    }
  });

  it('PUT is partial; subdivision null sets it back to the whole country; updated_at moves', async () => {
    const rate = await create({
      country: 'CA',
      subdivision: 'QC',
      tax_class: 'standard',
      rate: 9.975,
      name: 'QST',
      code: 'CA-QC',
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const renamed = await put(rate.id, { name: 'Québec sales tax' }).expect(200);
    expect(renamed.body.data).toEqual({ ...rate, name: 'Québec sales tax', updated_at: expect.any(String) });
    expect(Date.parse(renamed.body.data.updated_at)).toBeGreaterThan(Date.parse(rate.updated_at));
    expect(await rowOf(rate.id)).toEqual({
      id: rate.id,
      country: 'CA',
      subdivision: 'QC',
      tax_class: 'standard',
      rate: 9.975,
      name: 'Québec sales tax',
      code: 'CA-QC',
    });

    const whole = await put(rate.id, { subdivision: null, rate: 5, code: 'CA-GST' }).expect(200);
    expect(whole.body.data).toMatchObject({
      subdivision: null,
      rate: 5,
      code: 'CA-GST',
      name: 'Québec sales tax',
    });
    expect(await rowOf(rate.id)).toMatchObject({ subdivision: '', rate: 5, code: 'CA-GST' });

    const back = await put(rate.id, { subdivision: 'ON', tax_class: 'zero_rated', rate: 0 }).expect(200);
    expect(back.body.data).toMatchObject({ subdivision: 'ON', tax_class: 'zero_rated', rate: 0 });
    // An absent subdivision leaves it as it is.
    const kept = await put(rate.id, { rate: 13 }).expect(200);
    expect(kept.body.data).toMatchObject({ subdivision: 'ON', rate: 13 });
    await remove(rate.id).expect(200);
  });

  it('GET /tax-rates: id order, paged, filtered by country; DELETE removes the row (404 after)', async () => {
    const de = await create({ country: 'DE', rate: 19, name: 'MwSt', code: 'DE' });
    const at = await create({ country: 'AT', rate: 20, name: 'USt', code: 'AT' });
    const deReduced = await create({
      country: 'DE',
      tax_class: 'reduced',
      rate: 7,
      name: 'MwSt ermäßigt',
      code: 'DE-7',
    });
    const all = await api()
      .get('/api/v1/tax-rates?page_size=2')
      .auth(admin.token, { type: 'bearer' })
      .expect(200);
    expect(all.body).toEqual({
      code: 200,
      message: 'OK',
      data: [de, at],
      meta: { page: 1, page_size: 2, total: 3, total_page: 2 },
    });
    const germany = await api()
      .get('/api/v1/tax-rates?country=DE&page=2&page_size=1')
      .auth(admin.token, { type: 'bearer' })
      .expect(200);
    expect(germany.body).toEqual({
      code: 200,
      message: 'OK',
      data: [deReduced],
      meta: { page: 2, page_size: 1, total: 2, total_page: 2 },
    });

    const res = await remove(at.id).expect(200);
    expect(res.body).toEqual({ code: 200, message: 'OK', data: null });
    expect(await rowOf(at.id)).toBeUndefined();
    await api().get(`/api/v1/tax-rates/${at.id}`).auth(admin.token, { type: 'bearer' }).expect(404);
    await remove(at.id).expect(404);
    // Its place is free again.
    const again = await create({ country: 'AT', rate: 20, name: 'USt', code: 'AT' });
    for (const id of [de.id, deReduced.id, again.id]) await remove(id).expect(200);
  });
});
