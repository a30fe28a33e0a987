import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import {
  type Account,
  ADMIN,
  ADMIN_ENV,
  createAccount,
  forgeToken,
  login,
  loginAdmin,
  sessionIdOf,
} from './support/accounts.js';
import { sampleFile } from './support/multipart.js';
import { startTestApp, TestApp } from './support/test-app.js';

const ORIGIN = 'https://shop.example';

describe('rate limits that fit a storefront', () => {
  let t: TestApp;
  let image: string;

  beforeAll(async () => {
    // The general limit at its default (120 per minute); the test client's own requests stay well below it.
    t = await startTestApp({ THROTTLE_LIMIT: '120', THROTTLE_AUTH_LIMIT: '2', CORS_ORIGINS: ORIGIN });
    const account = await createAccount(t);
    const uploaded = await request(t.url)
      .post('/api/v1/upload')
      .auth(account.token, { type: 'bearer' })
      .attach('file', sampleFile('image/png', 2000), { filename: 'a.png', contentType: 'image/png' })
      .expect(200);
    image = uploaded.body.data.filename;
  });

  afterAll(async () => {
    await t.close();
  });

  it('serves 150 image GETs from one client, all 200, from the files bucket (THROTTLE_FILES_LIMIT)', async () => {
    const responses = [];
    for (let batch = 0; batch < 15; batch++) {
      responses.push(
        ...(await Promise.all(
          Array.from({ length: 10 }, () => request(t.url).get(`/api/v1/uploads/${image}`)),
        )),
      );
    }
    expect(responses.map((r) => r.status)).toEqual(Array(150).fill(200));
    const remaining = responses.map((r) => Number(r.headers['x-ratelimit-remaining'])).sort((a, b) => a - b);
    expect(responses[0].headers['x-ratelimit-limit']).toBe('1200');
    expect(remaining[0]).toBe(1200 - 150);
    // The general bucket did not count them.
    const general = await request(t.url).get('/api/v1/products').expect(401);
    expect(general.headers['x-ratelimit-limit']).toBe('120');
    expect(Number(general.headers['x-ratelimit-remaining'])).toBeGreaterThan(100);
  });

  it('describes the bucket that answered an auth 429, with no suffixed headers', async () => {
    const login = () => request(t.url).post('/api/v1/login').send({ username: 'nobody', password: 'x' });
    // createAccount's register and login used the two auth requests of this window.
    const refused = await login().expect(429);
    expect(refused.body).toEqual({
      code: 429,
      message: 'Too Many Requests',
      data: { details: expect.stringMatching(/^Too many requests: at most 2 per 60 s, retry in \d+ s$/) },
    });
    expect(refused.headers['x-ratelimit-limit']).toBe('2');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const suffixed = Object.keys(refused.headers).filter((name) =>
      /^(retry-after|x-ratelimit-[a-z]+)-/.test(name),
    );
    expect(suffixed).toEqual([]);
  });

  it('lets a page on an allowed origin read the rate-limit, request-id and replay headers', async () => {
    const res = await request(t.url).get('/api/v1/products').set('Origin', ORIGIN).expect(401);
    expect(res.headers['access-control-allow-origin']).toBe(ORIGIN);
    const exposed = res.headers['access-control-expose-headers'].split(',').map((h: string) => h.trim());
    expect(exposed).toEqual(
      expect.arrayContaining([
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'Retry-After',
        'Idempotent-Replayed',
        'X-Request-Id',
      ]),
    );
    expect(res.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
  });
});

describe('rate limits count every request', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ THROTTLE_LIMIT: '4' });
  });

  afterAll(async () => {
    await t.close();
  });

  it('counts unknown routes and malformed bodies toward the general limit', async () => {
    await request(t.url).get('/api/v1/no-such-route').expect(404);
    await request(t.url).get('/elsewhere').expect(404);
    await request(t.url)
      .post('/api/v1/login')
      .set('Content-Type', 'application/json')
      .send('{"username":')
      .expect(400);
    const last = await request(t.url).get('/api/v1/no-such-route').expect(404);
    expect(last.headers['x-ratelimit-remaining']).toBe('0');
    const refused = await request(t.url).get('/api/v1/products').expect(429);
    expect(refused.body.code).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // A refused malformed body is refused for the rate, before its JSON is read.
    const malformed = await request(t.url)
      .post('/api/v1/login')
      .set('Content-Type', 'application/json')
      .send('{"username":')
      .expect(429);
    expect(malformed.body.code).toBe(429);
  });

  it('never counts or refuses the health probes, even with the general limit used up', async () => {
    await request(t.url).get('/api/v1/products').expect(429);
    for (const path of ['/api/v1/health', '/api/v1/health/live', '/api/v1/health/ready']) {
      const res = await request(t.url).get(path).expect(200);
      expect(res.body.code).toBe(200);
      expect(res.headers['x-ratelimit-remaining']).toBeUndefined();
    }
  });
});

