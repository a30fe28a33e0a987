import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { loadSqliteDriver } from '../src/database/sqlite-driver.js';
import { AppProcess, buildService, mainScript, startAppProcess } from './support/app-process.js';

function directoryWithDotEnv(lines: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-dotenv-'));
  writeFileSync(join(dir, '.env'), `# test settings\n${lines.join('\n')}\n`);
  return dir;
}

describe('configuration from .env under the process environment (real process)', () => {
  let dir: string;
  let service: AppProcess;

  beforeAll(async () => {
    buildService();
    dir = directoryWithDotEnv([
      'DATABASE_URL=sqlite:./dotenv.sqlite',
      'ADMIN_USERNAME=dotenv_admin',
      'ADMIN_EMAIL=dotenv_admin@example.com',
      'ADMIN_PASSWORD="dotenv password 1"',
      'CORS_ORIGINS=https://from-dotenv.example',
      'HOST=127.0.0.2',
    ]);
    service = await startAppProcess(
      { CORS_ORIGINS: 'https://from-env.example', JWT_SECRET: 'x'.repeat(40) },
      { cwd: dir, host: '127.0.0.2' },
    );
    // Compiling the service and starting it can take a minute on a busy machine.
  }, 180_000);

  afterAll(async () => {
    await service?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads .env from the working directory: database, admin account and bind address', async () => {
    const login = await request(service.url)
      .post('/api/v1/login')
      .send({ username: 'dotenv_admin', password: 'dotenv password 1' })
      .expect(200);
    expect(login.body).toMatchObject({
      code: 200,
      data: { user: { username: 'dotenv_admin', role: 'admin' } },
    });

    const Database = (await loadSqliteDriver()) as new (
      path: string,
      options: { readonly: boolean },
    ) => { prepare(sql: string): { all(): unknown[] }; close(): void };
    const database = new Database(join(dir, 'dotenv.sqlite'), { readonly: true });
    const rows = database.prepare('SELECT username, email, role FROM users').all();
    database.close();
    expect(rows).toEqual([{ username: 'dotenv_admin', email: 'dotenv_admin@example.com', role: 'admin' }]);

    // HOST=127.0.0.2 from .env: the server is not on the other loopback address.
    const port = new URL(service.url).port;
    await expect(fetch(`http://127.0.0.1:${port}/api/v1/health`)).rejects.toThrow();
  });

  it('lets the process environment win over .env', async () => {
    const fromEnv = await request(service.url)
      .get('/api/v1/health')
      .set('Origin', 'https://from-env.example')
      .expect(200);
    expect(fromEnv.headers['access-control-allow-origin']).toBe('https://from-env.example');
    const fromDotEnv = await request(service.url)
      .get('/api/v1/health')
      .set('Origin', 'https://from-dotenv.example')
      .expect(200);
    expect(fromDotEnv.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses to start on bad values in .env, naming every one in one line, with status 1', () => {
    const badDir = directoryWithDotEnv(['CORS_ORIGINS=http://x/', 'THROTTLE_LIMIT=0', 'PORT=8080']);
    try {
      const run = spawnSync(process.execPath, [mainScript()], {
        cwd: badDir,
        env: { PATH: process.env.PATH, PORT: 'abc' },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(run.status).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        'Invalid configuration: PORT must be an integer from 0 to 65535 (got "abc"); ' +
          'THROTTLE_LIMIT must be an integer from 1 to 9007199254740991 (got "0"); ' +
          'CORS_ORIGINS must be * or origins such as https://shop.example or http://localhost:5173: ' +
          'scheme://host[:port] in lower case, no path or trailing slash (got "http://x/")\n',
      );
    } finally {
      rmSync(badDir, { recursive: true, force: true });
    }
  });

  it('refuses to start on a THROTTLE_STAFF_LIMIT that is not an integer or is below THROTTLE_LIMIT', () => {
    const start = (lines: string[]) => {
      const badDir = directoryWithDotEnv(lines);
      try {
        return spawnSync(process.execPath, [mainScript()], {
          cwd: badDir,
          env: { PATH: process.env.PATH },
          encoding: 'utf8',
          timeout: 30_000,
        });
      } finally {
        rmSync(badDir, { recursive: true, force: true });
      }
    };
    const below = start(['THROTTLE_LIMIT=300', 'THROTTLE_STAFF_LIMIT=200']);
    expect({ status: below.status, stdout: below.stdout, stderr: below.stderr }).toEqual({
      status: 1,
      stdout: '',
      stderr:
        'Invalid configuration: THROTTLE_STAFF_LIMIT must not be less than THROTTLE_LIMIT (300): staff get a ' +
        'bucket at least as large as a customer\'s (got "200")\n',
    });
    const notInteger = start(['THROTTLE_STAFF_LIMIT=600/min']);
    expect({ status: notInteger.status, stderr: notInteger.stderr }).toEqual({
      status: 1,
      stderr:
        'Invalid configuration: THROTTLE_STAFF_LIMIT must be an integer from 1 to 9007199254740991 (got "600/min")\n',
    });
  });
});
