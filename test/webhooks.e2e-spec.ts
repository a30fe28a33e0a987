import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { startTestApp, TestApp } from './support/test-app.js';

// Runs on SQLite, and on MariaDB/MySQL with a mysql:// TEST_DATABASE_URL.
describe('webhooks', () => {
  let t: TestApp;
  let admin: Account;
  let user: Account;

  const api = () => request(t.url);
  const row = async (id: number) =>
    (await t.dataSource.query('SELECT name, quantity FROM webhooks WHERE id = ?', [id]))[0] as
      { name: string; quantity: number } | undefined;
  const count = async () => Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM webhooks'))[0].n);
  const create = async (body: object) =>
    (await api().post('/api/v1/webhooks').auth(admin.token, { type: 'bearer' }).send(body).expect(201)).body
      .data as { id: number; name: string; quantity: number; created_at: string; updated_at: string };

  beforeAll(async () => {
    t = await startTestApp(ADMIN_ENV);
    admin = await loginAdmin(t);
    user = await createAccount(t);
  });

  afterAll(async () => {
    await t.close();
  });

  it('POST: an admin creates one (201, stored); a user gets 403 and no token 401, nothing written', async () => {
    const before = await count();
    const denied = await api()
      .post('/api/v1/webhooks')
      .auth(user.token, { type: 'bearer' })
      .send({ name: 'Denied' })
      .expect(403);
    expect(denied.body).toEqual({
      code: 403,
      message: 'Forbidden',
      data: { details: 'Insufficient permission' },
    });
    const anonymous = await api().post('/api/v1/webhooks').send({ name: 'Anonymous' }).expect(401);
    expect(anonymous.body.code).toBe(401);
    expect(await count()).toBe(before);

    const res = await api()
      .post('/api/v1/webhooks')
      .auth(admin.token, { type: 'bearer' })
      .send({ name: 'First', quantity: 4 })
      .expect(201);
    expect(res.body).toEqual({
      code: 201,
      message: 'Created',
      data: {
        id: expect.any(Number),
        name: 'First',
        quantity: 4,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
    expect(await row(res.body.data.id)).toEqual({ name: 'First', quantity: 4 });
    expect(await count()).toBe(before + 1);
  });

  it('GET one: any signed-in user reads it; unknown id 404; a malformed id 400 naming id', async () => {
    const created = await create({ name: 'Readable' });
    const res = await api()
      .get(`/api/v1/webhooks/${created.id}`)
      .auth(user.token, { type: 'bearer' })
      .expect(200);
    expect(res.body).toEqual({ code: 200, message: 'OK', data: created });
    const missing = await api()
      .get('/api/v1/webhooks/999999')
      .auth(user.token, { type: 'bearer' })
      .expect(404);
    expect(missing.body.data.details).toBe('Webhook 999999 not found');
    const bad = await api().get('/api/v1/webhooks/abc').auth(user.token, { type: 'bearer' }).expect(400);
    expect(bad.body.data.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'id', rule: 'isInt' })]),
    );
  });

  it('bad input is a 400 naming the field and rule, and nothing is written', async () => {
    const before = await count();
    for (const [body, field, rule] of [
      [{}, 'name', 'isString'],
      [{ name: '' }, 'name', 'minLength'],
      [{ name: 'x'.repeat(201) }, 'name', 'maxLength'],
      [{ name: 'Ok', quantity: -1 }, 'quantity', 'min'],
      [{ name: 'Ok', quantity: 1.5 }, 'quantity', 'isInt'],
      [{ name: 'Ok', quantity: null }, 'quantity', expect.any(String)],
      [{ name: 'Ok', unknown: 1 }, 'unknown', expect.any(String)],
    ] as const) {
      const res = await api()
        .post('/api/v1/webhooks')
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
  });

  it('PUT: an admin changes only the fields sent and updated_at moves; a user 403; unknown 404', async () => {
    const created = await create({ name: 'Before', quantity: 2 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const res = await api()
      .put(`/api/v1/webhooks/${created.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ quantity: 9 })
      .expect(200);
    expect(res.body.data).toMatchObject({ id: created.id, name: 'Before', quantity: 9 });
    expect(Date.parse(res.body.data.updated_at)).toBeGreaterThan(Date.parse(created.updated_at));
    expect(await row(created.id)).toEqual({ name: 'Before', quantity: 9 });

    await api()
      .put(`/api/v1/webhooks/${created.id}`)
      .auth(user.token, { type: 'bearer' })
      .send({ quantity: 1 })
      .expect(403);
    const bad = await api()
      .put(`/api/v1/webhooks/${created.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ name: '' })
      .expect(400);
    expect(bad.body.data.errors).toEqual([expect.objectContaining({ field: 'name', rule: 'minLength' })]);
    expect(await row(created.id)).toEqual({ name: 'Before', quantity: 9 });
    await api()
      .put('/api/v1/webhooks/999999')
      .auth(admin.token, { type: 'bearer' })
      .send({ quantity: 1 })
      .expect(404);
  });

  it('DELETE: an admin removes it (200, data null, row gone) and again is 404; a user 403', async () => {
    const created = await create({ name: 'Doomed' });
    await api().delete(`/api/v1/webhooks/${created.id}`).auth(user.token, { type: 'bearer' }).expect(403);
    expect(await row(created.id)).toBeDefined();
    const res = await api()
      .delete(`/api/v1/webhooks/${created.id}`)
      .auth(admin.token, { type: 'bearer' })
      .expect(200);
    expect(res.body).toEqual({ code: 200, message: 'OK', data: null });
    expect(await row(created.id)).toBeUndefined();
    await api().delete(`/api/v1/webhooks/${created.id}`).auth(admin.token, { type: 'bearer' }).expect(404);
  });

  it('GET list: pages in id order with meta; page_size above the maximum is a 400', async () => {
    for (const name of ['Page A', 'Page B', 'Page C']) await create({ name });
    const total = await count();
    const ids: Array<{ id: number }> = await t.dataSource.query('SELECT id FROM webhooks ORDER BY id');
    const res = await api()
      .get('/api/v1/webhooks?page=2&page_size=2')
      .auth(user.token, { type: 'bearer' })
      .expect(200);
    expect(res.body.meta).toEqual({ page: 2, page_size: 2, total, total_page: Math.ceil(total / 2) });
    expect(res.body.data.map((item: { id: number }) => item.id)).toEqual(
      ids.slice(2, 4).map(({ id }) => Number(id)),
    );
    const tooBig = await api()
      .get('/api/v1/webhooks?page_size=101')
      .auth(user.token, { type: 'bearer' })
      .expect(400);
    expect(tooBig.body.data.errors).toEqual([expect.objectContaining({ field: 'page_size', rule: 'max' })]);
    await api().get('/api/v1/webhooks').expect(401);
  });

  it('the database itself refuses a negative quantity (CHECK on both databases)', async () => {
    await expect(
      t.dataSource.query("INSERT INTO webhooks (name, quantity) VALUES ('Direct', -1)"),
    ).rejects.toThrow(/CHK_webhooks_quantity|CHECK constraint/i);
  });
});
