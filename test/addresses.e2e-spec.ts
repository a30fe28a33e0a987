import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Agent } from 'node:http';
import request from 'supertest';
import { AddressBook } from '../src/addresses/address-book.js';
import { concurrentClient } from './support/http.js';
import { createAccount, type Account } from './support/accounts.js';
import { startTestApp, TestApp } from './support/test-app.js';

interface AddressBody {
  id: number;
  name: string;
  line1: string;
  line2: string;
  city: string;
  region: string;
  postal_code: string;
  country: string;
  phone: string;
  is_default: boolean;
  created_at: string;
  updated_at: string;
}

const HOME = { name: 'Ada Lovelace', line1: '12 Analytical Row', city: 'London', country: 'GB' };

// Runs on SQLite, and on MariaDB/MySQL with a mysql:// TEST_DATABASE_URL.
describe('address book (/me/addresses)', () => {
  let t: TestApp;

  const api = () => request(t.url);
  const rows = async (userId: number) =>
    (
      (await t.dataSource.query(
        'SELECT id, name, line1, line2, city, region, postal_code, country, phone, is_default ' +
          'FROM addresses WHERE user_id = ? ORDER BY id',
        [userId],
      )) as Array<Record<string, unknown>>
    ).map((row) => ({ ...row, id: Number(row.id), is_default: Boolean(Number(row.is_default)) }));
  const defaults = async (userId: number) =>
    (await rows(userId)).filter((row) => row.is_default).map((row) => row.id);
  const create = async (account: Account, body: object = HOME) =>
    (await api().post('/api/v1/me/addresses').auth(account.token, { type: 'bearer' }).send(body).expect(201))
      .body.data as AddressBody;

  const post = (agent: Agent, account: Account, body: object) =>
    api().post('/api/v1/me/addresses').agent(agent).auth(account.token, { type: 'bearer' }).send(body);

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    await t.close();
  });

  it('POST: 201 with the whole address, optional fields "" when left out; stored for the caller; no token 401', async () => {
    const user = await createAccount(t);
    await api().post('/api/v1/me/addresses').send(HOME).expect(401);
    expect(await rows(user.id)).toEqual([]);

    const res = await api()
      .post('/api/v1/me/addresses')
      .auth(user.token, { type: 'bearer' })
      .send({
        ...HOME,
        line2: 'Flat 3',
        region: 'Greater London',
        postal_code: 'N1 9GU',
        phone: '+44 20 7946 0018',
      })
      .expect(201);
    expect(res.body).toMatchObject({
      code: 201,
      message: 'Created',
      data: {
        id: expect.any(Number),
        ...HOME,
        line2: 'Flat 3',
        region: 'Greater London',
        postal_code: 'N1 9GU',
        phone: '+44 20 7946 0018',
        is_default: true,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
    const bare = await create(user, { ...HOME, country: 'FR', city: 'Paris' });
    expect(bare).toMatchObject({ line2: '', region: '', postal_code: '', phone: '', is_default: false });
    expect(await rows(user.id)).toEqual([
      {
        id: res.body.data.id,
        ...HOME,
        line2: 'Flat 3',
        region: 'Greater London',
        postal_code: 'N1 9GU',
        phone: '+44 20 7946 0018',
        is_default: true,
      },
      {
        id: bare.id,
        ...HOME,
        city: 'Paris',
        country: 'FR',
        line2: '',
        region: '',
        postal_code: '',
        phone: '',
        is_default: false,
      },
    ]);
  });

  it('bad input is a 400 naming the field and rule, and nothing is written', async () => {
    const user = await createAccount(t);
    const cases: Array<[object, string, string]> = [
      [{ ...HOME, name: undefined }, 'name', 'isString'],
      [{ ...HOME, name: '' }, 'name', 'minLength'],
      [{ ...HOME, line1: 'x'.repeat(201) }, 'line1', 'maxLength'],
      [{ ...HOME, line2: 'y'.repeat(201) }, 'line2', 'maxLength'],
      [{ ...HOME, city: '' }, 'city', 'minLength'],
      [{ ...HOME, region: 'r'.repeat(101) }, 'region', 'maxLength'],
      [{ ...HOME, postal_code: '1'.repeat(21) }, 'postal_code', 'maxLength'],
      [{ ...HOME, country: undefined }, 'country', 'isCountryCode'],
      [{ ...HOME, country: 'gb' }, 'country', 'isCountryCode'],
      [{ ...HOME, country: 'UK' }, 'country', 'isCountryCode'],
      [{ ...HOME, country: 'XK' }, 'country', 'isCountryCode'],
      [{ ...HOME, country: 'GBR' }, 'country', 'isCountryCode'],
      [{ ...HOME, phone: 'call me' }, 'phone', 'matches'],
      [{ ...HOME, phone: '1'.repeat(41) }, 'phone', 'maxLength'],
      [{ ...HOME, name: 'Ada\u200BLovelace' }, 'name', 'noInvisibleCharacters'],
      [{ ...HOME, line2: null }, 'line2', 'isString'],
      [{ ...HOME, is_default: 'yes' }, 'is_default', 'isBoolean'],
      [{ ...HOME, user_id: 1 }, 'user_id', 'whitelistValidation'],
    ];
    for (const [body, field, rule] of cases) {
      const res = await api()
        .post('/api/v1/me/addresses')
        .auth(user.token, { type: 'bearer' })
        .send(body)
        .expect(400);
      expect({ body, code: res.body.code, errors: res.body.data.errors }).toEqual({
        body,
        code: 400,
        errors: expect.arrayContaining([expect.objectContaining({ field, rule })]),
      });
    }
    expect(await rows(user.id)).toEqual([]);
  });

  it('another user’s address is 404 on read, change and delete, and stays as it was; lists show only one’s own', async () => {
    const owner = await createAccount(t);
    const other = await createAccount(t);
    const address = await create(owner);
    await create(other, { ...HOME, name: 'Other' });
    for (const call of [
      api().get(`/api/v1/me/addresses/${address.id}`),
      api().put(`/api/v1/me/addresses/${address.id}`).send({ name: 'Taken' }),
      api().delete(`/api/v1/me/addresses/${address.id}`),
    ]) {
      const res = await call.auth(other.token, { type: 'bearer' }).expect(404);
      expect(res.body).toEqual({
        code: 404,
        message: 'Not Found',
        data: { details: `Address ${address.id} not found` },
      });
    }
    expect(await rows(owner.id)).toEqual([expect.objectContaining({ id: address.id, name: HOME.name })]);

    const own = await api()
      .get(`/api/v1/me/addresses/${address.id}`)
      .auth(owner.token, { type: 'bearer' })
      .expect(200);
    expect(own.body.data).toEqual(address);
    const list = await api().get('/api/v1/me/addresses').auth(owner.token, { type: 'bearer' }).expect(200);
    expect(list.body).toEqual({
      code: 200,
      message: 'OK',
      data: [address],
      meta: { page: 1, page_size: 20, total: 1, total_page: 1 },
    });
    // The facade a cart uses: the same rule, one's own address or nothing.
    const book = t.app.get(AddressBook);
    expect(await book.findOwn(t.dataSource.manager, owner.id, address.id)).toEqual(address);
    expect(await book.findOwn(t.dataSource.manager, other.id, address.id)).toBeNull();
    expect(await book.findOwn(t.dataSource.manager, owner.id, address.id + 100000)).toBeNull();
    const bad = await api().get('/api/v1/me/addresses/abc').auth(owner.token, { type: 'bearer' }).expect(400);
    expect(bad.body.data.errors).toContainEqual(expect.objectContaining({ field: 'id', rule: 'isInt' }));
  });

  it('default: the first address is the default; another made default unsets the previous one in the same write', async () => {
    const user = await createAccount(t);
    const first = await create(user, { ...HOME, is_default: false });
    expect(first.is_default).toBe(true);
    const second = await create(user, { ...HOME, name: 'Second' });
    expect(second.is_default).toBe(false);
    expect(await defaults(user.id)).toEqual([first.id]);

    const third = await create(user, { ...HOME, name: 'Third', is_default: true });
    expect(third.is_default).toBe(true);
    expect(await defaults(user.id)).toEqual([third.id]);

    const moved = await api()
      .put(`/api/v1/me/addresses/${second.id}`)
      .auth(user.token, { type: 'bearer' })
      .send({ is_default: true })
      .expect(200);
    expect(moved.body.data).toEqual({ ...second, is_default: true, updated_at: expect.any(String) });
    expect(await defaults(user.id)).toEqual([second.id]);
    const listed = await api().get('/api/v1/me/addresses').auth(user.token, { type: 'bearer' }).expect(200);
    expect(listed.body.data.map((a: AddressBody) => [a.id, a.is_default])).toEqual([
      [first.id, false],
      [second.id, true],
      [third.id, false],
    ]);

    // Unsetting the default leaves none; deleting the default promotes none.
    await api()
      .put(`/api/v1/me/addresses/${second.id}`)
      .auth(user.token, { type: 'bearer' })
      .send({ is_default: false })
      .expect(200);
    expect(await defaults(user.id)).toEqual([]);
    await api()
      .put(`/api/v1/me/addresses/${first.id}`)
      .auth(user.token, { type: 'bearer' })
      .send({ is_default: true })
      .expect(200);
    await api().delete(`/api/v1/me/addresses/${first.id}`).auth(user.token, { type: 'bearer' }).expect(200);
    expect(await defaults(user.id)).toEqual([]);
    expect((await rows(user.id)).map((row) => row.id)).toEqual([second.id, third.id]);
  });

  it('default: concurrent writes each making a default leave exactly one', async () => {
    const user = await createAccount(t);
    const agent = concurrentClient();
    try {
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          post(agent, user, { ...HOME, name: `Racer ${i}`, is_default: true }),
        ),
      );
      expect(results.map((res) => res.status)).toEqual(Array(8).fill(201));
    } finally {
      agent.destroy();
    }
    expect(await rows(user.id)).toHaveLength(8);
    expect(await defaults(user.id)).toHaveLength(1);
  });

  it('PUT changes only the fields sent, validates them, and moves updated_at', async () => {
    const user = await createAccount(t);
    const address = await create(user, { ...HOME, postal_code: 'N1 9GU' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const res = await api()
      .put(`/api/v1/me/addresses/${address.id}`)
      .auth(user.token, { type: 'bearer' })
      .send({ city: 'Manchester', country: 'IE' })
      .expect(200);
    expect(res.body.data).toEqual({
      ...address,
      city: 'Manchester',
      country: 'IE',
      updated_at: expect.any(String),
    });
    expect(Date.parse(res.body.data.updated_at)).toBeGreaterThan(Date.parse(address.updated_at));

    const bad = await api()
      .put(`/api/v1/me/addresses/${address.id}`)
      .auth(user.token, { type: 'bearer' })
      .send({ city: 'Paris', country: 'fr', line1: '' })
      .expect(400);
    expect(bad.body.data.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'country', rule: 'isCountryCode' }),
        expect.objectContaining({ field: 'line1', rule: 'minLength' }),
      ]),
    );
    expect(await rows(user.id)).toEqual([
      expect.objectContaining({ id: address.id, city: 'Manchester', country: 'IE', postal_code: 'N1 9GU' }),
    ]);
    await api()
      .put('/api/v1/me/addresses/999999')
      .auth(user.token, { type: 'bearer' })
      .send({ city: 'Nowhere' })
      .expect(404);
  });

  it('DELETE removes the row (200, data null); again 404', async () => {
    const user = await createAccount(t);
    const address = await create(user);
    const res = await api()
      .delete(`/api/v1/me/addresses/${address.id}`)
      .auth(user.token, { type: 'bearer' })
      .expect(200);
    expect(res.body).toEqual({ code: 200, message: 'OK', data: null });
    expect(await rows(user.id)).toEqual([]);
    await api().delete(`/api/v1/me/addresses/${address.id}`).auth(user.token, { type: 'bearer' }).expect(404);
  });

  it('at most 20 addresses per account: the 21st is a 400 naming addresses, even when sent concurrently', async () => {
    const user = await createAccount(t);
    for (let i = 0; i < 15; i++) await create(user, { ...HOME, name: `Address ${i}` });
    const agent = concurrentClient();
    let statuses: number[];
    try {
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => post(agent, user, { ...HOME, name: `Late ${i}` })),
      );
      statuses = results.map((res) => res.status).sort();
    } finally {
      agent.destroy();
    }
    expect(statuses).toEqual([201, 201, 201, 201, 201, 400, 400, 400]);
    expect(await rows(user.id)).toHaveLength(20);
    const refused = await api()
      .post('/api/v1/me/addresses')
      .auth(user.token, { type: 'bearer' })
      .send(HOME)
      .expect(400);
    expect(refused.body.data.errors).toEqual([
      { field: 'addresses', rule: 'maxCount', message: 'An account keeps at most 20 addresses' },
    ]);
    expect(await rows(user.id)).toHaveLength(20);
  });
});
