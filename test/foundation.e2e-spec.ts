import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import request from 'supertest';
import { startTestApp, TestApp } from './support/test-app.js';

describe('foundation: envelope, errors and operations over the real HTTP server', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    await t.close();
  });

  it('wraps a success in the envelope and checks the database in /health', async () => {
    const res = await request(t.url).get('/api/v1/health').expect(200);
    // The seed's fields of /health (an answer may add others).
    expect(res.body).toMatchObject({ code: 200, message: 'OK', data: { status: 'ok', database: 'up' } });
    expect(res.headers['content-type']).toMatch(/application\/json/);
  });

  it('answers an unknown route with a 404 envelope', async () => {
    const res = await request(t.url).get('/api/v1/no-such-route').expect(404);
    expect(res.body).toEqual({
      code: 404,
      message: 'Not Found',
      data: { details: 'Cannot GET /api/v1/no-such-route' },
    });
  });

  it('answers malformed JSON with a 400 envelope naming the problem', async () => {
    const res = await request(t.url)
      .post('/api/v1/health')
      .set('Content-Type', 'application/json')
      .send('{"broken": ')
      .expect(400);
    expect(res.body.code).toBe(400);
    expect(res.body.message).toBe('Bad Request');
    expect(res.body.data.details).toMatch(/JSON/);
  });

  it('echoes a caller-supplied X-Request-Id and generates one otherwise', async () => {
    const given = await request(t.url).get('/api/v1/health').set('X-Request-Id', 'trace-42').expect(200);
    expect(given.headers['x-request-id']).toBe('trace-42');
    const generated = await request(t.url).get('/api/v1/health').set('X-Request-Id', 'bad id with spaces');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sends security headers (helmet) and no X-Powered-By', async () => {
    const res = await request(t.url).get('/api/v1/health');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('answers a conditional GET with the full envelope, never a bare 304 (no ETag)', async () => {
    const first = await request(t.url).get('/api/v1/health').expect(200);
    expect(first.headers.etag).toBeUndefined();
    // The validator Express would have derived from this body (weak: byte length and SHA-1).
    const sha1 = createHash('sha1').update(first.text).digest('base64').slice(0, 27);
    const validator = `W/"${Buffer.byteLength(first.text).toString(16)}-${sha1}"`;
    for (const condition of [validator, '*']) {
      const again = await request(t.url).get('/api/v1/health').set('If-None-Match', condition).expect(200);
      expect(again.body).toMatchObject({ code: 200, message: 'OK', data: { status: 'ok', database: 'up' } });
    }
  });

  it('serves the OpenAPI document generated from the code', async () => {
    const res = await request(t.url).get('/api/docs-json').expect(200);
    expect(res.body.openapi).toMatch(/^3\./);
    expect(res.body.paths['/api/v1/health']).toBeDefined();
    await request(t.url).get('/api/docs').expect(200).expect('Content-Type', /html/);
  });
});

describe('foundation: rate limiting', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ THROTTLE_LIMIT: '3', THROTTLE_TTL_MS: '60000' });
  });

  afterAll(async () => {
    await t.close();
  });

  it('refuses the request past THROTTLE_LIMIT with a 429 envelope and Retry-After', async () => {
    // Counted before authentication: refused requests count too.
    for (let i = 0; i < 3; i++) await request(t.url).get('/api/v1/products').expect(401);
    const res = await request(t.url).get('/api/v1/products').expect(429);
    expect(res.body.code).toBe(429);
    expect(res.body.message).toBe('Too Many Requests');
    expect(res.body.data.details).toMatch(/at most 3 per 60 s/);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
  });

  it('never limits the health endpoints, which orchestrators poll', async () => {
    await request(t.url).get('/api/v1/products').expect(429);
    for (let i = 0; i < 5; i++) {
      for (const path of ['/api/v1/health', '/api/v1/health/live', '/api/v1/health/ready']) {
        await request(t.url).get(path).expect(200);
      }
    }
  });
});

describe('foundation: client identity behind a proxy and CORS', () => {
  let proxied: TestApp;
  let direct: TestApp;

  beforeAll(async () => {
    const env = { THROTTLE_LIMIT: '2', CORS_ORIGINS: 'https://shop.example' };
    proxied = await startTestApp({ ...env, TRUST_PROXY: 'true' });
    direct = await startTestApp({ ...env, CORS_MAX_AGE: '7200' });
  });

  afterAll(async () => {
    await proxied.close();
    await direct.close();
  });

  const products = (t: TestApp, ip: string) =>
    request(t.url).get('/api/v1/products').set('X-Forwarded-For', ip);

  it('with TRUST_PROXY, rate limits count each forwarded client separately', async () => {
    await products(proxied, '203.0.113.1').expect(401);
    await products(proxied, '203.0.113.1').expect(401);
    await products(proxied, '203.0.113.1').expect(429);
    await products(proxied, '203.0.113.2').expect(401);
  });

  it('without TRUST_PROXY, X-Forwarded-For is ignored and cannot dodge the limit', async () => {
    await products(direct, '203.0.113.1').expect(401);
    await products(direct, '203.0.113.2').expect(401);
    await products(direct, '203.0.113.3').expect(429);
  });

  it('answers CORS preflights for the configured origins only', async () => {
    const allowed = await request(proxied.url)
      .options('/api/v1/products')
      .set('Origin', 'https://shop.example')
      .set('Access-Control-Request-Method', 'POST');
    expect(allowed.headers['access-control-allow-origin']).toBe('https://shop.example');
    const other = await request(proxied.url)
      .options('/api/v1/products')
      .set('Origin', 'https://evil.example')
      .set('Access-Control-Request-Method', 'POST');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('lets browsers keep a preflight answer for CORS_MAX_AGE seconds (600 by default)', async () => {
    const preflight = (t: TestApp) =>
      request(t.url)
        .options('/api/v1/orders')
        .set('Origin', 'https://shop.example')
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'authorization,content-type')
        .expect(204);
    const byDefault = await preflight(proxied);
    expect(byDefault.headers['access-control-max-age']).toBe('600');
    expect(byDefault.headers['access-control-allow-origin']).toBe('https://shop.example');
    expect((await preflight(direct)).headers['access-control-max-age']).toBe('7200');
    // An ordinary (non-preflight) answer does not carry it.
    const get = await request(proxied.url).get('/api/v1/health').set('Origin', 'https://shop.example');
    expect(get.status).toBe(200);
    expect(get.headers['access-control-max-age']).toBeUndefined();
  });
});

describe('foundation: time zone', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });

  afterAll(async () => {
    await t.close();
  });

  const onMysql = process.env.TEST_DATABASE_URL?.startsWith('mysql') === true;
  if (onMysql) {
    it('the MySQL session time zone is UTC, so database defaults agree with the driver', async () => {
      const [row] = await t.dataSource.query(
        'SELECT @@session.time_zone AS tz, TIMESTAMPDIFF(MINUTE, UTC_TIMESTAMP(), NOW()) AS offset_minutes',
      );
      expect(row).toEqual({ tz: '+00:00', offset_minutes: 0 });
    });
  }

  it('timestamps written by database defaults read back as the current UTC time', async () => {
    const res = await request(t.url)
      .post('/api/v1/register')
      .send({ username: 'clock_check', email: 'clock@example.com', password: 'password-123' })
      .expect(201);
    expect(res.body.data.created_at).toMatch(/Z$/);
    expect(Math.abs(Date.parse(res.body.data.created_at) - Date.now())).toBeLessThan(5000);
  });
});