describe('rate limits behind a server-rendering front end (TRUST_PROXY and X-Forwarded-For)', () => {
  let t: TestApp;
  // The front end's server calls the API from 127.0.0.1, which TRUST_PROXY=loopback trusts.
  const fromFrontEnd = (path: string, forwardedFor?: string) => {
    const req = request(t.url).get(path);
    return forwardedFor === undefined ? req : req.set('X-Forwarded-For', forwardedFor);
  };

  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: 'loopback', THROTTLE_LIMIT: '3', THROTTLE_AUTH_LIMIT: '100' });
  });

  afterAll(async () => {
    await t.close();
  });

  it("counts each shopper by the address the front end forwards, not the front end's own", async () => {
    const shopperA = '203.0.113.10';
    const shopperB = '203.0.113.11';
    for (const remaining of ['2', '1', '0']) {
      const res = await fromFrontEnd('/api/v1/products', shopperA).expect(401);
      expect(res.headers['x-ratelimit-remaining']).toBe(remaining);
    }
    const refused = await fromFrontEnd('/api/v1/products', shopperA).expect(429);
    expect(refused.body).toEqual({
      code: 429,
      message: 'Too Many Requests',
      data: { details: expect.stringMatching(/^Too many requests: at most 3 per 60 s, retry in \d+ s$/) },
    });
    // Shopper B, and the front end's own calls (no X-Forwarded-For: its address), each have a full bucket.
    const other = await fromFrontEnd('/api/v1/products', shopperB).expect(401);
    expect(other.headers['x-ratelimit-remaining']).toBe('2');
    const own = await fromFrontEnd('/api/v1/products').expect(401);
    expect(own.headers['x-ratelimit-remaining']).toBe('2');
    // Shopper A wrote B's address into its own X-Forwarded-For; the front end appended the address it saw.
    // The rightmost address not trusted counts: still A, still refused, and B's bucket is untouched.
    await fromFrontEnd('/api/v1/products', `${shopperB}, ${shopperA}`).expect(429);
    const stillB = await fromFrontEnd('/api/v1/products', shopperB).expect(401);
    expect(stillB.headers['x-ratelimit-remaining']).toBe('1');
  });

  it("records the shopper's forwarded address with a session opened through the front end", async () => {
    const shopper = '198.51.100.20';
    const body = {
      username: `ssr_${Date.now() % 100000}`,
      email: `ssr_${Date.now() % 100000}@example.com`,
      password: 'password-123',
      first_name: 'First',
      last_name: 'Last',
      phone: '+1 555 0100',
      address: '1 Main St',
    };
    await request(t.url).post('/api/v1/register').set('X-Forwarded-For', shopper).send(body).expect(201);
    const login = await request(t.url)
      .post('/api/v1/login')
      .set('X-Forwarded-For', `10.9.8.7, ${shopper}`)
      .send({ username: body.username, password: body.password })
      .expect(200);
    const rows = await t.dataSource.query('SELECT ip FROM sessions WHERE user_id = ?', [
      login.body.data.user.id,
    ]);
    expect(rows).toEqual([{ ip: shopper }]);
  });
});

