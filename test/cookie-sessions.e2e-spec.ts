import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import request from 'supertest';
import WebSocket from 'ws';
import { createCommerceClient, memoryTokenStore } from '@commerce/sdk';
import { AccountTokensService } from '../src/auth/account-tokens.service.js';
import { CROSS_SITE_REFUSED, CSRF_REFUSED } from '../src/auth/cookie-sessions.js';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { CookieJar, setCookiesOf, type SetCookie } from './support/cookie-jar.js';
import { createProduct } from './support/products.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const SHOP = 'https://shop.example';
const ACCESS = '__Host-commerce_access';
const REFRESH = '__Secure-commerce_refresh';
const CART = '__Host-commerce_cart';
const ORDER = '__Host-commerce_order';
const ADDRESS = {
  name: 'Jane Doe',
  line1: '1 Main St',
  line2: '',
  city: 'Springfield',
  region: 'IL',
  postal_code: '62701',
  country: 'US',
  phone: '+1 555 0100',
};
const PASSWORD = 'password-1234';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('cookie sessions', () => {
  let t: TestApp;
  let admin: Account;

  const api = () => request(t.url);
  /** A request as a browser page of the service's own origin sends it, with the jar's cookies. */
  const browser = (jar: CookieJar, method: 'get' | 'post' | 'put' | 'delete', path: string) =>
    api()
      [method](path)
      .set('X-Session', 'cookie')
      .set('Sec-Fetch-Site', 'same-origin')
      .set('Cookie', jar.header(path));
  const cookieLogin = async (jar: CookieJar, username: string) => {
    const res = await browser(jar, 'post', '/api/v1/login')
      .send({ username, password: PASSWORD })
      .expect(200);
    jar.take(res);
    return res;
  };
  const addressCount = async (userId: number) =>
    Number(
      (await t.dataSource.query('SELECT COUNT(*) AS n FROM addresses WHERE user_id = ?', [userId]))[0].n,
    );
  const sessionRow = async (id: string) =>
    (await t.dataSource.query('SELECT revoked_at, refresh_token_hash FROM sessions WHERE id = ?', [id]))[0];
  const byName = (cookies: SetCookie[], name: string) => cookies.find((cookie) => cookie.name === name);
  const cleared = (cookie: SetCookie | undefined) =>
    cookie !== undefined &&
    cookie.value === '' &&
    Date.parse(String(cookie.attributes.expires)) <= Date.now();

  beforeAll(async () => {
    t = await startTestApp({ ...ADMIN_ENV, CORS_ORIGINS: SHOP, PAYMENT_METHODS: 'credit_card' });
    admin = await loginAdmin(t);
  });

  afterAll(async () => {
    await t.close();
  });

  describe('login, refresh and logout', () => {
    it('a cookie login puts the tokens in HttpOnly, Secure, SameSite=Lax cookies and answers only a CSRF token', async () => {
      const alice = await createAccount(t, { password: PASSWORD });
      const jar = new CookieJar();
      const res = await cookieLogin(jar, alice.username);
      expect(res.body.data).toEqual({
        expires_in: 900,
        refresh_expires_in: expect.any(Number),
        csrf_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        user: expect.objectContaining({ id: alice.id, username: alice.username }),
      });
      const set = setCookiesOf(res);
      expect(byName(set, ACCESS)).toEqual({
        name: ACCESS,
        value: expect.stringMatching(/^ey/),
        attributes: expect.objectContaining({ path: '/', httponly: true, secure: true, samesite: 'Lax' }),
      });
      expect(byName(set, ACCESS)!.attributes['max-age']).toBe('900');
      expect(byName(set, REFRESH)).toEqual({
        name: REFRESH,
        value: expect.stringMatching(/^[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$/),
        attributes: expect.objectContaining({
          path: '/api/v1/auth',
          httponly: true,
          secure: true,
          samesite: 'Lax',
        }),
      });
      // The session is a real one: its refresh secret stored hashed, and the cookie alone authenticates.
      const [sessionId, secret] = jar.value(REFRESH)!.split('.');
      expect((await sessionRow(sessionId)).refresh_token_hash).toBe(sha256(secret));
      const me = await browser(jar, 'get', '/api/v1/me').expect(200);
      expect(me.body.data.id).toBe(alice.id);
    });

    it('bearer logins stay exactly as they were: tokens in the body, no cookie', async () => {
      const bob = await createAccount(t, { password: PASSWORD });
      const res = await api()
        .post('/api/v1/login')
        .send({ username: bob.username, password: PASSWORD })
        .expect(200);
      expect(res.body.data).toMatchObject({ token: expect.any(String), refresh_token: expect.any(String) });
      expect(res.body.data.csrf_token).toBeUndefined();
      expect(res.headers['set-cookie']).toBeUndefined();
    });

    it('an unsafe call by cookie needs the CSRF token: without it 403 and nothing written, with it 201', async () => {
      const carol = await createAccount(t, { password: PASSWORD });
      const jar = new CookieJar();
      const { csrf_token: csrf } = (await cookieLogin(jar, carol.username)).body.data;

      const missing = await browser(jar, 'post', '/api/v1/me/addresses').send(ADDRESS).expect(403);
      expect(missing.body).toMatchObject({ code: 403, data: { details: CSRF_REFUSED } });
      const wrong = await browser(jar, 'post', '/api/v1/me/addresses')
        .set('X-CSRF-Token', `${csrf.slice(0, -1)}${csrf.endsWith('A') ? 'B' : 'A'}`)
        .send(ADDRESS)
        .expect(403);
      expect(wrong.body.data.details).toBe(CSRF_REFUSED);
      expect(await addressCount(carol.id)).toBe(0);

      await browser(jar, 'post', '/api/v1/me/addresses').set('X-CSRF-Token', csrf).send(ADDRESS).expect(201);
      expect(await addressCount(carol.id)).toBe(1);
      // GET /auth/csrf answers the same token to a page that lost it.
      const again = await browser(jar, 'get', '/api/v1/auth/csrf').expect(200);
      expect(again.body.data).toEqual({ csrf_token: csrf });
    });

    it('a cross-site POST is refused, with or without the token; CORS_ORIGINS and the own origin are accepted', async () => {
      const dave = await createAccount(t, { password: PASSWORD });
      const jar = new CookieJar();
      const { csrf_token: csrf } = (await cookieLogin(jar, dave.username)).body.data;
      const post = () => api().post('/api/v1/me/addresses').set('Cookie', jar.header('/api/v1/me/addresses'));

      for (const token of [undefined, csrf]) {
        const req = post().set('Origin', 'https://evil.example').set('Sec-Fetch-Site', 'cross-site');
        const res = await (token === undefined ? req : req.set('X-CSRF-Token', token))
          .send(ADDRESS)
          .expect(403);
        expect(res.body.data.details).toBe(CROSS_SITE_REFUSED);
      }
      // A sibling subdomain is same-site, not same-origin: refused as well.
      await post()
        .set('Origin', 'https://evil.shop.example')
        .set('Sec-Fetch-Site', 'same-site')
        .set('X-CSRF-Token', csrf)
        .send(ADDRESS)
        .expect(403);
      // An older browser without Sec-Fetch-Site: its Origin decides.
      await post().set('Origin', 'https://evil.example').set('X-CSRF-Token', csrf).send(ADDRESS).expect(403);
      expect(await addressCount(dave.id)).toBe(0);

      await post().set('Origin', t.url).set('X-CSRF-Token', csrf).send(ADDRESS).expect(201);
      await post()
        .set('Origin', SHOP)
        .set('Sec-Fetch-Site', 'cross-site')
        .set('X-CSRF-Token', csrf)
        .send({ ...ADDRESS, name: 'From the shop' })
        .expect(201);
      expect(await addressCount(dave.id)).toBe(2);
      // The listed origin may send credentials; any other gets no CORS grant at all.
      const preflight = await api()
        .options('/api/v1/me/addresses')
        .set('Origin', SHOP)
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'x-csrf-token,x-session,content-type');
      expect(preflight.headers['access-control-allow-origin']).toBe(SHOP);
      expect(preflight.headers['access-control-allow-credentials']).toBe('true');
      const other = await api().get('/api/v1/auth/csrf').set('Origin', 'https://evil.example').expect(200);
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('a cookie login from another site is refused before any session opens', async () => {
      const erin = await createAccount(t, { password: PASSWORD });
      const sessions = async () =>
        Number(
          (await t.dataSource.query('SELECT COUNT(*) AS n FROM sessions WHERE user_id = ?', [erin.id]))[0].n,
        );
      const before = await sessions();
      await api()
        .post('/api/v1/login')
        .set('X-Session', 'cookie')
        .set('Origin', 'https://evil.example')
        .set('Sec-Fetch-Site', 'cross-site')
        .send({ username: erin.username, password: PASSWORD })
        .expect(403);
      expect(await sessions()).toBe(before);
    });

    it('refresh rotates the cookies; the old refresh cookie replayed revokes the session and clears the cookies', async () => {
      const frank = await createAccount(t, { password: PASSWORD });
      const jar = new CookieJar();
      const { csrf_token: csrf } = (await cookieLogin(jar, frank.username)).body.data;
      const oldRefresh = jar.value(REFRESH)!;
      const sessionId = oldRefresh.split('.')[0];

      // Without the CSRF token a refresh by cookie is refused and rotates nothing.
      await browser(jar, 'post', '/api/v1/auth/refresh').send({}).expect(403);
      expect((await sessionRow(sessionId)).refresh_token_hash).toBe(sha256(oldRefresh.split('.')[1]));

      const res = await browser(jar, 'post', '/api/v1/auth/refresh')
        .set('X-CSRF-Token', csrf)
        .send({})
        .expect(200);
      jar.take(res);
      expect(res.body.data).toEqual({
        expires_in: 900,
        refresh_expires_in: expect.any(Number),
        csrf_token: csrf, // bound to the session, which stays the same
      });
      expect(jar.value(REFRESH)).not.toBe(oldRefresh);
      expect(jar.value(REFRESH)!.startsWith(`${sessionId}.`)).toBe(true);
      expect((await sessionRow(sessionId)).refresh_token_hash).toBe(
        sha256(jar.value(REFRESH)!.split('.')[1]),
      );
      await browser(jar, 'get', '/api/v1/me').expect(200);

      // Someone replays the rotated cookie (a stolen copy): the whole session ends, and the answer clears it.
      const thief = new CookieJar();
      thief.set(REFRESH, oldRefresh, '/api/v1/auth');
      const replay = await browser(thief, 'post', '/api/v1/auth/refresh')
        .set('X-CSRF-Token', csrf)
        .send({})
        .expect(401);
      expect(cleared(byName(setCookiesOf(replay), REFRESH))).toBe(true);
      expect(cleared(byName(setCookiesOf(replay), ACCESS))).toBe(true);
      expect((await sessionRow(sessionId)).revoked_at).not.toBeNull();
      await browser(jar, 'get', '/api/v1/me').expect(401);
      await browser(jar, 'post', '/api/v1/auth/refresh').set('X-CSRF-Token', csrf).send({}).expect(401);
    });

    it('a refresh with neither a body token nor a cookie is a 400 naming refresh_token', async () => {
      const res = await api().post('/api/v1/auth/refresh').send({}).expect(400);
      expect(res.body.data.errors).toEqual([
        { field: 'refresh_token', rule: 'isString', message: expect.stringContaining('refresh_token') },
      ]);
    });

    it('logout clears the cookies and the session; its cookies are refused afterwards', async () => {
      const gina = await createAccount(t, { password: PASSWORD });
      const jar = new CookieJar();
      const { csrf_token: csrf } = (await cookieLogin(jar, gina.username)).body.data;
      const kept = new CookieJar();
      kept.set(ACCESS, jar.value(ACCESS)!);
      kept.set(REFRESH, jar.value(REFRESH)!, '/api/v1/auth');
      const sessionId = jar.value(REFRESH)!.split('.')[0];

      const res = await browser(jar, 'post', '/api/v1/logout').set('X-CSRF-Token', csrf).expect(200);
      const set = jar.take(res);
      expect(cleared(byName(set, ACCESS))).toBe(true);
      expect(cleared(byName(set, REFRESH))).toBe(true);
      expect(byName(set, REFRESH)!.attributes.path).toBe('/api/v1/auth');
      expect(jar.header('/api/v1/auth/refresh')).toBe('');
      expect((await sessionRow(sessionId)).revoked_at).not.toBeNull();
      // Copies of the cookies taken before the logout work no more.
      await browser(kept, 'get', '/api/v1/me').expect(401);
      await browser(kept, 'post', '/api/v1/auth/refresh').set('X-CSRF-Token', csrf).send({}).expect(401);
    });

    it("a session revoked from elsewhere refuses its cookie; a password reset clears this browser's cookies", async () => {
      const hank = await createAccount(t, { password: PASSWORD });
      const jar = new CookieJar();
      await cookieLogin(jar, hank.username);
      const sessionId = jar.value(REFRESH)!.split('.')[0];
      await api().delete(`/api/v1/sessions/${sessionId}`).auth(hank.token, { type: 'bearer' }).expect(200);
      const refused = await browser(jar, 'get', '/api/v1/me').expect(401);
      expect(refused.body.data.details).toBe('Token is no longer valid');

      const second = new CookieJar();
      const { csrf_token: csrf } = (await cookieLogin(second, hank.username)).body.data;
      const issued = await t.app
        .get(AccountTokensService)
        .issue('password_reset', `${hank.username}@example.com`);
      const reset = await browser(second, 'post', '/api/v1/auth/password-reset/confirm')
        .set('X-CSRF-Token', csrf)
        .send({ token: issued!.token, password: 'a-brand-new-password' })
        .expect(200);
      const set = second.take(reset);
      expect(cleared(byName(set, ACCESS)) && cleared(byName(set, REFRESH))).toBe(true);
      const [{ live }] = await t.dataSource.query(
        'SELECT COUNT(*) AS live FROM sessions WHERE user_id = ? AND revoked_at IS NULL',
        [hank.id],
      );
      expect(Number(live)).toBe(0);
    });

    it('a cookie registration signs the new account in', async () => {
      const jar = new CookieJar();
      const res = await browser(jar, 'post', '/api/v1/register')
        .send({ username: 'cookie_reg', email: 'cookie_reg@example.com', password: PASSWORD })
        .expect(201);
      jar.take(res);
      expect(res.body.data).toMatchObject({
        username: 'cookie_reg',
        csrf_token: expect.any(String),
        expires_in: 900,
      });
      expect(res.body.data.token).toBeUndefined();
      expect(res.body.data.refresh_token).toBeUndefined();
      const me = await browser(jar, 'get', '/api/v1/me').expect(200);
      expect(me.body.data.username).toBe('cookie_reg');
      // A bearer registration opens no session, as before.
      const plain = await api()
        .post('/api/v1/register')
        .send({ username: 'plain_reg', email: 'plain_reg@example.com', password: PASSWORD })
        .expect(201);
      expect(plain.headers['set-cookie']).toBeUndefined();
      expect(plain.body.data.csrf_token).toBeUndefined();
    });
  });

  describe('guest flows', () => {
    it('an anonymous cart and its guest order keep their secrets in cookies, with CSRF on every change', async () => {
      const product = await createProduct(t, admin.token, { price: 2.5, stock: 10 });
      const jar = new CookieJar();
      const created = await browser(jar, 'post', '/api/v1/carts').send({}).expect(201);
      jar.take(created);
      expect(created.body.data.cart_token).toBeUndefined();
      const cartId = created.body.data.id as string;
      const csrf = created.body.data.csrf_token as string;
      const cartCookie = jar.value(CART)!;
      expect(cartCookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const [row] = await t.dataSource.query('SELECT token_hash FROM carts WHERE id = ?', [cartId]);
      expect(row.token_hash).toBe(sha256(cartCookie));

      const items = `/api/v1/carts/${cartId}/items`;
      await browser(jar, 'post', items).send({ product_id: product.id, quantity: 2 }).expect(403);
      const [{ n: none }] = await t.dataSource.query(
        'SELECT COUNT(*) AS n FROM cart_items WHERE cart_id = ?',
        [cartId],
      );
      expect(Number(none)).toBe(0);
      await browser(jar, 'post', items)
        .set('X-CSRF-Token', csrf)
        .send({ product_id: product.id, quantity: 2 })
        .expect(201);
      await browser(jar, 'put', `/api/v1/carts/${cartId}`)
        .set('X-CSRF-Token', csrf)
        .send({ shipping_address: ADDRESS, email: 'guest@example.com' })
        .expect(200);
      // Another browser (no cookie) cannot read the cart.
      await api().get(`/api/v1/carts/${cartId}`).expect(404);
      expect((await browser(jar, 'get', '/api/v1/auth/csrf').expect(200)).body.data.csrf_token).toBe(csrf);

      const placed = await browser(jar, 'post', `/api/v1/carts/${cartId}/checkout`)
        .set('X-CSRF-Token', csrf)
        .send({ payment_method: 'credit_card' })
        .expect(201);
      jar.take(placed);
      expect(placed.body.data.order_token).toBeUndefined();
      expect(placed.body.data.csrf_token).toEqual(expect.any(String));
      const orderId = placed.body.data.id as number;
      const [order] = await t.dataSource.query(
        'SELECT user_id, order_token_hash, total_cents FROM orders WHERE id = ?',
        [orderId],
      );
      expect(order.user_id).toBeNull();
      expect(Number(order.total_cents)).toBe(500);
      expect(order.order_token_hash).toBe(sha256(jar.value(ORDER)!));
      const read = await browser(jar, 'get', `/api/v1/orders/${orderId}`).expect(200);
      expect(read.body.data).toMatchObject({ id: orderId, email: 'guest@example.com' });
      await api().get(`/api/v1/orders/${orderId}`).expect(401);
    });
  });

  describe('the SDK in cookie mode', () => {
    it('signs in, sends the CSRF token, refreshes by cookie after a 401, survives a reload, signs out; no secret in its store', async () => {
      const jill = await createAccount(t, { password: PASSWORD });
      const jar = new CookieJar();
      const store = memoryTokenStore();
      const baseUrl = `${t.url}/api/v1`;
      const client = createCommerceClient({ baseUrl, auth: 'cookie', fetch: jar.fetch(), tokens: store });

      const user = await client.session.login({ username: jill.username, password: PASSWORD });
      expect(user.id).toBe(jill.id);
      expect(client.session.user?.id).toBe(jill.id);
      const stored = JSON.stringify(await store.get());
      const [sessionId, secret] = jar.value(REFRESH)!.split('.');
      expect(stored).not.toContain(secret);
      expect(stored).not.toContain(jar.value(ACCESS)!);

      // An unsafe call: the SDK sends the CSRF token it was given.
      const address = await client.data(client.api.POST('/me/addresses', { body: ADDRESS }));
      expect(address.name).toBe(ADDRESS.name);
      expect(await addressCount(jill.id)).toBe(1);

      // The access cookie expires (the browser drops it): one 401, a refresh by cookie, the call retried.
      const before = (await sessionRow(sessionId)).refresh_token_hash;
      jar.set(ACCESS, 'expired', '/');
      const me = await client.data(client.api.GET('/me'));
      expect(me.id).toBe(jill.id);
      expect((await sessionRow(sessionId)).refresh_token_hash).not.toBe(before);
      expect(jar.value(ACCESS)).not.toBe('expired');

      // A reload: a new client with the same cookies and no CSRF token fetches one before its first unsafe call.
      const reloaded = createCommerceClient({ baseUrl, auth: 'cookie', fetch: jar.fetch() });
      await reloaded.data(reloaded.api.POST('/me/addresses', { body: { ...ADDRESS, name: 'After reload' } }));
      expect(await addressCount(jill.id)).toBe(2);

      await reloaded.session.logout();
      expect((await sessionRow(sessionId)).revoked_at).not.toBeNull();
      expect(jar.value(ACCESS)).toBeUndefined();
      expect(jar.value(REFRESH)).toBeUndefined();
      await expect(client.data(client.api.GET('/me'))).rejects.toMatchObject({ status: 401 });
    });

    it("a guest's cart through the SDK: the secret stays in the cookie, the SDK's store holds none", async () => {
      const product = await createProduct(t, admin.token, { price: 1, stock: 5 });
      const jar = new CookieJar();
      const store = memoryTokenStore();
      const client = createCommerceClient({
        baseUrl: `${t.url}/api/v1`,
        auth: 'cookie',
        fetch: jar.fetch(),
        tokens: store,
      });
      const cart = await client.data(client.api.POST('/carts', { body: {} }));
      await client.data(
        client.api.POST('/carts/{id}/items', {
          params: { path: { id: cart.id } },
          body: { product_id: product.id, quantity: 2 },
        }),
      );
      const read = await client.data(client.api.GET('/carts/{id}', { params: { path: { id: cart.id } } }));
      expect(read.items.map((line) => [line.product_id, line.quantity])).toEqual([[product.id, 2]]);
      expect(await store.get()).toBeNull();
      const [{ n }] = await t.dataSource.query('SELECT COUNT(*) AS n FROM cart_items WHERE cart_id = ?', [
        cart.id,
      ]);
      expect(Number(n)).toBe(1);
    });
  });

  describe('WebSocket', () => {
    const open = (cookie: string, origin: string) =>
      new Promise<{ opened: WebSocket; first: string }>((resolve, reject) => {
        const socket = new WebSocket(`${t.url.replace('http', 'ws')}/api/v1/ws`, {
          headers: { Cookie: cookie, Origin: origin },
        });
        socket.once('error', reject);
        socket.once('open', () => socket.send(JSON.stringify({ type: 'ping' })));
        socket.once('message', (data) => resolve({ opened: socket, first: data.toString() }));
      });

    it("authenticates an upgrade by the access cookie from the service's origin, never from another site", async () => {
      const ivy = await createAccount(t, { password: PASSWORD });
      const jar = new CookieJar();
      await cookieLogin(jar, ivy.username);
      const own = await open(jar.header('/api/v1/ws'), t.url);
      expect(JSON.parse(own.first).type).toBe('pong');
      own.opened.close();
      const evil = await open(jar.header('/api/v1/ws'), 'https://evil.example');
      expect(JSON.parse(evil.first)).toMatchObject({ type: 'error', data: { code: 401 } });
      evil.opened.close();
    });
  });

  describe('plain-HTTP development (SESSION_COOKIE_SECURE=false)', () => {
    it('names the cookies without prefixes and leaves Secure out', async () => {
      const plain = await startTestApp({ ...ADMIN_ENV, SESSION_COOKIE_SECURE: 'false' });
      try {
        const account = await createAccount(plain, { password: PASSWORD });
        const res = await request(plain.url)
          .post('/api/v1/login')
          .set('X-Session', 'cookie')
          .send({ username: account.username, password: PASSWORD })
          .expect(200);
        const set = setCookiesOf(res);
        expect(set.map((cookie) => cookie.name).sort()).toEqual(['commerce_access', 'commerce_refresh']);
        expect(
          set.every((cookie) => cookie.attributes.secure === undefined && cookie.attributes.httponly),
        ).toBe(true);
      } finally {
        await plain.close();
      }
    });
  });
});
