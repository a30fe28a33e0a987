import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { expectRefusals } from './support/field-errors.js';
import { startTestApp, TestApp } from './support/test-app.js';

interface GroupBody {
  id: number;
  name: string;
  customer_count: number;
  created_at: string;
  updated_at: string;
}

// Runs on SQLite, and on MariaDB/MySQL with a mysql:// TEST_DATABASE_URL.
describe('customer groups', () => {
  let t: TestApp;
  let admin: Account;
  let user: Account;
  let other: Account;

  const api = () => request(t.url);
  const asAdmin = (req: request.Test) => req.auth(admin.token, { type: 'bearer' });
  const create = async (name: string) =>
    (await asAdmin(api().post('/api/v1/customer-groups')).send({ name }).expect(201)).body.data as GroupBody;
  const groupRows = async () =>
    (await t.dataSource.query('SELECT id, name FROM customer_groups ORDER BY id')) as Array<{
      id: number | string;
      name: string;
    }>;
  const membersOf = async (id: number) =>
    (
      (await t.dataSource.query(
        'SELECT user_id FROM customer_group_members WHERE customer_group_id = ? ORDER BY user_id',
        [id],
      )) as Array<{ user_id: number | string }>
    ).map((row) => Number(row.user_id));
  const addMembers = (id: number, body: object) =>
    asAdmin(api().post(`/api/v1/customer-groups/${id}/customers`)).send(body);
  const removeMembers = (id: number, body: object) =>
    asAdmin(api().delete(`/api/v1/customer-groups/${id}/customers`)).send(body);

  beforeAll(async () => {
    t = await startTestApp({ ...ADMIN_ENV });
    admin = await loginAdmin(t);
    user = await createAccount(t);
    other = await createAccount(t);
  });

  afterAll(async () => {
    await t.close();
  });

  it('POST: an admin creates one (201); a user 403, no token 401, a bad name 400: nothing written', async () => {
    const before = await groupRows();
    await api().post('/api/v1/customer-groups').send({ name: 'Nope' }).expect(401);
    await api()
      .post('/api/v1/customer-groups')
      .auth(user.token, { type: 'bearer' })
      .send({ name: 'Nope' })
      .expect(403);
    await expectRefusals(
      (body) => asAdmin(api().post('/api/v1/customer-groups')).send(body),
      [
        [{}, 'name', 'isString'],
        [{ name: '' }, 'name', 'minLength'],
        [{ name: 'x'.repeat(101) }, 'name', 'maxLength'],
        [{ name: 'VIP', extra: 1 }, 'extra', 'whitelistValidation'],
      ],
    );
    expect(await groupRows()).toEqual(before);
    const res = await asAdmin(api().post('/api/v1/customer-groups')).send({ name: 'Wholesale' }).expect(201);
    expect(res.body).toEqual({
      code: 201,
      message: expect.any(String),
      data: {
        id: expect.any(Number),
        name: 'Wholesale',
        customer_count: 0,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
    const rows = await groupRows();
    expect(rows.map((row) => [Number(row.id), row.name])).toContainEqual([res.body.data.id, 'Wholesale']);
  });

  it('GET list (paged, id order) and by id; PUT is partial; unknown id 404', async () => {
    const a = await create('Alpha');
    const b = await create('Beta');
    const list = await asAdmin(api().get('/api/v1/customer-groups?page_size=100')).expect(200);
    const ids = (list.body.data as GroupBody[]).map((group) => group.id);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(ids).toEqual(expect.arrayContaining([a.id, b.id]));
    expect(list.body.meta).toMatchObject({ page: 1, page_size: 100, total: ids.length });
    const one = await asAdmin(api().get(`/api/v1/customer-groups/${a.id}`)).expect(200);
    expect(one.body.data).toEqual(a);
    await api().get(`/api/v1/customer-groups/${a.id}`).auth(user.token, { type: 'bearer' }).expect(403);

    const renamed = await asAdmin(api().put(`/api/v1/customer-groups/${a.id}`))
      .send({ name: 'Alpha 2' })
      .expect(200);
    expect(renamed.body.data).toMatchObject({ id: a.id, name: 'Alpha 2', created_at: a.created_at });
    const unchanged = await asAdmin(api().put(`/api/v1/customer-groups/${a.id}`))
      .send({})
      .expect(200);
    expect(unchanged.body.data.name).toBe('Alpha 2');
    await expectRefusals(
      (body) => asAdmin(api().put(`/api/v1/customer-groups/${a.id}`)).send(body),
      [[{ name: null }, 'name', 'isString']],
    );
    expect((await groupRows()).find((row) => Number(row.id) === a.id)?.name).toBe('Alpha 2');

    const missing = await asAdmin(api().get('/api/v1/customer-groups/999999')).expect(404);
    expect(missing.body.data.details).toBe('Customer group 999999 not found');
    await asAdmin(api().put('/api/v1/customer-groups/999999')).send({ name: 'x' }).expect(404);
    await asAdmin(api().delete('/api/v1/customer-groups/999999')).expect(404);
    await asAdmin(api().get('/api/v1/customer-groups/abc')).expect(400);
  });

  it('members: added by user id (idempotent), listed, removed; unknown users 400 user_ids with nothing written', async () => {
    const group = await create('Members');
    const added = await addMembers(group.id, { user_ids: [user.id, other.id] }).expect(200);
    expect(added.body.data).toMatchObject({ id: group.id, name: 'Members', customer_count: 2 });
    expect(await membersOf(group.id)).toEqual([user.id, other.id].sort((a, b) => a - b));

    // Again, with a repeat inside the request: still one membership each.
    const again = await addMembers(group.id, { user_ids: [user.id, user.id] }).expect(200);
    expect(again.body.data.customer_count).toBe(2);
    expect(await membersOf(group.id)).toHaveLength(2);

    const listed = await asAdmin(api().get(`/api/v1/customer-groups/${group.id}/customers`)).expect(200);
    expect(listed.body.data).toEqual(
      [user, other]
        .sort((a, b) => a.id - b.id)
        .map((account) => ({
          id: account.id,
          username: account.username,
          email: `${account.username}@example.com`,
        })),
    );
    expect(listed.body.meta).toMatchObject({ total: 2 });

    const third = await createAccount(t);
    const unknown = await addMembers(group.id, { user_ids: [third.id, 999999] }).expect(400);
    expect(unknown.body.data.errors).toEqual([
      { field: 'user_ids', rule: 'exists', message: 'user_ids names no account: 999999' },
    ]);
    expect(await membersOf(group.id)).not.toContain(third.id);
    await expectRefusals(
      (body) => addMembers(group.id, body),
      [
        [{}, 'user_ids', 'isArray'],
        [{ user_ids: [] }, 'user_ids', 'arrayMinSize'],
        [{ user_ids: ['7'] }, 'user_ids', 'isInt'],
        [{ user_ids: [0] }, 'user_ids', 'min'],
      ],
    );
    await expectRefusals(
      (body) => removeMembers(group.id, body),
      [[{ user_ids: [999999] }, 'user_ids', 'exists']],
    );
    expect(await membersOf(group.id)).toHaveLength(2);
    await addMembers(999999, { user_ids: [user.id] }).expect(404);
    await api()
      .post(`/api/v1/customer-groups/${group.id}/customers`)
      .auth(user.token, { type: 'bearer' })
      .send({ user_ids: [user.id] })
      .expect(403);

    const removed = await removeMembers(group.id, { user_ids: [other.id, third.id] }).expect(200);
    expect(removed.body.data.customer_count).toBe(1);
    expect(await membersOf(group.id)).toEqual([user.id]);
  });

  it("a user's detail and the admin list show customer_group_ids (GET /users/{id}, GET /me, PUT /users/{id}, GET /users)", async () => {
    const account = await createAccount(t);
    const first = await create('First');
    const second = await create('Second');
    const detail = async () =>
      (await asAdmin(api().get(`/api/v1/users/${account.id}`)).expect(200)).body.data.customer_group_ids;
    expect(await detail()).toEqual([]);
    await addMembers(second.id, { user_ids: [account.id] }).expect(200);
    await addMembers(first.id, { user_ids: [account.id] }).expect(200);
    expect(await detail()).toEqual([first.id, second.id]);
    const me = await api().get('/api/v1/me').auth(account.token, { type: 'bearer' }).expect(200);
    expect(me.body.data.customer_group_ids).toEqual([first.id, second.id]);
    const updated = await api()
      .put(`/api/v1/users/${account.id}`)
      .auth(account.token, { type: 'bearer' })
      .send({ first_name: 'Grouped' })
      .expect(200);
    expect(updated.body.data).toMatchObject({
      first_name: 'Grouped',
      customer_group_ids: [first.id, second.id],
    });
    const listed = await asAdmin(api().get(`/api/v1/users?search=${account.username}`)).expect(200);
    expect(listed.body.data).toEqual([
      expect.objectContaining({ id: account.id, customer_group_ids: [first.id, second.id] }),
    ]);
    await removeMembers(first.id, { user_ids: [account.id] }).expect(200);
    expect(await detail()).toEqual([second.id]);
    // Another user's groups are not theirs to read.
    await api().get(`/api/v1/users/${account.id}`).auth(user.token, { type: 'bearer' }).expect(403);
  });

  it('DELETE removes the group and its memberships; a group a price list is limited to is 400 inUse, kept', async () => {
    const group = await create('Temporary');
    await addMembers(group.id, { user_ids: [user.id] }).expect(200);
    await api()
      .delete(`/api/v1/customer-groups/${group.id}`)
      .auth(user.token, { type: 'bearer' })
      .expect(403);
    await asAdmin(api().delete(`/api/v1/customer-groups/${group.id}`)).expect(200);
    expect((await groupRows()).some((row) => Number(row.id) === group.id)).toBe(false);
    expect(await membersOf(group.id)).toEqual([]);
    await asAdmin(api().get(`/api/v1/customer-groups/${group.id}`)).expect(404);

    const used = await create('Used');
    await addMembers(used.id, { user_ids: [user.id] }).expect(200);
    const list = await asAdmin(api().post('/api/v1/price-lists'))
      .send({ name: 'For Used', type: 'sale', customer_group_ids: [used.id] })
      .expect(201);
    const refused = await asAdmin(api().delete(`/api/v1/customer-groups/${used.id}`)).expect(400);
    expect(refused.body.data.errors).toEqual([
      {
        field: 'id',
        rule: 'inUse',
        message: `customer group ${used.id} is used by a price list or a promotion: take it out of them first`,
      },
    ]);
    expect((await groupRows()).some((row) => Number(row.id) === used.id)).toBe(true);
    expect(await membersOf(used.id)).toEqual([user.id]);
    await asAdmin(api().put(`/api/v1/price-lists/${list.body.data.id}`))
      .send({ customer_group_ids: [] })
      .expect(200);
    await asAdmin(api().delete(`/api/v1/customer-groups/${used.id}`)).expect(200);
  });
});
