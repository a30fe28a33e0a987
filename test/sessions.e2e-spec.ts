import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash, randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import request from 'supertest';
import { SessionPurge } from '../src/sessions/session-purge.js';
import {
  ADMIN_ENV,
  createAccount,
  forgeToken,
  loginAdmin,
  loginSession,
  sessionIdOf,
  type Account,
} from './support/accounts.js';
import { startTestApp, TestApp } from './support/test-app.js';
import { TestSocket } from './support/ws-client.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const LOGIN_FAILURE_WINDOW_S = 3;

describe('sessions', () => {
  let t: TestApp;
  let admin: Account;
  const sockets: TestSocket[] = [];

  const api = () => request(t.url);
  const sessionRow = async (id: string) =>
    (
      await t.dataSource.query(
        'SELECT id, user_id, refresh_token_hash, revoked_at, expires_at, user_agent, ip FROM sessions WHERE id = ?',
        [id],
      )
    )[0];
  const getMe = (token: string) => api().get('/api/v1/me').auth(token, { type: 'bearer' });
  const refresh = (refreshToken: unknown) =>
    api().post('/api/v1/auth/refresh').send({ refresh_token: refreshToken });
  const connect = async (token: string) => {
    const socket = await TestSocket.authenticated(t, token);
    sockets.push(socket);
    return socket;
  };
  /** Resolves with the close and how long after `since` it came. */
  const closedWithin = async (socket: TestSocket, since: number) => {
    const closed = await socket.closed;
    return { ...closed, afterMs: Date.now() - since };
  };

  beforeAll(async () => {
    t = await startTestApp(ADMIN_ENV);
    admin = await loginAdmin(t);
  });

  afterEach(async () => {
    await Promise.all(sockets.splice(0).map((socket) => socket.close()));
  });

  afterAll(async () => {
    await t.close();
  });

  it('documents every session endpoint in the OpenAPI document, with its errors', async () => {
    const doc = (await api().get('/api/docs-json').expect(200)).body;
    const expected: Array<[string, string, string[]]> = [
      ['/api/v1/auth/refresh', 'post', ['200', '400', '401', '403', '429', '500']],
      ['/api/v1/logout', 'post', ['200', '400', '401', '429', '500']],
      ['/api/v1/sessions', 'get', ['200', '400', '401', '429', '500']],
      ['/api/v1/sessions', 'delete', ['200', '400', '401', '429', '500']],
      ['/api/v1/sessions/{id}', 'delete', ['200', '400', '401', '404', '429', '500']],
      ['/api/v1/users/{id}/sessions', 'get', ['200', '400', '401', '403', '404', '429', '500']],
      ['/api/v1/users/{id}/sessions', 'delete', ['200', '400', '401', '403', '404', '429', '500']],
      [
        '/api/v1/users/{id}/sessions/{sessionId}',
        'delete',
        ['200', '400', '401', '403', '404', '429', '500'],
      ],
      ['/api/v1/me', 'get', ['200', '401', '429', '500']],
      ['/api/v1/me/password', 'put', ['200', '400', '401', '429', '500']],
    ];
    for (const [path, method, codes] of expected) {
      expect(Object.keys(doc.paths[path]?.[method]?.responses ?? {}).sort()).toEqual(codes);
    }
    expect(doc.paths['/api/v1/auth/refresh'].post.security).toBeUndefined();
    expect(Object.keys(doc.components.schemas.LoginResponseDto.properties)).toEqual(
      expect.arrayContaining(['expires_in', 'refresh_expires_in', 'refresh_token', 'token', 'user']),
    );
    expect(doc.components.schemas.SessionResponseDto.required).toEqual(
      expect.arrayContaining([
        'id',
        'created_at',
        'last_used_at',
        'expires_at',
        'user_agent',
        'ip',
        'current',
      ]),
    );
  });

  describe('login', () => {
    it('creates a session that stores only a hash of the refresh token, with the client and expiry', async () => {
      const account = await createAccount(t);
      const res = await api()
        .post('/api/v1/login')
        .set('User-Agent', 'SessionsTest/1.0')
        .send({ username: account.username, password: 'password-123' })
        .expect(200);
      const { token, refresh_token: refreshToken } = res.body.data;
      const sid = sessionIdOf(token);
      expect(sid).toMatch(UUID);
      // 256 random bits after the session id.
      expect(refreshToken).toMatch(new RegExp(`^${sid}\\.[A-Za-z0-9_-]{43}$`));
      const row = await sessionRow(sid);
      expect(row).toMatchObject({ user_id: account.id, revoked_at: null, user_agent: 'SessionsTest/1.0' });
      expect(row.ip).toBe('127.0.0.1');
      expect(row.refresh_token_hash).toBe(
        createHash('sha256').update(refreshToken.split('.')[1]).digest('hex'),
      );
      expect(JSON.stringify(await t.dataSource.query('SELECT * FROM sessions'))).not.toContain(
        refreshToken.split('.')[1],
      );
      const expiresIn = new Date(row.expires_at).getTime() - Date.now();
      expect(Math.abs(expiresIn - 30 * 86400_000)).toBeLessThan(60_000);
    });
  });

  describe('POST /auth/refresh', () => {
    it('rotates: a new access token and refresh token for the same session, without a bearer token', async () => {
      const account = await createAccount(t);
      const first = await loginSession(t, account.username);
      const res = await refresh(first.refresh_token).expect(200);
      expect(Object.keys(res.body.data)).toEqual(
        expect.arrayContaining(['expires_in', 'refresh_expires_in', 'refresh_token', 'token']),
      );
      expect(res.body.data).toMatchObject({ expires_in: 900, refresh_expires_in: 30 * 86400 });
      expect(res.body.data.refresh_token).not.toBe(first.refresh_token);
      expect(sessionIdOf(res.body.data.token)).toBe(sessionIdOf(first.token));
      await getMe(res.body.data.token).expect(200);
      // The next refresh uses the new token.
      await refresh(res.body.data.refresh_token).expect(200);
    });

    it('treats a rotated refresh token presented again as theft: 401 and the whole session revoked', async () => {
      const account = await createAccount(t);
      const first = await loginSession(t, account.username);
      const second = (await refresh(first.refresh_token).expect(200)).body.data;
      const reuse = await refresh(first.refresh_token).expect(401);
      expect(reuse.body).toEqual({
        code: 401,
        message: 'Unauthorized',
        data: { details: 'Refresh token was already used: the session has been revoked' },
      });
      expect((await sessionRow(sessionIdOf(first.token))).revoked_at).not.toBeNull();
      // Every token of the family is dead: the newest refresh token and both access tokens.
      expect((await refresh(second.refresh_token).expect(401)).body.data.details).toBe(
        'Session has been revoked',
      );
      await getMe(second.token).expect(401);
      await getMe(first.token).expect(401);
    });

    it('answers a made-up secret with a real session id (from any access token) with a plain 401, changing nothing', async () => {
      const account = await createAccount(t);
      const session = await loginSession(t, account.username);
      const sid = sessionIdOf(session.token);
      const forged = () => `${sid}.${randomBytes(32).toString('base64url')}`;
      const before = await sessionRow(sid);
      for (let i = 0; i < 3; i += 1) {
        expect((await refresh(forged()).expect(401)).body).toEqual({
          code: 401,
          message: 'Unauthorized',
          data: { details: 'Invalid refresh token' },
        });
      }
      expect(await sessionRow(sid)).toEqual(before);
      await getMe(session.token).expect(200);
      // The owner's tokens go on working, and a forgery after a rotation changes nothing either.
      const next = (await refresh(session.refresh_token).expect(200)).body.data;
      const rotated = await sessionRow(sid);
      await refresh(forged()).expect(401);
      expect(await sessionRow(sid)).toEqual(rotated);
      await getMe(next.token).expect(200);
      // A revoked session does not tell a forger so either.
      await api().post('/api/v1/logout').auth(next.token, { type: 'bearer' }).expect(200);
      expect((await refresh(forged()).expect(401)).body.data.details).toBe('Invalid refresh token');
      expect((await refresh(next.refresh_token).expect(401)).body.data.details).toBe(
        'Session has been revoked',
      );
    });

    it('keeps the hash of every rotated secret, so a replay of any earlier one still revokes the session', async () => {
      const account = await createAccount(t);
      const first = await loginSession(t, account.username);
      const sid = sessionIdOf(first.token);
      const tokens = [first.refresh_token];
      for (let i = 0; i < 3; i += 1)
        tokens.push((await refresh(tokens[i]).expect(200)).body.data.refresh_token);
      const sha256 = (token: string) => createHash('sha256').update(token.split('.')[1]).digest('hex');
      const rows = await t.dataSource.query(
        'SELECT token_hash FROM session_rotated_tokens WHERE session_id = ? ORDER BY rotated_at, token_hash',
        [sid],
      );
      // The three rotated secrets, as hashes only; the current one is not among them.
      expect(rows.map((row: { token_hash: string }) => row.token_hash).sort()).toEqual(
        tokens.slice(0, 3).map(sha256).sort(),
      );
      expect(JSON.stringify(rows)).not.toContain(tokens[0].split('.')[1]);
      expect((await refresh(tokens[1]).expect(401)).body.data.details).toBe(
        'Refresh token was already used: the session has been revoked',
      );
      expect((await sessionRow(sid)).revoked_at).not.toBeNull();
      await refresh(tokens[3]).expect(401);
    });

    it('lets exactly one of two concurrent refreshes with the same token succeed', async () => {
      const account = await createAccount(t);
      for (let trial = 0; trial < 5; trial += 1) {
        const session = await loginSession(t, account.username);
        const answers = await Promise.all([refresh(session.refresh_token), refresh(session.refresh_token)]);
        expect(answers.map((res) => res.status).sort()).toEqual([200, 401]);
        // The loser presented a token that had just been rotated: a reuse, so the session ends.
        expect((await sessionRow(sessionIdOf(session.token))).revoked_at).not.toBeNull();
      }
      // Three at once: still one winner, and every loser gets 401.
      const session = await loginSession(t, account.username);
      const answers = await Promise.all([1, 2, 3].map(() => refresh(session.refresh_token)));
      expect(answers.map((res) => res.status).sort()).toEqual([200, 401, 401]);
    });

    it('refuses unknown, malformed, expired and revoked refresh tokens with 401, and a missing one with 400', async () => {
      const account = await createAccount(t);
      const live = await loginSession(t, account.username);
      const sid = sessionIdOf(live.token);
      const unknown = `${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}.${'A'.repeat(43)}`;
      for (const token of [unknown, 'garbage', `${sid}.short`, `${live.refresh_token} `]) {
        expect((await refresh(token).expect(401)).body.data.details).toBe('Invalid refresh token');
      }
      // None of those was taken for a replay of this session's token.
      expect((await sessionRow(sid)).revoked_at).toBeNull();
      expect((await refresh(undefined).expect(400)).body.data.details).toContain('refresh_token');

      const expiring = await loginSession(t, account.username);
      await t.dataSource.query('UPDATE sessions SET expires_at = ? WHERE id = ?', [
        '2020-01-01 00:00:00.000',
        sessionIdOf(expiring.token),
      ]);
      expect((await refresh(expiring.refresh_token).expect(401)).body.data.details).toBe(
        'Session has expired',
      );
      await getMe(expiring.token).expect(401);

      await api().post('/api/v1/logout').auth(live.token, { type: 'bearer' }).expect(200);
      expect((await refresh(live.refresh_token).expect(401)).body.data.details).toBe(
        'Session has been revoked',
      );
    });
  });

  describe('POST /logout', () => {
    it("revokes the caller's session: its access and refresh tokens stop working at once", async () => {
      const account = await createAccount(t);
      const session = await loginSession(t, account.username);
      const other = await loginSession(t, account.username);
      await getMe(session.token).expect(200);
      const res = await api().post('/api/v1/logout').auth(session.token, { type: 'bearer' }).expect(200);
      expect(res.body).toEqual({ code: 200, message: 'OK', data: null });
      const after = await getMe(session.token).expect(401);
      expect(after.body.data.details).toBe('Token is no longer valid');
      await refresh(session.refresh_token).expect(401);
      expect((await sessionRow(sessionIdOf(session.token))).revoked_at).not.toBeNull();
      // The user's other session is untouched.
      await getMe(other.token).expect(200);
      await api().post('/api/v1/logout').expect(401);
    });
  });

  describe('GET and DELETE /sessions', () => {
    it('lists the caller’s active sessions, newest use first, marking the current one', async () => {
      const account = await createAccount(t);
      const ended = await loginSession(t, account.username);
      await api().post('/api/v1/logout').auth(ended.token, { type: 'bearer' }).expect(200);
      const older = await loginSession(t, account.username);
      const current = await loginSession(t, account.username);
      await createAccount(t); // someone else's sessions never show
      const res = await api().get('/api/v1/sessions').auth(current.token, { type: 'bearer' }).expect(200);
      expect(res.body.meta).toEqual({ page: 1, page_size: 10, total: 3, total_page: 1 });
      // createAccount's own login, then the two above; the revoked one is not listed.
      const ids = res.body.data.map((s: { id: string }) => s.id);
      expect(ids).not.toContain(sessionIdOf(ended.token));
      expect(ids.slice(0, 2)).toEqual([sessionIdOf(current.token), sessionIdOf(older.token)]);
      const fields = Object.keys(res.body.data[0]);
      expect(fields).toEqual(
        expect.arrayContaining([
          'created_at',
          'current',
          'expires_at',
          'id',
          'ip',
          'last_used_at',
          'user_agent',
        ]),
      );
      // A session is listed, never its secrets.
      expect(fields.filter((field) => /token|hash|secret/i.test(field))).toEqual([]);
      expect(res.body.data[0]).toMatchObject({ current: true, ip: '127.0.0.1' });
      expect(res.body.data[0].created_at).toMatch(ISO_UTC);
      expect(res.body.data.slice(1).every((s: { current: boolean }) => !s.current)).toBe(true);
    });

    it('revokes one own session by id; another user’s session is 404 and a malformed id 400', async () => {
      const account = await createAccount(t);
      const stranger = await createAccount(t);
      const current = await loginSession(t, account.username);
      const target = await loginSession(t, account.username);
      const strangerSid = sessionIdOf(stranger.token);

      const foreign = await api()
        .delete(`/api/v1/sessions/${strangerSid}`)
        .auth(current.token, { type: 'bearer' })
        .expect(404);
      expect(foreign.body.data.details).toBe(`Session ${strangerSid} not found`);
      expect((await sessionRow(strangerSid)).revoked_at).toBeNull();
      await getMe(stranger.token).expect(200);

      const bad = await api()
        .delete('/api/v1/sessions/42')
        .auth(current.token, { type: 'bearer' })
        .expect(400);
      expect(bad.body.data.details).toBe('id must be a session id (a UUID)');

      await api()
        .delete(`/api/v1/sessions/${sessionIdOf(target.token)}`)
        .auth(current.token, { type: 'bearer' })
        .expect(200);
      await getMe(target.token).expect(401);
      await refresh(target.refresh_token).expect(401);
      await getMe(current.token).expect(200);
      // Already revoked: 404.
      await api()
        .delete(`/api/v1/sessions/${sessionIdOf(target.token)}`)
        .auth(current.token, { type: 'bearer' })
        .expect(404);
    });

    it('DELETE /sessions revokes all but the current session', async () => {
      const account = await createAccount(t);
      const others = [await loginSession(t, account.username), await loginSession(t, account.username)];
      const current = await loginSession(t, account.username);
      const res = await api().delete('/api/v1/sessions').auth(current.token, { type: 'bearer' }).expect(200);
      // The two above and createAccount's own login.
      expect(res.body.data).toMatchObject({ revoked: 3 });
      for (const other of others) await getMe(other.token).expect(401);
      await getMe(current.token).expect(200);
      const live = await t.dataSource.query(
        'SELECT id FROM sessions WHERE user_id = ? AND revoked_at IS NULL',
        [account.id],
      );
      expect(live).toEqual([{ id: sessionIdOf(current.token) }]);
    });
  });

  describe('/users/{id}/sessions (admin)', () => {
    it('an admin lists a customer’s live sessions; the customer and other users are refused', async () => {
      const customer = await createAccount(t);
      const ended = await loginSession(t, customer.username);
      await api().post('/api/v1/logout').auth(ended.token, { type: 'bearer' }).expect(200);
      const later = await loginSession(t, customer.username);
      const res = await api()
        .get(`/api/v1/users/${customer.id}/sessions`)
        .auth(admin.token, { type: 'bearer' })
        .expect(200);
      expect(res.body.meta).toEqual({ page: 1, page_size: 10, total: 2, total_page: 1 });
      expect(res.body.data.map((s: { id: string }) => s.id)).toEqual([
        sessionIdOf(later.token),
        sessionIdOf(customer.token),
      ]);
      // `current` is the caller's own session: never one of the customer's.
      expect(res.body.data.every((s: { current: boolean }) => !s.current)).toBe(true);

      const forbidden = await api()
        .get(`/api/v1/users/${customer.id}/sessions`)
        .auth(customer.token, { type: 'bearer' })
        .expect(403);
      expect(forbidden.body).toMatchObject({ code: 403, data: { details: 'Insufficient permission' } });
      const missing = await api()
        .get('/api/v1/users/999999/sessions')
        .auth(admin.token, { type: 'bearer' })
        .expect(404);
      expect(missing.body.data.details).toBe('User 999999 not found');
      const bad = await api()
        .get('/api/v1/users/x/sessions')
        .auth(admin.token, { type: 'bearer' })
        .expect(400);
      expect(bad.body.data.errors[0]).toMatchObject({ field: 'id' });
    });

    it('an admin revokes one session of a customer, then all of them; the tokens stop working', async () => {
      const customer = await createAccount(t);
      const other = await loginSession(t, customer.username);
      const stranger = await createAccount(t);
      const socket = await connect(customer.token);

      const foreign = await api()
        .delete(`/api/v1/users/${customer.id}/sessions/${sessionIdOf(stranger.token)}`)
        .auth(admin.token, { type: 'bearer' })
        .expect(404);
      expect(foreign.body.data.details).toBe(`Session ${sessionIdOf(stranger.token)} not found`);
      expect((await sessionRow(sessionIdOf(stranger.token))).revoked_at).toBeNull();
      const malformed = await api()
        .delete(`/api/v1/users/${customer.id}/sessions/42`)
        .auth(admin.token, { type: 'bearer' })
        .expect(400);
      expect(malformed.body.data.errors).toEqual([
        { field: 'sessionId', rule: 'isUuid', message: 'sessionId must be a session id (a UUID)' },
      ]);

      await api()
        .delete(`/api/v1/users/${customer.id}/sessions/${sessionIdOf(other.token)}`)
        .auth(admin.token, { type: 'bearer' })
        .expect(200);
      await getMe(other.token).expect(401);
      await refresh(other.refresh_token).expect(401);
      await getMe(customer.token).expect(200);

      const since = Date.now();
      const all = await api()
        .delete(`/api/v1/users/${customer.id}/sessions`)
        .auth(admin.token, { type: 'bearer' })
        .expect(200);
      expect(all.body.data).toMatchObject({ revoked: 1 });
      await getMe(customer.token).expect(401);
      expect((await closedWithin(socket, since)).code).toBe(4401);
      const live = await t.dataSource.query(
        'SELECT id FROM sessions WHERE user_id = ? AND revoked_at IS NULL',
        [customer.id],
      );
      expect(live).toEqual([]);
      // The account itself stays active: a new login works.
      await loginSession(t, customer.username);
      await getMe(stranger.token).expect(200);
    });
  });

  describe('GET /me and PUT /me/password', () => {
    it('GET /me returns the caller in the detail shape, with phone and address', async () => {
      const account = await createAccount(t, { phone: '+1 555 0199', address: '9 Elm St' });
      const res = await getMe(account.token).expect(200);
      expect(res.body.data).toMatchObject({
        id: account.id,
        username: account.username,
        phone: '+1 555 0199',
        address: '9 Elm St',
        role: 'user',
        is_active: true,
      });
      expect(JSON.stringify(res.body)).not.toMatch(/password|argon2/);
      await api().get('/api/v1/me').expect(401);
    });

    it('changes the password: the current session stays, every other one is revoked', async () => {
      const account = await createAccount(t);
      const other = await loginSession(t, account.username);
      const current = await loginSession(t, account.username);
      const wrong = await api()
        .put('/api/v1/me/password')
        .auth(current.token, { type: 'bearer' })
        .send({ current_password: 'not-my-password', new_password: 'brand-new-password' })
        .expect(401);
      expect(wrong.body.data.details).toBe('Invalid username or password');
      const weak = await api()
        .put('/api/v1/me/password')
        .auth(current.token, { type: 'bearer' })
        .send({ current_password: 'password-123', new_password: 'short' })
        .expect(400);
      expect(weak.body.data.details).toBe('new_password must be longer than or equal to 8 characters');
      await getMe(other.token).expect(200);

      const res = await api()
        .put('/api/v1/me/password')
        .auth(current.token, { type: 'bearer' })
        .send({ current_password: 'password-123', new_password: 'brand-new-password' })
        .expect(200);
      expect(res.body.data).toBeNull();
      await getMe(current.token).expect(200);
      await refresh(current.refresh_token).expect(200);
      await getMe(other.token).expect(401);
      await getMe(account.token).expect(401);
      await refresh(other.refresh_token).expect(401);
      await api()
        .post('/api/v1/login')
        .send({ username: account.username, password: 'password-123' })
        .expect(401);
      await loginSession(t, account.username, 'brand-new-password');
    });
  });

  describe('admin actions', () => {
    const put = (id: number, body: object) =>
      api().put(`/api/v1/users/${id}`).auth(admin.token, { type: 'bearer' }).send(body);

    it('deactivation revokes the user’s sessions and reactivation revives none of them', async () => {
      const account = await createAccount(t);
      const session = await loginSession(t, account.username);
      await put(account.id, { is_active: false }).expect(200);
      await getMe(session.token).expect(401);
      await refresh(session.refresh_token).expect(401);
      await put(account.id, { is_active: true }).expect(200);
      await getMe(session.token).expect(401);
      await getMe(account.token).expect(401);
      await refresh(session.refresh_token).expect(401);
      const live = await t.dataSource.query(
        'SELECT COUNT(*) AS n FROM sessions WHERE user_id = ? AND revoked_at IS NULL',
        [account.id],
      );
      expect(Number(live[0].n)).toBe(0);
      // A new login works again.
      await getMe((await loginSession(t, account.username)).token).expect(200);
    });

    it('a change of role revokes the user’s sessions; an edit of the profile does not', async () => {
      const account = await createAccount(t);
      await put(account.id, { first_name: 'Renamed', role: 'user' }).expect(200);
      await getMe(account.token).expect(200);
      await put(account.id, { role: 'admin' }).expect(200);
      expect((await getMe(account.token).expect(401)).body.data.details).toBe('Token is no longer valid');
      const fresh = await loginSession(t, account.username);
      expect((await getMe(fresh.token).expect(200)).body.data.role).toBe('admin');
    });

    it('deletion revokes the user’s sessions', async () => {
      const account = await createAccount(t);
      const session = await loginSession(t, account.username);
      await api().delete(`/api/v1/users/${account.id}`).auth(admin.token, { type: 'bearer' }).expect(200);
      await getMe(session.token).expect(401);
      await refresh(session.refresh_token).expect(401);
      const row = await sessionRow(sessionIdOf(session.token));
      expect(row.revoked_at).not.toBeNull();
    });
  });

  describe('per-account login throttling', () => {
    const from = (address: string) => new Agent({ localAddress: address });
    const attempt = (agent: Agent, username: string, password: string) =>
      api().post('/api/v1/login').agent(agent).send({ username, password });
    const viaA = from('127.0.0.2');
    const viaB = from('127.0.0.3');

    afterAll(() => {
      viaA.destroy();
      viaB.destroy();
    });

    it('locks a username after 5 failures from two addresses, then answers 429 with Retry-After from any', async () => {
      const account = await createAccount(t);
      for (let i = 0; i < 5; i += 1) {
        const res = await attempt(i % 2 === 0 ? viaA : viaB, account.username, 'wrong-password');
        expect(res.status).toBe(401);
      }
      for (const agent of [viaA, viaB]) {
        // Even the right password is refused until the window passes.
        const res = await attempt(agent, account.username, 'password-123').expect(429);
        expect(res.body).toEqual({
          code: 429,
          message: 'Too Many Requests',
          data: {
            details: expect.stringMatching(/^Too many failed logins for this account: retry in \d+ s$/),
          },
        });
        const retryAfter = Number(res.headers['retry-after']);
        expect(retryAfter).toBeGreaterThan(0);
        expect(retryAfter).toBeLessThanOrEqual(15 * 60);
      }
      // Another account is not affected, from the same addresses.
      const other = await createAccount(t);
      const ok = await attempt(viaB, other.username, 'password-123').expect(200);
      // The server saw the second address (TRUST_PROXY is off).
      expect((await sessionRow(sessionIdOf(ok.body.data.token))).ip).toBe('127.0.0.3');
      // The count ignores case, as usernames do.
      await attempt(viaB, account.username.toUpperCase(), 'password-123').expect(429);
    });

    it('locks the account under every form login folds to its name: full-width, case, compatibility characters', async () => {
      const suffix = String(Date.now() % 1_000_000);
      const account = await createAccount(t, { username: `fik2_${suffix}` });
      const fullWidth = (name: string) =>
        name.replace(/[!-~]/g, (c) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0));
      // NFKC: the ligature ﬁ is "fi", the Kelvin sign "K", superscript two "2", mathematical bold letters ASCII.
      const forms = [
        fullWidth(account.username),
        account.username.toUpperCase(),
        fullWidth(account.username.toUpperCase()),
        `\uFB01\u212A\u00B2_${suffix}`,
        `\u{1D41F}\u{1D422}\u{1D424}2_${fullWidth(suffix)}`,
      ];
      const sessionsOf = async () =>
        Number(
          (await t.dataSource.query('SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?', [account.id]))[0]
            .n,
        );
      // Each form's failure counts against the one account: five of them lock it.
      for (const [i, form] of forms.entries()) {
        await attempt(i % 2 === 0 ? viaA : viaB, form, 'wrong-password').expect(401);
      }
      await attempt(viaA, account.username, 'password-123').expect(429);
      // And no form gets past the lock, not even with the right password.
      for (const form of forms) {
        const res = await attempt(viaB, form, 'password-123');
        expect({ form, status: res.status }).toEqual({ form, status: 429 });
        expect(res.body.data.details).toMatch(/^Too many failed logins for this account: retry in \d+ s$/);
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      }
      // Login takes usernames only: the email, or a name MySQL's collation would match (accent, trailing
      // space) but registration never gives, is an unknown user, not a way around the lock.
      for (const name of [
        `${account.username}@example.com`,
        `fi\u0301k2_${suffix}`,
        `${account.username} `,
      ]) {
        const res = await attempt(viaA, name, 'password-123');
        expect({ name, status: res.status }).toEqual({ name, status: 401 });
        expect(res.body.data.details).toBe('Invalid username or password');
      }
      expect(await sessionsOf()).toBe(1); // the login of createAccount only
    });

    it('counts unknown usernames the same way and answers them alike', async () => {
      const known = await createAccount(t);
      const unknown = `nobody_${Date.now()}`;
      const answers: Record<string, { status: number; body: unknown; retryAfter: boolean }[]> = {
        known: [],
        unknown: [],
      };
      for (let i = 0; i < 6; i += 1) {
        const agent = i % 2 === 0 ? viaA : viaB;
        for (const [name, username] of [
          ['known', known.username],
          ['unknown', unknown],
        ]) {
          const res = await attempt(agent, username, 'wrong-password');
          // The seconds left may differ by one between the two windows; everything else must not.
          const body = JSON.parse(JSON.stringify(res.body).replace(/retry in \d+ s/, 'retry in N s'));
          answers[name].push({
            status: res.status,
            body,
            retryAfter: res.headers['retry-after'] !== undefined,
          });
        }
      }
      expect(answers.known.map((a) => a.status)).toEqual([401, 401, 401, 401, 401, 429]);
      expect(answers.unknown).toEqual(answers.known);
    });

    it('starts the count again after a successful login', async () => {
      const account = await createAccount(t);
      for (let round = 0; round < 2; round += 1) {
        for (let i = 0; i < 4; i += 1) await attempt(viaA, account.username, 'wrong-password').expect(401);
        await attempt(viaB, account.username, 'password-123').expect(200);
      }
    });

    it('counts wrong current passwords of a password change against the account too', async () => {
      const account = await createAccount(t);
      for (let i = 0; i < 5; i += 1) {
        await api()
          .put('/api/v1/me/password')
          .auth(account.token, { type: 'bearer' })
          .send({ current_password: 'wrong-password', new_password: 'another-password' })
          .expect(401);
      }
      await attempt(viaA, account.username, 'password-123').expect(429);
    });
  });

  describe('token hygiene', () => {
    let account: Account;
    let sid: string;
    const now = () => Math.floor(Date.now() / 1000);
    const forge = (claims: Record<string, unknown>) => forgeToken(claims, t.config.jwt.secret);

    beforeAll(async () => {
      account = await createAccount(t);
      sid = sessionIdOf(account.token);
    });

    it('accepts a well-formed token forged with the right secret (the control case)', async () => {
      const token = forge({
        sub: String(account.id),
        sid,
        username: account.username,
        role: 'user',
        exp: now() + 60,
      });
      await getMe(token).expect(200);
    });

    it.each([
      ['without exp', { exp: undefined }],
      ['without sid', { sid: undefined }],
      ['with a sid that is not a UUID', { sid: 'abc' }],
      ['with sub "0x2"-style hex', { sub: 'hex' }],
      ['with sub padded with spaces', { sub: 'spaced' }],
      ['with sub "N.0"', { sub: 'decimal' }],
      ['with sub as an array', { sub: 'array' }],
      ['with sub as a number', { sub: 'number' }],
      ['with a leading zero in sub', { sub: 'zero' }],
    ])('refuses a token %s with 401', async (_case, change: Record<string, unknown>) => {
      const id = account.id;
      const subs: Record<string, unknown> = {
        hex: `0x${id.toString(16)}`,
        spaced: ` ${id} `,
        decimal: `${id}.0`,
        array: [id],
        number: id,
        zero: `0${id}`,
      };
      const claims: Record<string, unknown> = {
        sub: String(id),
        sid,
        username: account.username,
        role: 'user',
        exp: now() + 60,
        ...change,
      };
      if (typeof change.sub === 'string') claims.sub = subs[change.sub];
      const res = await getMe(forge(claims)).expect(401);
      expect(res.body.data.details).toBe('Invalid token claims');
    });

    it('refuses an Authorization header with anything after the token', async () => {
      for (const header of [
        `Bearer ${account.token} extra`,
        `Bearer ${account.token},x`,
        `Token ${account.token}`,
      ]) {
        const res = await api().get('/api/v1/me').set('Authorization', header).expect(401);
        expect(res.body.data.details).toBe('Invalid bearer token');
      }
      await api().get('/api/v1/me').set('Authorization', `bearer ${account.token}`).expect(200);
    });

    it('refuses the token of another user’s session (sub and sid must belong together)', async () => {
      const other = await createAccount(t);
      const token = forge({
        sub: String(other.id),
        sid,
        username: other.username,
        role: 'user',
        exp: now() + 60,
      });
      expect((await getMe(token).expect(401)).body.data.details).toBe('Token is no longer valid');
    });
  });

  describe('purge of expired sessions', () => {
    it('deletes expired sessions only, and is safe when run several times at once', async () => {
      const account = await createAccount(t);
      const expired = [await loginSession(t, account.username), await loginSession(t, account.username)];
      const live = await loginSession(t, account.username);
      for (const session of expired) {
        await t.dataSource.query('UPDATE sessions SET expires_at = ? WHERE id = ?', [
          '2020-01-01 00:00:00.000',
          sessionIdOf(session.token),
        ]);
      }
      const purge = t.app.get(SessionPurge);
      await Promise.all([purge.purge(), purge.purge(), purge.purge()]);
      for (const session of expired) expect(await sessionRow(sessionIdOf(session.token))).toBeUndefined();
      expect(await sessionRow(sessionIdOf(live.token))).toBeDefined();
      const stale = await t.dataSource.query('SELECT COUNT(*) AS n FROM sessions WHERE expires_at <= ?', [
        new Date().toISOString().replace('T', ' ').replace('Z', ''),
      ]);
      expect(Number(stale[0].n)).toBe(0);
    });

    it('deletes the rotated secrets with their session, and those of a live session once older than REFRESH_TOKEN_TTL', async () => {
      const account = await createAccount(t);
      const rotatedOf = async (sid: string) =>
        Number(
          (
            await t.dataSource.query(
              'SELECT COUNT(*) AS n FROM session_rotated_tokens WHERE session_id = ?',
              [sid],
            )
          )[0].n,
        );
      const expiring = await loginSession(t, account.username);
      await refresh(expiring.refresh_token).expect(200);
      const live = await loginSession(t, account.username);
      const second = (await refresh(live.refresh_token).expect(200)).body.data;
      await refresh(second.refresh_token).expect(200);
      const [expiringSid, liveSid] = [sessionIdOf(expiring.token), sessionIdOf(live.token)];
      expect([await rotatedOf(expiringSid), await rotatedOf(liveSid)]).toEqual([1, 2]);
      await t.dataSource.query('UPDATE sessions SET expires_at = ? WHERE id = ?', [
        '2020-01-01 00:00:00.000',
        expiringSid,
      ]);
      // The first rotation of the live session is 31 days old: its token would have expired by now.
      const oldHash = createHash('sha256').update(live.refresh_token.split('.')[1]).digest('hex');
      await t.dataSource.query('UPDATE session_rotated_tokens SET rotated_at = ? WHERE token_hash = ?', [
        new Date(Date.now() - 31 * 86400_000).toISOString().replace('T', ' ').replace('Z', ''),
        oldHash,
      ]);
      await t.app.get(SessionPurge).purge();
      expect(await sessionRow(expiringSid)).toBeUndefined();
      expect([await rotatedOf(expiringSid), await rotatedOf(liveSid)]).toEqual([0, 1]);
      // The purged one is now only an unknown secret; the recent one still counts as a replay.
      expect((await refresh(live.refresh_token).expect(401)).body.data.details).toBe('Invalid refresh token');
      expect((await sessionRow(liveSid)).revoked_at).toBeNull();
      expect((await refresh(second.refresh_token).expect(401)).body.data.details).toBe(
        'Refresh token was already used: the session has been revoked',
      );
    });
  });

  describe('WebSocket connections', () => {
    const within = 1000;

    it('closes a socket with an error frame and 4401 within a second of its session’s logout', async () => {
      const account = await createAccount(t);
      const session = await loginSession(t, account.username);
      const socket = await connect(session.token);
      const bystander = await connect(account.token); // another session of the same user
      const since = Date.now();
      await api().post('/api/v1/logout').auth(session.token, { type: 'bearer' }).expect(200);
      expect(await socket.next()).toEqual({
        type: 'error',
        data: { code: 401, details: 'Session has been revoked' },
      });
      const closed = await closedWithin(socket, since);
      expect(closed).toMatchObject({ code: 4401, reason: 'Unauthorized' });
      expect(closed.afterMs).toBeLessThan(within);
      bystander.send({ type: 'ping' });
      expect((await bystander.next()).type).toBe('pong');
    });

    it.each([
      [
        'deactivation',
        (id: number) =>
          api().put(`/api/v1/users/${id}`).auth(admin.token, { type: 'bearer' }).send({ is_active: false }),
      ],
      ['deletion', (id: number) => api().delete(`/api/v1/users/${id}`).auth(admin.token, { type: 'bearer' })],
    ])('closes every socket of the user within a second of %s', async (_case, act) => {
      const account = await createAccount(t);
      const second = await loginSession(t, account.username);
      const socketsOfUser = [await connect(account.token), await connect(second.token)];
      const since = Date.now();
      await act(account.id).expect(200);
      for (const socket of socketsOfUser) {
        expect((await socket.next()).data).toEqual({ code: 401, details: 'Session has been revoked' });
        const closed = await closedWithin(socket, since);
        expect(closed.code).toBe(4401);
        expect(closed.afterMs).toBeLessThan(within);
      }
    });

    it('a password change closes the sockets of the other sessions and keeps the current one', async () => {
      const account = await createAccount(t);
      const current = await loginSession(t, account.username);
      const other = await connect(account.token);
      const kept = await connect(current.token);
      await api()
        .put('/api/v1/me/password')
        .auth(current.token, { type: 'bearer' })
        .send({ current_password: 'password-123', new_password: 'new-password-456' })
        .expect(200);
      expect((await other.closed).code).toBe(4401);
      kept.send({ type: 'ping' });
      expect((await kept.next()).type).toBe('pong');
    });
  });
});

