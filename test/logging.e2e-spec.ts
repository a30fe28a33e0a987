import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import request from 'supertest';
import { startTestApp, TestApp } from './support/test-app.js';

describe('logs', () => {
  let t: TestApp;
  let output = '';

  beforeAll(async () => {
    const capture = (chunk: unknown) => {
      output += String(chunk);
      return true;
    };
    jest.spyOn(process.stdout, 'write').mockImplementation(capture);
    jest.spyOn(process.stderr, 'write').mockImplementation(capture);
    t = await startTestApp({ LOG_LEVEL: 'verbose', ADMIN_CONSOLE_DIR: '/nonexistent/admin-console' });
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await t.close();
  });

  it('are JSON lines with a request id, and never hold passwords, hashes, tokens or the Authorization header', async () => {
    const password = 'very-secret-password-42';
    await request(t.url)
      .post('/api/v1/register')
      .send({ username: 'log_user', email: 'log@example.com', password })
      .expect(201);
    const login = await request(t.url)
      .post('/api/v1/login')
      .send({ username: 'log_user', password })
      .expect(200);
    const token: string = login.body.data.token;
    await request(t.url)
      .get('/api/v1/users/1')
      .set('Authorization', `Bearer ${token}`)
      .set('X-Request-Id', 'trace-log-1')
      .expect(200);
    await request(t.url).get(`/api/v1/ws?token=${token}`);
    // Answered inside a router mounted at /admin: the whole path is logged all the same.
    await request(t.url).get('/admin/orders').set('X-Request-Id', 'trace-log-2').expect(503);
    await request(t.url)
      .post('/api/v1/login')
      .send({ username: 'log_user', password: 'wrong-password-1' })
      .expect(401);

    const lines = output.trim().split('\n');
    const entries = lines.map((line) => JSON.parse(line));
    const requestEntries = entries.filter((entry) => entry.message?.msg === 'request');
    expect(requestEntries.length).toBeGreaterThanOrEqual(5);
    expect(requestEntries.find((entry) => entry.message.requestId === 'trace-log-1')?.message).toMatchObject({
      method: 'GET',
      path: '/api/v1/users/1',
      status: 200,
    });
    expect(requestEntries.find((entry) => entry.message.requestId === 'trace-log-2')?.message).toMatchObject({
      method: 'GET',
      path: '/admin/orders',
      status: 503,
    });
    const [{ password_hash: hash }] = await t.dataSource.query(
      'SELECT password_hash FROM users WHERE username = ?',
      ['log_user'],
    );
    expect(hash).toMatch(/^\$argon2id/);
    for (const secret of [
      password,
      'wrong-password-1',
      token,
      token.split('.')[2],
      '$argon2id',
      'Bearer',
      hash,
    ].filter(Boolean)) {
      expect(output).not.toContain(secret);
    }
  });
});
