import { createHmac } from 'node:crypto';
import request from 'supertest';
import type { TestApp } from './test-app.js';

export const ADMIN = { username: 'root_admin', email: 'admin@example.com', password: 'admin-password-1' };
export const ADMIN_ENV = {
  ADMIN_USERNAME: ADMIN.username,
  ADMIN_EMAIL: ADMIN.email,
  ADMIN_PASSWORD: ADMIN.password,
};

export interface Account {
  id: number;
  username: string;
  token: string;
}

let counter = 0;

/** Registers a user with unique names and logs it in. */
export async function createAccount(
  t: Pick<TestApp, 'url'>,
  overrides: Record<string, string> = {},
): Promise<Account> {
  counter += 1;
  const username = overrides.username ?? `user${counter}_${Date.now() % 100000}`;
  const body = {
    username,
    email: `${username}@example.com`,
    password: 'password-123',
    first_name: 'First',
    last_name: 'Last',
    phone: '+1 555 0100',
    address: '1 Main St',
    ...overrides,
  };
  const registered = await request(t.url).post('/api/v1/register').send(body).expect(201);
  const token = await login(t, username, body.password);
  return { id: registered.body.data.id, username, token };
}

export async function login(t: Pick<TestApp, 'url'>, username: string, password: string): Promise<string> {
  const res = await request(t.url).post('/api/v1/login').send({ username, password }).expect(200);
  return res.body.data.token as string;
}

export async function loginAdmin(t: Pick<TestApp, 'url'>): Promise<Account> {
  const res = await request(t.url)
    .post('/api/v1/login')
    .send({ username: ADMIN.username, password: ADMIN.password })
    .expect(200);
  return { id: res.body.data.user.id, username: ADMIN.username, token: res.body.data.token };
}

const base64url = (value: object | string) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** Builds a JWT by hand, so tests can forge expired, wrongly signed and `alg` variants. */
export function forgeToken(
  claims: Record<string, unknown>,
  secret: string,
  alg: 'HS256' | 'HS512' | 'none' = 'HS256',
): string {
  const head = `${base64url({ alg, typ: 'JWT' })}.${base64url(claims)}`;
  if (alg === 'none') return `${head}.`;
  const digest = alg === 'HS256' ? 'sha256' : 'sha512';
  return `${head}.${createHmac(digest, secret).update(head).digest('base64url')}`;
}

export interface LoginResult {
  token: string;
  expires_in: number;
  refresh_token: string;
  refresh_expires_in: number;
  user: { id: number; username: string };
}

/** Logs in and returns the whole login response (tokens of a new session and the user). */
export async function loginSession(
  t: Pick<TestApp, 'url'>,
  username: string,
  password = 'password-123',
): Promise<LoginResult> {
  const res = await request(t.url).post('/api/v1/login').send({ username, password }).expect(200);
  return res.body.data as LoginResult;
}

/** The `sid` claim of an access token. */
export function sessionIdOf(token: string): string {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sid as string;
}
