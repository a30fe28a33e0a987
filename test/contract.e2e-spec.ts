import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { startTestApp, TestApp } from './support/test-app.js';

const run = promisify(execFile);
const CONTRACT = join(__dirname, 'contract');
const GENERATED = join(CONTRACT, '.generated');
const bin = (path: string) => join(__dirname, '..', 'node_modules', path);

/**
 * The front ends' contract, checked from the document the service serves: Spectral's `spectral:oas` rules
 * with zero errors, types generated with openapi-typescript, and the typed client in test/contract/client.ts
 * compiled with `tsc --strict`.
 */
describe('front-end contract: the served OpenAPI document', () => {
  let t: TestApp;
  let documentPath: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON document walked by path
  let document: Record<string, any>;

  beforeAll(async () => {
    t = await startTestApp();
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

  it('generates types with openapi-typescript that a strict typed client compiles against', async () => {
    await run(process.execPath, [
      bin('openapi-typescript/bin/cli.js'),
      documentPath,
      '--output',
      join(GENERATED, 'api.d.ts'),
    ]);
    const compiled = await run(process.execPath, [
      bin('typescript/bin/tsc'),
      '--strict',
      '--noEmit',
      '-p',
      join(CONTRACT, 'tsconfig.json'),
    ]).catch((error: { stdout: string }) => error);
    expect(compiled.stdout).toBe('');
  });
});
