import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { createAccount } from './support/accounts.js';
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