describe('sessions with short lifetimes: WebSocket expiry, in-band re-authentication, login lock window', () => {
  let t: TestApp;
  const sockets: TestSocket[] = [];
  const EXPIRES_IN_S = 2;

  beforeAll(async () => {
    t = await startTestApp({
      JWT_EXPIRES_IN: `${EXPIRES_IN_S}s`,
      LOGIN_MAX_FAILURES: '2',
      LOGIN_FAILURE_WINDOW: `${LOGIN_FAILURE_WINDOW_S}s`,
    });
  });

  it('lets a locked username log in again once LOGIN_FAILURE_WINDOW has passed', async () => {
    const account = await createAccount(t);
    const login = (password: string) =>
      request(t.url).post('/api/v1/login').send({ username: account.username, password });
    const started = Date.now();
    await login('wrong-password').expect(401);
    await login('wrong-password').expect(401);
    const locked = await login('password-123').expect(429);
    expect(Number(locked.headers['retry-after'])).toBeLessThanOrEqual(LOGIN_FAILURE_WINDOW_S);
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, started + LOGIN_FAILURE_WINDOW_S * 1000 + 300 - Date.now())),
    );
    await login('password-123').expect(200);
  });

  afterEach(async () => {
    await Promise.all(sockets.splice(0).map((socket) => socket.close()));
  });

  afterAll(async () => {
    await t.close();
  });

  const expiryOf = (token: string) =>
    (JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).exp as number) * 1000;

  it('closes a socket with an error frame and 4401 within a second of its token’s expiry', async () => {
    const account = await createAccount(t);
    const socket = await TestSocket.authenticated(t, account.token);
    sockets.push(socket);
    expect(await socket.next()).toEqual({ type: 'error', data: { code: 401, details: 'Token has expired' } });
    const closed = await socket.closed;
    expect(closed.code).toBe(4401);
    const late = Date.now() - expiryOf(account.token);
    expect(late).toBeGreaterThanOrEqual(0);
    expect(late).toBeLessThan(1000);
  });

  it('keeps a socket open past the first token’s expiry after an auth frame with a fresh token', async () => {
    const account = await createAccount(t);
    const session = await loginSession(t, account.username);
    const socket = await TestSocket.authenticated(t, session.token);
    sockets.push(socket);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const fresh = (
      await request(t.url)
        .post('/api/v1/auth/refresh')
        .send({ refresh_token: session.refresh_token })
        .expect(200)
    ).body.data.token as string;
    socket.send({ type: 'auth', data: { token: fresh } });
    expect(await socket.next()).toEqual({
      type: 'auth',
      data: { expires_at: new Date(expiryOf(fresh)).toISOString() },
    });
    // Past the first token's expiry, the connection still answers.
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, expiryOf(session.token) - Date.now() + 300)),
    );
    expect(socket.isOpen).toBe(true);
    socket.send({ type: 'ping' });
    expect((await socket.next()).type).toBe('pong');
    // Then the fresh token's own expiry closes it.
    expect((await socket.next()).data).toEqual({ code: 401, details: 'Token has expired' });
    expect((await socket.closed).code).toBe(4401);
  }, 15_000);

  it('refuses an auth frame with another user’s or an invalid token and leaves the connection as it was', async () => {
    const alice = await createAccount(t);
    const bob = await createAccount(t);
    const socket = await TestSocket.authenticated(t, alice.token);
    sockets.push(socket);
    socket.send({ type: 'auth', data: { token: bob.token } });
    expect(await socket.next()).toEqual({
      type: 'error',
      data: { code: 401, details: 'Token belongs to another user' },
    });
    socket.send({ type: 'auth', data: { token: 'not-a-jwt' } });
    expect(await socket.next()).toEqual({
      type: 'error',
      data: { code: 401, details: 'Invalid or expired token' },
    });
    // Still bound to the first token's expiry.
    expect((await socket.next()).data).toEqual({ code: 401, details: 'Token has expired' });
  });
});
