import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect } from 'node:net';
import request from 'supertest';
import { ShutdownSequence } from '../src/lifecycle/shutdown-sequence.js';
import { freePort } from './support/app-process.js';
import { startTestApp, type TestApp } from './support/test-app.js';

describe('health: probes for orchestrators', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ HTTP_HEADERS_TIMEOUT_MS: '1000', DATABASE_ACQUIRE_TIMEOUT_MS: '2500' });
  });

  afterAll(async () => {
    await t.close();
  });

  it('GET /health/live answers 200 without checking any dependency', async () => {
    const res = await request(t.url).get('/api/v1/health/live').expect(200);
    expect(res.body).toMatchObject({ code: 200, message: 'OK', data: { status: 'ok' } });
  });

  it('GET /health/ready checks the database and reports Redis as disabled without REDIS_URL', async () => {
    const res = await request(t.url).get('/api/v1/health/ready').expect(200);
    expect(res.body).toMatchObject({
      code: 200,
      message: 'OK',
      data: { status: 'ok', database: 'up', redis: 'disabled' },
    });
  });

  it('GET /health keeps its answer', async () => {
    const res = await request(t.url).get('/api/v1/health').expect(200);
    // The seed's fields (an answer may add others).
    expect(res.body.data).toMatchObject({ status: 'ok', database: 'up' });
  });

  it('readiness answers a 500 envelope naming `draining` once shutdown has begun; liveness stays 200', async () => {
    const shutdown = t.app.get(ShutdownSequence);
    shutdown.draining = true;
    try {
      const res = await request(t.url).get('/api/v1/health/ready').expect(500);
      expect(res.body).toEqual({
        code: 500,
        message: 'Internal Server Error',
        data: { details: 'Not ready: draining' },
      });
      expect(res.headers.connection).toBe('close');
      await request(t.url).get('/api/v1/health/live').expect(200);
    } finally {
      shutdown.draining = false;
    }
  });

  it('documents the three probes in the OpenAPI document', async () => {
    const res = await request(t.url).get('/api/docs-json').expect(200);
    for (const path of ['/api/v1/health', '/api/v1/health/live', '/api/v1/health/ready']) {
      expect(res.body.paths[path].get.responses).toHaveProperty('200');
    }
    expect(res.body.paths['/api/v1/health/ready'].get.responses).toHaveProperty('500');
  });

  it('sets the SQLite busy timeout to DATABASE_ACQUIRE_TIMEOUT_MS', async () => {
    if (t.config.database.type !== 'sqlite') return;
    expect(await t.dataSource.query('PRAGMA busy_timeout')).toEqual([{ timeout: 2500 }]);
  });

  it('announces the keep-alive timeout (65 s by default, above load balancers’ 60 s idle timeout)', async () => {
    const res = await request(t.url).get('/api/v1/health/live').set('Connection', 'keep-alive').expect(200);
    expect(res.headers['keep-alive']).toBe('timeout=65');
  });

  it('closes a connection whose request headers do not arrive within HTTP_HEADERS_TIMEOUT_MS', async () => {
    const socket = connect(Number(new URL(t.url).port), '127.0.0.1');
    const started = Date.now();
    socket.write('GET /api/v1/health/live HTTP/1.1\r\nHost: x\r\n');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    await new Promise((resolve) => socket.on('close', resolve));
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(Date.now() - started).toBeLessThan(3500);
  });
});

describe('health: readiness with an unreachable Redis', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
  });

  afterAll(async () => {
    await t.close();
  });

  it('answers a 500 envelope naming redis within about a second, while /health stays 200', async () => {
    const started = Date.now();
    const res = await request(t.url).get('/api/v1/health/ready').expect(500);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(res.body.code).toBe(500);
    expect(res.body.data.details).toMatch(/^Not ready: redis \(.+\)$/);
    await request(t.url).get('/api/v1/health').expect(200);
  });
});
