import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { startTestApp, type TestApp } from './support/test-app.js';

/** The policy the console's responses carry (docs/console.md#content-security-policy). */
const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
  "connect-src 'self' ws: wss:; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const INDEX_HTML =
  '<!doctype html><html><head><script type="module" src="/admin/assets/index-C0ffee12.js"></script>' +
  '<link rel="stylesheet" href="/admin/assets/index-Beef3456.css"></head><body><div id="root"></div></body></html>';
const SCRIPT = 'console.log("console");\n';
const STYLE = 'body { margin: 0; }\n';

/** A console build as Vite lays it out: index.html, hashed assets under assets/, an unhashed file beside. */
function writeBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-admin-dist-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), INDEX_HTML);
  writeFileSync(join(dir, 'assets', 'index-C0ffee12.js'), SCRIPT);
  writeFileSync(join(dir, 'assets', 'index-Beef3456.css'), STYLE);
  writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dir;
}

describe('admin console serving', () => {
  let dir: string;
  let t: TestApp;

  beforeAll(async () => {
    dir = writeBuild();
    t = await startTestApp({ ADMIN_CONSOLE_DIR: dir, THROTTLE_FILES_LIMIT: '4321' });
  });

  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const expectConsoleHeaders = (response: request.Response) => {
    expect(response.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['referrer-policy']).toBe('no-referrer');
    expect(response.headers['x-frame-options']).toBe('DENY');
  };

  it('/admin and every page path under it answer index.html, never cached without asking again', async () => {
    for (const path of ['/admin', '/admin/', '/admin/login', '/admin/orders/12', '/admin/products/new']) {
      const response = await request(t.url).get(path);
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.text).toBe(INDEX_HTML);
      expectConsoleHeaders(response);
    }
  });

  it('hashed assets are served with their type and cached for a year; unhashed files are asked for again', async () => {
    const script = await request(t.url).get('/admin/assets/index-C0ffee12.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(script.text).toBe(SCRIPT);
    expectConsoleHeaders(script);

    const style = await request(t.url).get('/admin/assets/index-Beef3456.css');
    expect(style.status).toBe(200);
    expect(style.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(style.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(style.text).toBe(STYLE);

    const icon = await request(t.url).get('/admin/favicon.svg');
    expect(icon.status).toBe(200);
    expect(icon.headers['content-type']).toBe('image/svg+xml');
    expect(icon.headers['cache-control']).toBe('no-cache');
  });

  it('a file that is not there is a 404 page, not index.html (a stale page asking for an old asset sees it)', async () => {
    for (const path of ['/admin/assets/index-0ld0ld00.js', '/admin/missing.css', '/admin/.env']) {
      const response = await request(t.url).get(path);
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.text).toContain('Not found');
      expect(response.text).not.toContain('id="root"');
      expectConsoleHeaders(response);
    }
  });

  it('nothing outside the build is reachable through /admin', async () => {
    writeFileSync(join(dir, '..', 'outside-admin-dist.txt'), 'secret');
    try {
      for (const path of [
        '/admin/..%2foutside-admin-dist.txt',
        '/admin/%2e%2e/outside-admin-dist.txt',
        '/admin/.%2e/.%2e/package.json',
      ]) {
        const response = await request(t.url).get(path);
        expect({ path, status: response.status }).toEqual({ path, status: 404 });
        expect(response.text).not.toContain('secret');
      }
    } finally {
      rmSync(join(dir, '..', 'outside-admin-dist.txt'), { force: true });
    }
  });

  it("the console's files count in the files bucket of the rate limit, not the API's", async () => {
    const response = await request(t.url).get('/admin/assets/index-C0ffee12.js');
    expect(response.headers['x-ratelimit-limit']).toBe('4321');
    const page = await request(t.url).get('/admin');
    expect(page.headers['x-ratelimit-limit']).toBe('4321');
  });

  it("the API keeps the service's own policy; other methods under /admin are unknown paths", async () => {
    const response = await request(t.url).get('/api/v1/health');
    expect(response.status).toBe(200);
    expect(response.headers['content-security-policy']).not.toBe(CONSOLE_CSP);
    expect(response.body.code).toBe(200);
    const post = await request(t.url).post('/admin/login').send({ username: 'a' });
    // Only pages are read under /admin: anything else is an unknown path outside the API, Express' own 404.
    expect(post.status).toBe(404);
    expect(post.text).toContain('Cannot POST /admin/login');
  });
});

describe('admin console not built', () => {
  let t: TestApp;
  const dir = join(tmpdir(), 'commerce-admin-dist-never-built');

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_CONSOLE_DIR: dir });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('the service starts and /admin says the console is not built (503), until it is', async () => {
    expect((await request(t.url).get('/api/v1/health')).status).toBe(200);
    for (const path of ['/admin', '/admin/orders', '/admin/assets/index-C0ffee12.js']) {
      const response = await request(t.url).get(path);
      expect({ path, status: response.status }).toEqual({ path, status: 503 });
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.text).toContain('Admin console not built');
      expect(response.text).toContain('npm run build');
    }
    mkdirSync(dir);
    try {
      writeFileSync(join(dir, 'index.html'), INDEX_HTML);
      const built = await request(t.url).get('/admin/orders');
      expect(built.status).toBe(200);
      expect(built.text).toBe(INDEX_HTML);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('admin console switched off (ADMIN_CONSOLE=false)', () => {
  let dir: string;
  let t: TestApp;

  beforeAll(async () => {
    dir = writeBuild();
    t = await startTestApp({ ADMIN_CONSOLE: 'false', ADMIN_CONSOLE_DIR: dir });
  });

  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('/admin is an unknown path outside the API (404), no file of the build is served', async () => {
    for (const path of ['/admin', '/admin/orders', '/admin/assets/index-C0ffee12.js']) {
      const response = await request(t.url).get(path);
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect(response.text).toContain(`Cannot GET ${path}`);
      expect(response.headers['content-security-policy']).not.toBe(CONSOLE_CSP);
    }
  });
});
