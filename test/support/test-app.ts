import type { NestExpressApplication } from '@nestjs/platform-express';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { createApp } from '../../src/app.js';
import { AppConfig, Env, loadConfig, parseDatabaseUrl } from '../../src/config/app-config.js';
import { filesUnder } from './multipart.js';
import { startS3Server, type S3TestServer } from './s3-server.js';

export interface TestApp {
  app: NestExpressApplication;
  config: AppConfig;
  /** The running server's base URL, e.g. http://127.0.0.1:40123 */
  url: string;
  /** DATABASE_URL of its database, to boot another instance on it. */
  databaseUrl: string;
  dataSource: DataSource;
  /** The S3-compatible server holding the uploads, when they are stored there. */
  s3: S3TestServer | null;
  /** The stored uploads' paths, sorted; on the local disk also the files in progress under `.incoming/`. */
  storedUploads(): string[];
  readUpload(path: string): Buffer;
  close(): Promise<void>;
}

/**
 * A fresh database for one test file: a temporary SQLite file, or, when TEST_DATABASE_URL is a
 * mysql:// URL, a new database on that server named after the URL's database plus a random suffix.
 */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL;
  const parsed = parseDatabaseUrl(base);
  if (base === undefined || typeof parsed === 'string' || parsed.type === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'commerce-test-'));
    return {
      url: `sqlite:${join(dir, 'test.sqlite')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `${parsed.database}_${randomBytes(4).toString('hex')}`;
  const serverUrl = new URL(base);
  serverUrl.pathname = '/';
  const admin = await mysql.createConnection(serverUrl.toString());
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const connection = await mysql.createConnection(serverUrl.toString());
      await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await connection.end();
    },
  };
}

/**
 * Boots the real application on a fresh database and an ephemeral port. Given a DATABASE_URL, it boots
 * on that database instead (a second instance of the same service) and leaves it in place on close.
 * With TEST_UPLOAD_STORAGE=s3 (and no UPLOAD_STORAGE in `env`) it stores uploads in a bucket of an
 * S3-compatible server of its own (test/support/s3-server.ts), stopped on close.
 */
export async function startTestApp(env: Env = {}): Promise<TestApp> {
  const s3 =
    process.env.TEST_UPLOAD_STORAGE === 's3' && env.UPLOAD_STORAGE === undefined
      ? await startS3Server()
      : null;
  const database =
    env.DATABASE_URL === undefined
      ? await createTestDatabase()
      : { url: env.DATABASE_URL, drop: async () => undefined };
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'error',
    THROTTLE_LIMIT: '100000',
    THROTTLE_AUTH_LIMIT: '100000',
    JWT_SECRET: 'test-secret-test-secret-test-secret-0123',
    UPLOAD_DIR: join(tmpdir(), `commerce-uploads-${randomBytes(4).toString('hex')}`),
    DATABASE_URL: database.url,
    ...s3?.env,
    ...env,
  });
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  return {
    app,
    config,
    url: `http://127.0.0.1:${address.port}`,
    databaseUrl: database.url,
    dataSource: app.get(DataSource),
    s3,
    storedUploads: () =>
      s3 ? s3.objectKeys() : existsSync(config.upload.dir) ? filesUnder(config.upload.dir) : [],
    readUpload: (path) => (s3 ? s3.readObject(path) : readFileSync(join(config.upload.dir, path))),
    async close() {
      await app.close();
      rmSync(config.upload.dir, { recursive: true, force: true });
      await s3?.close();
      await database.drop();
    },
  };
}