describe('rate limits per account: staff, customers and anonymous callers behind one office address', () => {
  // THROTTLE_LIMIT per customer account or per anonymous address, THROTTLE_STAFF_LIMIT per staff account.
  const LIMIT = 20;
  const STAFF_LIMIT = 400;
  const OFFICE = '198.51.100.7';
  let t: TestApp;
  let root: Account;
  let colleagues: Account[];
  let customer: Account;

  /** A request from the office: the proxy in front of the service (127.0.0.1, trusted) forwards its address. */
  const fromOffice = (req: request.Test, token?: string) => {
    req.set('X-Forwarded-For', OFFICE);
    return token === undefined ? req : req.auth(token, { type: 'bearer' });
  };
  const refusalBody = (limit: number) => ({
    code: 429,
    message: 'Too Many Requests',
    data: {
      details: expect.stringMatching(
        new RegExp(`^Too many requests: at most ${limit} per 60 s, retry in \\d+ s$`),
      ),
    },
  });

  beforeAll(async () => {
    t = await startTestApp({
      ...ADMIN_ENV,
      TRUST_PROXY: 'loopback',
      THROTTLE_LIMIT: String(LIMIT),
      THROTTLE_STAFF_LIMIT: String(STAFF_LIMIT),
      THROTTLE_AUTH_LIMIT: '100',
      CATALOG_PUBLIC: 'true',
    });
    // Set up from the proxy's own address (no X-Forwarded-For), so the office's buckets start full.
    root = await loginAdmin(t);
    colleagues = [];
    for (let i = 0; i < 2; i++) {
      const account = await createAccount(t);
      await request(t.url)
        .put(`/api/v1/users/${account.id}`)
        .auth(root.token, { type: 'bearer' })
        .send({ role: 'admin' })
        .expect(200);
      // A role change ends the account's sessions: sign in again as staff.
      colleagues.push({ ...account, token: await login(t, account.username, 'password-123') });
    }
    customer = await createAccount(t, { first_name: 'Carol' });
  });

  afterAll(async () => {
    await t.close();
  });

  it('a staff member makes 300 requests a minute from the office while two colleagues work too: none refused', async () => {
    const responses: Array<{ who: number; res: request.Response }> = [];
    const staff = [root, ...colleagues];
    for (let round = 0; round < 30; round++) {
      // Each round: 10 requests of the first staff member and 3 of each colleague, at once.
      const batch = [...Array<number>(10).fill(0), 1, 1, 1, 2, 2, 2].map(async (who) => ({
        who,
        res: await fromOffice(request(t.url).get('/api/v1/users?page_size=1'), staff[who].token),
      }));
      responses.push(...(await Promise.all(batch)));
    }
    expect(responses.map(({ res }) => res.status)).toEqual(Array(480).fill(200));
    expect(new Set(responses.map(({ res }) => res.headers['x-ratelimit-limit']))).toEqual(new Set(['400']));
    const leastRemaining = (who: number) =>
      Math.min(
        ...responses
          .filter((r) => r.who === who)
          .map(({ res }) => Number(res.headers['x-ratelimit-remaining'])),
      );
    // Each staff account counts in its own bucket: 300 of 400 for the first (and its 2 promotions of the set-up),
    // 90 for each colleague.
    expect([0, 1, 2].map(leastRemaining)).toEqual([STAFF_LIMIT - 302, STAFF_LIMIT - 90, STAFF_LIMIT - 90]);

    // The office address itself was not counted: an anonymous visitor there has its whole THROTTLE_LIMIT, then 429.
    for (let i = 1; i <= LIMIT; i++) {
      const res = await fromOffice(request(t.url).get('/api/v1/products')).expect(200);
      expect(res.headers['x-ratelimit-limit']).toBe(String(LIMIT));
      expect(res.headers['x-ratelimit-remaining']).toBe(String(LIMIT - i));
    }
    const refused = await fromOffice(request(t.url).get('/api/v1/products')).expect(429);
    expect(refused.body).toEqual(refusalBody(LIMIT));
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);

    // Staff at that address go on working.
    const still = await fromOffice(
      request(t.url).get('/api/v1/users?page_size=1'),
      colleagues[0].token,
    ).expect(200);
    expect(still.headers['x-ratelimit-remaining']).toBe(String(STAFF_LIMIT - 91));
  });

  it('a forged or expired token does not get a bucket of its own: it counts in its address bucket, refused there', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      sub: String(root.id),
      sid: sessionIdOf(root.token),
      username: ADMIN.username,
      role: 'admin',
    };
    const forged = forgeToken({ ...claims, exp: now + 600 }, 'x'.repeat(40));
    const expired = forgeToken({ ...claims, iat: now - 1200, exp: now - 600 }, t.config.jwt.secret);
    const from = (address: string, token: string) =>
      request(t.url)
        .get('/api/v1/users?page_size=1')
        .set('X-Forwarded-For', address)
        .auth(token, { type: 'bearer' });
    const address = '203.0.113.99';
    for (let i = 1; i <= LIMIT; i++) {
      const res = await from(address, i % 2 === 0 ? forged : expired).expect(401);
      expect(res.headers['x-ratelimit-limit']).toBe(String(LIMIT));
      expect(res.headers['x-ratelimit-remaining']).toBe(String(LIMIT - i));
    }
    for (const token of [forged, expired]) {
      const res = await from(address, token).expect(429);
      expect(res.body).toEqual(refusalBody(LIMIT));
    }
    // The staff account those tokens name was not counted, and still works from that address.
    const real = await from(address, root.token).expect(200);
    expect(real.headers['x-ratelimit-limit']).toBe(String(STAFF_LIMIT));
  });

  it('a customer account has its own THROTTLE_LIMIT, wherever it calls from; its refused write changes nothing', async () => {
    for (let i = 1; i <= LIMIT; i++) {
      const res = await fromOffice(request(t.url).get('/api/v1/me'), customer.token).expect(200);
      expect(res.headers['x-ratelimit-remaining']).toBe(String(LIMIT - i));
    }
    const refused = await fromOffice(request(t.url).put(`/api/v1/users/${customer.id}`), customer.token)
      .send({ first_name: 'Changed' })
      .expect(429);
    expect(refused.body).toEqual(refusalBody(LIMIT));
    // Another address does not give the account a new bucket.
    await request(t.url)
      .get('/api/v1/me')
      .set('X-Forwarded-For', '203.0.113.50')
      .auth(customer.token, { type: 'bearer' })
      .expect(429);
    expect(await t.dataSource.query('SELECT first_name FROM users WHERE id = ?', [customer.id])).toEqual([
      { first_name: 'Carol' },
    ]);
    // Another customer, from the same office, is not affected.
    const other = await createAccount(t);
    const res = await fromOffice(request(t.url).get('/api/v1/me'), other.token).expect(200);
    expect(res.headers['x-ratelimit-remaining']).toBe(String(LIMIT - 1));
  });

  it('a staff account is refused past THROTTLE_STAFF_LIMIT, in its own bucket', async () => {
    const colleague = colleagues[1];
    // 90 requests counted in the first test; up to the limit, then one more.
    for (let sent = 90; sent < STAFF_LIMIT; sent += 10) {
      const batch = await Promise.all(
        Array.from({ length: 10 }, () =>
          fromOffice(request(t.url).get('/api/v1/users?page_size=1'), colleague.token),
        ),
      );
      expect(batch.map((res) => res.status)).toEqual(Array(10).fill(200));
    }
    const refused = await fromOffice(request(t.url).get('/api/v1/users?page_size=1'), colleague.token).expect(
      429,
    );
    expect(refused.body).toEqual(refusalBody(STAFF_LIMIT));
    expect(refused.headers['x-ratelimit-limit']).toBe(String(STAFF_LIMIT));
    // The other staff accounts keep their own buckets.
    await fromOffice(request(t.url).get('/api/v1/users?page_size=1'), colleagues[0].token).expect(200);
  });
});
