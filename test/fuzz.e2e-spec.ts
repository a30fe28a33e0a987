import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { request as httpRequest } from 'node:http';
import { ADMIN_ENV, Account, createAccount, loginAdmin } from './support/accounts.js';
import { concurrentClient } from './support/http.js';
import { createProduct } from './support/products.js';
import { startTestApp, TestApp } from './support/test-app.js';

/** Cases per run; FUZZ_RUNS raises it for a longer search. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 2000);

interface Answer {
  status: number;
  body: string;
}

const agent = concurrentClient(4);

function send(t: TestApp, method: string, path: string, body: string | null, token: string | null) {
  return new Promise<Answer>((resolve, reject) => {
    const headers: Record<string, string | number> = {};
    if (token !== null) headers.Authorization = `Bearer ${token}`;
    if (body !== null) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = Buffer.byteLength(body);
    }
    const req = httpRequest(`${t.url}${path}`, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

/**
 * Every endpoint that reads a body or a query (POST /logout and DELETE /sessions are left out: they would end
 * the sessions whose tokens the run uses); `{id}` is filled with an existing or an arbitrary id. */
const ENDPOINTS: Array<{ method: string; path: string; body: boolean }> = [
  { method: 'POST', path: '/api/v1/register', body: true },
  { method: 'POST', path: '/api/v1/login', body: true },
  { method: 'GET', path: '/api/v1/users', body: false },
  { method: 'GET', path: '/api/v1/users/{id}', body: false },
  { method: 'PUT', path: '/api/v1/users/{id}', body: true },
  { method: 'GET', path: '/api/v1/products', body: false },
  { method: 'POST', path: '/api/v1/products', body: true },
  { method: 'GET', path: '/api/v1/products/{id}', body: false },
  { method: 'PUT', path: '/api/v1/products/{id}', body: true },
  { method: 'GET', path: '/api/v1/categories', body: false },
  { method: 'POST', path: '/api/v1/categories', body: true },
  { method: 'GET', path: '/api/v1/categories/{id}', body: false },
  { method: 'PUT', path: '/api/v1/categories/{id}', body: true },
  { method: 'GET', path: '/api/v1/orders', body: false },
  { method: 'POST', path: '/api/v1/orders', body: true },
  { method: 'GET', path: '/api/v1/orders/{id}', body: false },
  { method: 'POST', path: '/api/v1/orders/{id}/cancel', body: true },
  { method: 'PATCH', path: '/api/v1/orders/{id}/status', body: true },
  { method: 'GET', path: '/api/v1/health', body: false },
  { method: 'POST', path: '/api/v1/auth/refresh', body: true },
  { method: 'GET', path: '/api/v1/me', body: false },
  { method: 'PUT', path: '/api/v1/me/password', body: true },
  { method: 'GET', path: '/api/v1/me/addresses', body: false },
  { method: 'POST', path: '/api/v1/me/addresses', body: true },
  { method: 'GET', path: '/api/v1/me/addresses/{id}', body: false },
  { method: 'PUT', path: '/api/v1/me/addresses/{id}', body: true },
  { method: 'GET', path: '/api/v1/shipping-options', body: false },
  { method: 'POST', path: '/api/v1/shipping-options', body: true },
  { method: 'GET', path: '/api/v1/shipping-options/{id}', body: false },
  { method: 'PUT', path: '/api/v1/shipping-options/{id}', body: true },
  { method: 'GET', path: '/api/v1/sessions', body: false },
  { method: 'DELETE', path: '/api/v1/sessions/{id}', body: false },
];

/** Values shaped like the real fields, so that the validator's deeper rules are reached too. */
const FIELDS = [
  'username',
  'email',
  'password',
  'first_name',
  'last_name',
  'phone',
  'address',
  'role',
  'is_active',
  'name',
  'description',
  'price',
  'stock',
  'category_id',
  'include_descendants',
  'slug',
  'parent_id',
  'position',
  'image',
  'items',
  'product_id',
  'quantity',
  'shipping_address',
  'line1',
  'line2',
  'city',
  'region',
  'postal_code',
  'country',
  'countries',
  'is_default',
  'payment_method',
  'status',
  'payment_status',
  'page',
  'page_size',
  'search',
  'sort',
  'min_price',
  'max_price',
  'price_min',
  'price_max',
  'option',
  'option[Size]',
  'facets',
  'in_stock',
  'slug',
  'images',
  'url',
  'alt',
  'ids',
  '__proto__',
  'constructor',
];

const scalar = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.constantFrom(0, -1, 1.5, 2 ** 31, 1e308, '', 'null', 'true', '1', 'credit_card', 'paid', 'a\uFE0F'),
);
const shapedObject = fc.dictionary(
  fc.constantFrom(...FIELDS),
  fc.oneof(scalar, fc.array(fc.dictionary(fc.constantFrom(...FIELDS), scalar), { maxLength: 3 })),
  { maxKeys: 6 },
);
const body = fc.oneof(
  shapedObject.map((value) => JSON.stringify(value)),
  fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
  fc.string({ unit: 'binary', maxLength: 80 }),
);
const query = fc
  .array(
    fc.tuple(
      fc.oneof(fc.constantFrom(...FIELDS), fc.string({ maxLength: 8 })),
      fc.oneof(
        fc.string({ unit: 'binary', maxLength: 20 }),
        fc.constantFrom(
          '1',
          '0',
          '101',
          '-1',
          'abc',
          '1e3',
          'true',
          '%',
          '[]',
          '1,2',
          '3,,1',
          'desk-lamp',
          'price,options',
        ),
      ),
    ),
    { maxLength: 5 },
  )
  .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));

describe('fuzz: arbitrary bodies and queries on every endpoint', () => {
  let t: TestApp;
  let admin: Account;
  let user: Account;
  let ids: number[];

  beforeAll(async () => {
    t = await startTestApp(ADMIN_ENV);
    admin = await loginAdmin(t);
    user = await createAccount(t);
    const product = await createProduct(t, admin.token, { stock: 1_000_000 });
    ids = [1, user.id, product.id, 0, 2_147_483_648];
  });

  afterAll(async () => {
    agent.destroy();
    await t.close();
  });

  it(`answers ${RUNS} arbitrary requests with the envelope and never 500`, async () => {
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ENDPOINTS),
        fc.constantFrom(0, 1, 2, 3, 4),
        fc.boolean(),
        body,
        query,
        async (endpoint, idIndex, asAdmin, rawBody, rawQuery) => {
          const path = endpoint.path.replace('{id}', String(ids[idIndex]));
          const url = rawQuery === '' ? path : `${path}?${rawQuery}`;
          const answer = await send(
            t,
            endpoint.method,
            url,
            endpoint.body ? rawBody : null,
            asAdmin ? admin.token : user.token,
          );
          expect(answer.status).not.toBe(500);
          const envelope = JSON.parse(answer.body);
          expect(envelope.code).toBe(answer.status);
          expect(typeof envelope.message).toBe('string');
          expect('data' in envelope).toBe(true);
          if (answer.status >= 400) expect(typeof envelope.data.details).toBe('string');
          if (answer.status === 400) expect(Array.isArray(envelope.data.errors)).toBe(true);
        },
      ),
      {
        numRuns: RUNS,
        seed: process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED),
      },
    );
    console.log(`fuzz: ${RUNS} cases in ${Date.now() - started} ms`);
  }, 180_000);
});
