import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { ADMIN_ENV, loginAdmin } from './support/accounts.js';
import { startTestApp, TestApp } from './support/test-app.js';
import { addProduct, changePrice, useService } from './contract/client.js';

const run = promisify(execFile);
const CONTRACT = join(__dirname, 'contract');
const GENERATED = join(CONTRACT, '.generated');
const bin = (path: string) => join(__dirname, '..', 'node_modules', path);
const SDK_GENERATOR = join(__dirname, '..', 'packages', 'sdk', 'scripts', 'generate.mjs');

/**
 * The front ends' contract, checked from the document the service serves: Spectral's `spectral:oas` rules
 * with zero errors, the SDK's types (generated from it with openapi-typescript) up to date, and the storefront
 * in test/contract/client.ts, written on the SDK, compiled with `tsc --strict`.
 */
describe('front-end contract: the served OpenAPI document', () => {
  let t: TestApp;
  let documentPath: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON document walked by path
  let document: Record<string, any>;

  beforeAll(async () => {
    t = await startTestApp(ADMIN_ENV);
    const res = await request(t.url).get('/api/docs-json').expect(200);
    document = res.body;
    mkdirSync(GENERATED, { recursive: true });
    documentPath = join(GENERATED, 'openapi.json');
    writeFileSync(documentPath, JSON.stringify(document, null, 2));
  });

  afterAll(async () => {
    await t.close();
  });

  it('passes Spectral spectral:oas with zero errors', async () => {
    const { stdout } = await run(
      process.execPath,
      [
        bin('@stoplight/spectral-cli/dist/index.js'),
        'lint',
        documentPath,
        '--ruleset',
        join(CONTRACT, '.spectral.yaml'),
        '--format',
        'json',
        '--fail-severity',
        'error',
        '--quiet',
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    ).catch((error: { stdout: string }) => error);
    const problems = JSON.parse(stdout || '[]') as Array<{ severity: number; code: string; path: string[] }>;
    const errors = problems.filter((problem) => problem.severity === 0);
    expect(errors.map((e) => `${e.code} at ${e.path.join('.')}`)).toEqual([]);
  });

  it('describes integers, formats, required fields, the shared error envelopes and the headers', () => {
    const schemas = document.components.schemas;
    expect(schemas.ProductResponseDto.properties.id.type).toBe('integer');
    expect(schemas.ProductResponseDto.properties.stock.type).toBe('integer');
    expect(schemas.ProductResponseDto.properties.created_at.format).toBe('date-time');
    expect(schemas.UserResponseDto.properties.email.format).toBe('email');
    expect(schemas.PageMetaDto.required).toEqual(['page', 'page_size', 'total', 'total_page']);
    expect(schemas.ErrorDetailsDto.required).toEqual(['details']);
    expect(schemas.ValidationErrorDetailsDto.required).toEqual(['details', 'errors']);
    expect(schemas.HealthDto.required).toEqual(['status', 'database']);
    const list = document.paths['/api/v1/products'].get.responses['200'];
    expect(list.content['application/json'].schema.required).toContain('meta');
    expect(list.headers['X-RateLimit-Remaining']).toEqual({
      $ref: '#/components/headers/X-RateLimit-Remaining',
    });
    const refused = document.paths['/api/v1/orders'].post.responses['429'];
    expect(Object.keys(refused.headers)).toContain('Retry-After');
    expect(refused.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ErrorEnvelopeDto',
    });
    const created = document.paths['/api/v1/orders'].post.responses['201'];
    expect(Object.keys(created.headers)).toContain('Idempotent-Replayed');
    const deleted = document.paths['/api/v1/products/{id}'].delete.responses['200'];
    expect(deleted.content['application/json'].schema.properties.data).toMatchObject({
      nullable: true,
      enum: [null],
    });
    // Examples are the endpoint's own: the login 401 is about credentials, its 400 about its own fields.
    const login = document.paths['/api/v1/login'].post.responses;
    expect(login['401'].content['application/json'].example.data.details).toBe(
      'Invalid username or password',
    );
    expect(login['400'].content['application/json'].example.data.errors[0].field).toBe('password');
  });

  it("is the document of the SDK's types (packages/sdk/src/schema.ts), which a strict storefront compiles against", async () => {
    // The SDK's generator on the document this server serves: exit 1 when the committed types differ, saying
    // what to run. Its words are the failure.
    const checked = await run(process.execPath, [SDK_GENERATOR, '--check', '--from', documentPath]).catch(
      (error: { stderr: string }) => error,
    );
    if (checked.stderr !== '') throw new Error(checked.stderr.trim());
    const compiled = await run(process.execPath, [
      bin('typescript/bin/tsc'),
      '--strict',
      '--noEmit',
      '-p',
      join(CONTRACT, 'tsconfig.json'),
    ]).catch((error: { stdout: string }) => error);
    expect(compiled.stdout).toBe('');
  });

  it('an endpoint the SDK does not know yet fails the check, saying what to run and where', async () => {
    // Put first, so that it is the first difference whatever else the served document changes.
    const changed = {
      ...document,
      paths: {
        '/api/v1/a-new-route': { get: { responses: { 200: { description: 'OK' } } } },
        ...document.paths,
      },
    };
    const changedPath = join(GENERATED, 'openapi-changed.json');
    writeFileSync(changedPath, JSON.stringify(changed));
    const checked = await run(process.execPath, [SDK_GENERATOR, '--check', '--from', changedPath]).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(checked.code).toBe(1);
    expect(checked.stderr.split('\n')).toEqual([
      'SDK types are out of date: packages/sdk/src/schema.ts is not the OpenAPI document the service serves.',
      'Run `npm run build:server && npm run generate -w @commerce/sdk` (or `npm run build`) and commit packages/sdk/src/schema.ts.',
      expect.stringMatching(/^First difference, line \d+: committed .+, served "\/a-new-route": \{$/),
      '',
    ]);
  });

  it('puts no default on a request field (openapi-typescript would make the field required)', () => {
    const found: string[] = [];
    const seen = new Set<string>();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON schema walked by path
    const walk = (schema: any, where: string) => {
      if (schema === null || typeof schema !== 'object') return;
      if (typeof schema.$ref === 'string') {
        const name = schema.$ref.split('/').pop() as string;
        if (!seen.has(name)) {
          seen.add(name);
          walk(document.components.schemas[name], name);
        }
        return;
      }
      if ('default' in schema) found.push(where);
      for (const [key, value] of Object.entries(schema)) walk(value, `${where}.${key}`);
    };
    for (const [path, operations] of Object.entries(document.paths)) {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON document walked by path
      for (const [method, operation] of Object.entries(operations as Record<string, any>)) {
        for (const parameter of operation.parameters ?? [])
          walk(parameter.schema, `${method} ${path} ${parameter.name}`);
        for (const content of Object.values(operation.requestBody?.content ?? {})) {
          walk((content as { schema: unknown }).schema, `${method} ${path} body`);
        }
      }
    }
    expect(seen.has('CreateProductDto')).toBe(true);
    expect(found).toEqual([]);
  });

  it('the typed client creates a product with only the required fields and updates its price alone', async () => {
    const admin = await loginAdmin(t);
    useService(t.url);
    const row = async (id: number) =>
      (
        await t.dataSource.query(
          'SELECT name, description, price_cents, stock, category_id FROM products WHERE id = ?',
          [id],
        )
      )[0];
    const id = await addProduct(admin.token, 'Quick add', 12.5, 2);
    // The service's defaults for the fields left out: no description, no stock.
    const stored = { name: 'Quick add', description: '', price_cents: 1250, stock: 0, category_id: 2 };
    expect(await row(id)).toEqual(stored);

    expect(await changePrice(admin.token, id, 9.99)).toBe(9.99);
    expect(await row(id)).toEqual({ ...stored, price_cents: 999 });
  });
});
