import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { createHash, randomBytes } from 'node:crypto';
import request from 'supertest';
import { ADMIN, ADMIN_ENV, createAccount, login, loginAdmin, type Account } from './support/accounts.js';
import { scrape } from './support/metrics.js';
import { placeOrder } from './support/orders.js';
import { eventually } from './support/eventually.js';
import { createProduct } from './support/products.js';
import { TestSmtpServer, type ReceivedMail } from './support/smtp-server.js';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { PasswordHasher } from '../src/auth/password-hasher.js';
import { loadConfig } from '../src/config/app-config.js';
import { buildDataSourceOptions } from '../src/database/data-source-options.js';
import { CreateAccountTokens1763801300000 } from '../src/database/migrations/1763801300000-create-account-tokens.js';
import { migrations } from '../src/database/migrations/index.js';
import { createTestDatabase, startTestApp, type TestApp } from './support/test-app.js';
import { TestSocket } from './support/ws-client.js';

const LINKS = 'https://shop.example/account';
const TOKEN_IN_TEXT = /token=([A-Za-z0-9_-]{43})/;
const INVALID_TOKEN = {
  details: 'token is unknown, used or expired',
  errors: [{ field: 'token', rule: 'valid', message: 'token is unknown, used or expired' }],
};

/** The one-time token a password reset or verification e-mail carries (its link's `token`). */
function tokenOf(mail: ReceivedMail): string {
  const match = TOKEN_IN_TEXT.exec(mail.text);
  if (match === null) throw new Error(`no token in ${mail.text}`);
  return match[1];
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('e-mail, password reset and e-mail verification', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  let admin: Account;

  const api = () => request(t.url);
  const tokenRows = (userId: number) =>
    t.dataSource.query('SELECT purpose, token_hash FROM account_tokens WHERE user_id = ? ORDER BY id', [
      userId,
    ]);
  const verifiedColumn = async (userId: number) =>
    Boolean(
      (await t.dataSource.query('SELECT email_verified FROM users WHERE id = ?', [userId]))[0].email_verified,
    );
  const emailOf = (account: Account) => `${account.username}@example.com`;

  /** A fresh account whose verification e-mail (sent at registration) has arrived. */
  async function registered(): Promise<{ account: Account; verification: ReceivedMail }> {
    const account = await createAccount(t);
    const [verification] = await smtp.waitFor(emailOf(account));
    return { account, verification };
  }

  async function requestReset(email: string) {
    return api().post('/api/v1/auth/password-reset').send({ email }).expect(200);
  }

  beforeAll(async () => {
    smtp = await TestSmtpServer.create();
    t = await startTestApp({
      ...ADMIN_ENV,
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Shop <shop@example.com>',
      MAIL_LINK_BASE_URL: LINKS,
      MAIL_RETRY_BACKOFF_MS: '200',
      JOBS_POLL_INTERVAL_MS: '100',
      THROTTLE_MAIL_LIMIT: '100000',
    });
    admin = await loginAdmin(t);
  });

  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  describe('registration', () => {
    it('sends the verification e-mail to the new address; the account shows email_verified false until used', async () => {
      const { account, verification } = await registered();
      expect(verification.to).toEqual([emailOf(account)]);
      expect(verification.from).toBe('shop@example.com');
      expect(verification.subject).toBe('Confirm your e-mail address');
      expect(verification.text).toContain(`Hello ${account.username},`);
      const token = tokenOf(verification);
      expect(verification.text).toContain(`${LINKS}/verify-email?token=${token}`);
      expect(verification.text).toContain('for 48 hours');
      expect(verification.html).toContain(`href="${LINKS}/verify-email?token=${token}"`);
      // Stored as its SHA-256 only.
      expect(await tokenRows(account.id)).toEqual([
        { purpose: 'email_verification', token_hash: sha256(token) },
      ]);

      const before = await api()
        .get(`/api/v1/users/${account.id}`)
        .auth(account.token, { type: 'bearer' })
        .expect(200);
      expect(before.body.data.email_verified).toBe(false);

      const verified = await api().post('/api/v1/auth/verify-email').send({ token }).expect(200);
      expect(verified.body.data).toBeNull();
      const after = await api()
        .get(`/api/v1/users/${account.id}`)
        .auth(account.token, { type: 'bearer' })
        .expect(200);
      expect(after.body.data.email_verified).toBe(true);
      expect(await verifiedColumn(account.id)).toBe(true);
      expect(await tokenRows(account.id)).toEqual([]);
    });

    it('a verification token works once; an unknown one is refused the same way', async () => {
      const { verification } = await registered();
      const token = tokenOf(verification);
      await api().post('/api/v1/auth/verify-email').send({ token }).expect(200);
      const again = await api().post('/api/v1/auth/verify-email').send({ token }).expect(400);
      expect(again.body.data).toEqual(INVALID_TOKEN);
      const unknown = await api()
        .post('/api/v1/auth/verify-email')
        .send({ token: 'x'.repeat(43) })
        .expect(400);
      expect(unknown.body.data).toEqual(INVALID_TOKEN);
      const missing = await api().post('/api/v1/auth/verify-email').send({}).expect(400);
      expect(missing.body.data.errors.map((e: { field: string }) => e.field)).toContain('token');
    });

    it('resend: a new e-mail with a new token (the older stops working); nothing for verified or unknown addresses', async () => {
      const { account, verification } = await registered();
      const first = tokenOf(verification);
      const resent = await api()
        .post('/api/v1/auth/verify-email/resend')
        .send({ email: emailOf(account) })
        .expect(200);
      expect(resent.body.data).toBeNull();
      const [, second] = await smtp.waitFor(emailOf(account), 2);
      expect(tokenOf(second)).not.toBe(first);
      expect(
        (await api().post('/api/v1/auth/verify-email').send({ token: first }).expect(400)).body.data,
      ).toEqual(INVALID_TOKEN);
      await api()
        .post('/api/v1/auth/verify-email')
        .send({ token: tokenOf(second) })
        .expect(200);

      // Verified now, and an unknown address: the same 200, and no e-mail.
      const verifiedAnswer = await api()
        .post('/api/v1/auth/verify-email/resend')
        .send({ email: emailOf(account) });
      const unknownAnswer = await api()
        .post('/api/v1/auth/verify-email/resend')
        .send({ email: 'nobody-here@example.com' });
      expect([verifiedAnswer.status, unknownAnswer.status]).toEqual([200, 200]);
      expect(unknownAnswer.body).toEqual(verifiedAnswer.body);
      await sleep(1000);
      expect(smtp.to(emailOf(account))).toHaveLength(2);
      expect(smtp.to('nobody-here@example.com')).toHaveLength(0);
    });

    it('the configured admin and accounts from before verification existed count as verified', async () => {
      const me = await api()
        .get(`/api/v1/users/${admin.id}`)
        .auth(admin.token, { type: 'bearer' })
        .expect(200);
      expect(me.body.data.email_verified).toBe(true);
      expect(smtp.to(ADMIN.email)).toHaveLength(0);
    });
  });

  describe('password reset', () => {
    it('answers an unknown address exactly like a known one, and e-mails only the known one', async () => {
      const { account } = await registered();
      const known = await requestReset(emailOf(account));
      const unknown = await requestReset('no-such-user@example.com');
      expect(unknown.body).toEqual(known.body);
      expect(known.body).toEqual({ code: 200, message: 'OK', data: null });
      const [, reset] = await smtp.waitFor(emailOf(account), 2);
      expect(reset.to).toEqual([emailOf(account)]);
      expect(reset.subject).toBe('Reset your password');
      expect(reset.text).toContain(`${LINKS}/reset-password?token=${tokenOf(reset)}`);
      expect(reset.text).toContain('for 1 hour');
      expect(reset.html).toContain(`href="${LINKS}/reset-password?token=${tokenOf(reset)}"`);
      await sleep(500);
      expect(smtp.to('no-such-user@example.com')).toHaveLength(0);
    });

    it('sets the new password, kills the old one, revokes every session and closes its sockets; the token works once', async () => {
      const { account } = await registered();
      const second = await login(t, account.username, 'password-123');
      const refresh = (
        await api()
          .post('/api/v1/login')
          .send({ username: account.username, password: 'password-123' })
          .expect(200)
      ).body.data.refresh_token as string;
      const socket = await TestSocket.authenticated(t, account.token);

      await requestReset(emailOf(account).toUpperCase()); // the address matches ignoring case
      const [, mail] = await smtp.waitFor(emailOf(account), 2);
      const token = tokenOf(mail);
      expect(await tokenRows(account.id)).toContainEqual({
        purpose: 'password_reset',
        token_hash: sha256(token),
      });

      const done = await api()
        .post('/api/v1/auth/password-reset/confirm')
        .send({ token, password: 'brand-new-password' })
        .expect(200);
      expect(done.body.data).toBeNull();

      // Sessions: every one revoked (rows), its tokens refused, its socket closed.
      expect(await socket.closed).toMatchObject({ code: 4401, reason: 'Unauthorized' });
      for (const bearer of [account.token, second]) {
        await api().get(`/api/v1/users/${account.id}`).auth(bearer, { type: 'bearer' }).expect(401);
      }
      await api().post('/api/v1/auth/refresh').send({ refresh_token: refresh }).expect(401);
      const live = await t.dataSource.query(
        'SELECT COUNT(*) AS n FROM sessions WHERE user_id = ? AND revoked_at IS NULL',
        [account.id],
      );
      expect(Number(live[0].n)).toBe(0);

      // Old password dead, new one works; the address counts as verified (the e-mail reached it).
      await api()
        .post('/api/v1/login')
        .send({ username: account.username, password: 'password-123' })
        .expect(401);
      await login(t, account.username, 'brand-new-password');
      expect(await verifiedColumn(account.id)).toBe(true);

      // Single use.
      const reused = await api()
        .post('/api/v1/auth/password-reset/confirm')
        .send({ token, password: 'a-third-password' })
        .expect(400);
      expect(reused.body.data).toEqual(INVALID_TOKEN);
      await login(t, account.username, 'brand-new-password');
    });

    it('refuses an expired token, and a token from before a newer request', async () => {
      const { account } = await registered();
      await requestReset(emailOf(account));
      const [, older] = await smtp.waitFor(emailOf(account), 2);
      await requestReset(emailOf(account));
      const [, , newer] = await smtp.waitFor(emailOf(account), 3);
      const refusedOlder = await api()
        .post('/api/v1/auth/password-reset/confirm')
        .send({ token: tokenOf(older), password: 'brand-new-password' })
        .expect(400);
      expect(refusedOlder.body.data).toEqual(INVALID_TOKEN);

      await t.dataSource.query(
        "UPDATE account_tokens SET expires_at = '2000-01-01 00:00:00.000' WHERE token_hash = ?",
        [sha256(tokenOf(newer))],
      );
      const expired = await api()
        .post('/api/v1/auth/password-reset/confirm')
        .send({ token: tokenOf(newer), password: 'brand-new-password' })
        .expect(400);
      expect(expired.body.data).toEqual(INVALID_TOKEN);
      await login(t, account.username, 'password-123');
    });

    it('refuses the token of an account deactivated or deleted since the e-mail', async () => {
      const deactivated = (await registered()).account;
      const deleted = (await registered()).account;
      for (const account of [deactivated, deleted]) await requestReset(emailOf(account));
      const [, forDeactivated] = await smtp.waitFor(emailOf(deactivated), 2);
      const [, forDeleted] = await smtp.waitFor(emailOf(deleted), 2);
      await api()
        .put(`/api/v1/users/${deactivated.id}`)
        .auth(admin.token, { type: 'bearer' })
        .send({ is_active: false })
        .expect(200);
      await api().delete(`/api/v1/users/${deleted.id}`).auth(admin.token, { type: 'bearer' }).expect(200);
      const hashes = () =>
        t.dataSource.query('SELECT id, password_hash FROM users WHERE id IN (?, ?) ORDER BY id', [
          deactivated.id,
          deleted.id,
        ]);
      const before = await hashes();
      for (const mail of [forDeactivated, forDeleted]) {
        const refused = await api()
          .post('/api/v1/auth/password-reset/confirm')
          .send({ token: tokenOf(mail), password: 'brand-new-password' })
          .expect(400);
        expect(refused.body.data).toEqual(INVALID_TOKEN);
      }
      expect(await hashes()).toEqual(before);
      // Asking again for a deactivated account sends nothing.
      await requestReset(emailOf(deactivated));
      await sleep(1500);
      expect(smtp.to(emailOf(deactivated))).toHaveLength(2);
    });

    it("checks the new password with registration's rules, and keeps the token for a correct try", async () => {
      const { account } = await registered();
      await requestReset(emailOf(account));
      const [, mail] = await smtp.waitFor(emailOf(account), 2);
      const short = await api()
        .post('/api/v1/auth/password-reset/confirm')
        .send({ token: tokenOf(mail), password: 'short' })
        .expect(400);
      expect(short.body.data.errors).toEqual([
        { field: 'password', rule: 'minLength', message: expect.stringContaining('password') },
      ]);
      expect(await tokenRows(account.id)).toContainEqual({
        purpose: 'password_reset',
        token_hash: sha256(tokenOf(mail)),
      });
      const badEmail = await api()
        .post('/api/v1/auth/password-reset')
        .send({ email: 'not-an-address' })
        .expect(400);
      expect(badEmail.body.data.errors[0]).toMatchObject({ field: 'email', rule: 'isEmail' });
      await api()
        .post('/api/v1/auth/password-reset/confirm')
        .send({ token: tokenOf(mail), password: 'long-enough-now' })
        .expect(200);
    });
  });

  describe('orders', () => {
    it('sends the order confirmation with items, quantities, prices and total, then the payment receipt', async () => {
      const { account } = await registered();
      const cup = await createProduct(t, admin.token, { name: 'Espresso <cup>', price: 19.99, stock: 10 });
      const saucer = await createProduct(t, admin.token, { name: 'Saucer', price: 5, stock: 10 });
      const order = (
        await placeOrder(t, account.token, [
          [cup.id, 3],
          [saucer.id, 1],
        ]).expect(201)
      ).body.data;

      const [, confirmation] = await smtp.waitFor(emailOf(account), 2);
      expect(confirmation.to).toEqual([emailOf(account)]);
      expect(confirmation.subject).toBe(`Your order ${order.order_number}`);
      expect(confirmation.text).toContain('- Espresso <cup>: 3 × $19.99 = $59.97');
      expect(confirmation.text).toContain('- Saucer: 1 × $5.00 = $5.00');
      expect(confirmation.text).toContain('Total: $64.97');
      expect(confirmation.html).toContain('<td>Espresso &lt;cup&gt;</td>');
      expect(confirmation.html).not.toContain('<cup>');

      await api()
        .patch(`/api/v1/orders/${order.id}/status`)
        .auth(admin.token, { type: 'bearer' })
        .send({ status: 'paid', payment_status: 'paid' })
        .expect(200);
      const [, , receipt] = await smtp.waitFor(emailOf(account), 3);
      expect(receipt.to).toEqual([emailOf(account)]);
      expect(receipt.subject).toBe(`Payment received for order ${order.order_number}`);
      expect(receipt.text).toContain(`your payment of $64.97 (credit_card) for order ${order.order_number}`);
    });

    it("a guest's order from a cart: the confirmation goes to the e-mail given at checkout, shipping in the total", async () => {
      const product = await createProduct(t, admin.token, { name: 'Teapot', price: 12.5, stock: 10 });
      const cart = (await api().post('/api/v1/carts').expect(201)).body.data;
      const withToken = (req: request.Test) => req.set('X-Cart-Token', cart.cart_token);
      await withToken(api().post(`/api/v1/carts/${cart.id}/items`))
        .send({ product_id: product.id, quantity: 2 })
        .expect(201);
      await withToken(api().put(`/api/v1/carts/${cart.id}`))
        .send({
          shipping_address: { name: 'Guest Buyer', line1: '1 Main St', city: 'Springfield', country: 'US' },
        })
        .expect(200);
      const guest = `guest-${randomBytes(4).toString('hex')}@example.com`;
      const order = (
        await withToken(api().post(`/api/v1/carts/${cart.id}/checkout`))
          .send({ payment_method: 'credit_card', email: guest })
          .expect(201)
      ).body.data;
      const [confirmation] = await smtp.waitFor(guest);
      expect(confirmation.to).toEqual([guest]);
      expect(confirmation.subject).toBe(`Your order ${order.order_number}`);
      expect(confirmation.text).toContain('Hello Guest Buyer,');
      expect(confirmation.text).toContain('- Teapot: 2 × $12.50 = $25.00');
      expect(confirmation.text).toContain('Total: $25.00');
    });
  });
});

describe('REQUIRE_VERIFIED_EMAIL=true', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;

  beforeAll(async () => {
    smtp = await TestSmtpServer.create();
    t = await startTestApp({ SMTP_URL: smtp.url, REQUIRE_VERIFIED_EMAIL: 'true' });
  });

  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  it('refuses login with 403 until the address is verified, then lets it in', async () => {
    const body = { username: 'unverified_1', email: 'unverified_1@example.com', password: 'password-123' };
    await request(t.url).post('/api/v1/register').send(body).expect(201);
    const refused = await request(t.url)
      .post('/api/v1/login')
      .send({ username: body.username, password: body.password })
      .expect(403);
    expect(refused.body.data.details).toBe(
      'E-mail address not verified: open the link of the verification e-mail, or ask for a new one at ' +
        'POST /auth/verify-email/resend',
    );
    // A wrong password is still the ordinary 401: the 403 tells nothing to someone without the password.
    await request(t.url)
      .post('/api/v1/login')
      .send({ username: body.username, password: 'wrong-password' })
      .expect(401);
    const sessions = await t.dataSource.query('SELECT COUNT(*) AS n FROM sessions');
    expect(Number(sessions[0].n)).toBe(0);

    const [mail] = await smtp.waitFor(body.email);
    await request(t.url)
      .post('/api/v1/auth/verify-email')
      .send({ token: tokenOf(mail) })
      .expect(200);
    const res = await request(t.url)
      .post('/api/v1/login')
      .send({ username: body.username, password: body.password })
      .expect(200);
    expect(res.body.data.user.email_verified).toBe(true);
  });
});

// On the database queue always; on BullMQ too when TEST_REDIS_URL names a Redis server.
const queues: Array<[string, Record<string, string>]> = [['the jobs table', {}]];
if (process.env.TEST_REDIS_URL) {
  queues.push([
    'BullMQ',
    {
      REDIS_URL: process.env.TEST_REDIS_URL,
      REDIS_KEY_PREFIX: `mail-test-${randomBytes(4).toString('hex')}:`,
    },
  ]);
}

describe.each(queues)('SMTP relay down, then up (queue: %s)', (_queue, queueEnv) => {
  let smtp: TestSmtpServer;
  let t: TestApp;

  beforeAll(async () => {
    smtp = await TestSmtpServer.create({ listening: false });
    t = await startTestApp({
      ...queueEnv,
      SMTP_URL: smtp.url,
      MAIL_RETRY_BACKOFF_MS: '300',
      MAIL_SEND_ATTEMPTS: '10',
      JOBS_POLL_INTERVAL_MS: '100',
    });
  });

  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
    if (queueEnv.REDIS_URL !== undefined) {
      const redis = new Redis(queueEnv.REDIS_URL);
      const keys = await redis.keys(`${queueEnv.REDIS_KEY_PREFIX}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    }
  });

  it('retries the e-mail with backoff and delivers it once the relay answers; its token works', async () => {
    const account = await createAccount(t);
    const email = `${account.username}@example.com`;
    await request(t.url).post('/api/v1/auth/password-reset').send({ email }).expect(200);
    await sleep(2500); // the relay stays down: the reset job starts after 1 s, then fails at 0, 300, 900 ms…
    expect(smtp.received).toHaveLength(0);
    // A busy machine may not have run an attempt yet: the failure is counted once one has.
    const failures = async () =>
      (await scrape(t.url)).value('commerce_job_failures_total', { name: 'mail.send', final: 'false' }) ?? 0;
    await eventually(async () => (await failures()) > 0, { ms: 20_000 });

    await smtp.start();
    const mails = await smtp.waitFor(email, 2, 20_000); // the verification and the reset, each retried
    const reset = mails.find((mail) => mail.subject === 'Reset your password')!;
    expect(mails.map((mail) => mail.subject).sort()).toEqual([
      'Confirm your e-mail address',
      'Reset your password',
    ]);
    await request(t.url)
      .post('/api/v1/auth/password-reset/confirm')
      .send({ token: tokenOf(reset), password: 'brand-new-password' })
      .expect(200);
    await login(t, account.username, 'brand-new-password');
  });
});

describe('the mail rate-limit bucket', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ THROTTLE_MAIL_LIMIT: '2', LOG_LEVEL: 'silent' });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('counts password reset and verification requests together, apart from the auth bucket', async () => {
    const send = (path: string) =>
      request(t.url).post(`/api/v1/auth/${path}`).send({ email: 'someone@example.com' });
    const first = await send('password-reset').expect(200);
    expect(first.headers['x-ratelimit-limit']).toBe('2');
    await send('verify-email/resend').expect(200);
    const refused = await send('password-reset').expect(429);
    expect(refused.headers['retry-after']).toBeDefined();
    expect(refused.body.data.details).toMatch(/^Too many requests: at most 2 per 60 s/);
    // The auth bucket is another count.
    const otherBucket = await request(t.url)
      .post('/api/v1/login')
      .send({ username: 'nobody', password: 'x' });
    expect(otherBucket.status).toBe(401);
  });
});

describe('accounts from before e-mail verification', () => {
  let database: { url: string; drop(): Promise<void> };
  let t: TestApp;

  beforeAll(async () => {
    // The schema as it was just before the migration that adds email_verified, with one account in it.
    database = await createTestDatabase();
    const options = await buildDataSourceOptions(loadConfig({ DATABASE_URL: database.url }));
    const before = migrations.slice(0, migrations.indexOf(CreateAccountTokens1763801300000));
    const old = new DataSource({ ...options, migrations: before } as DataSourceOptions);
    await old.initialize();
    await old.runMigrations();
    const hash = await new PasswordHasher().hash('password-123');
    await old.query(
      "INSERT INTO users (username, email, password_hash) VALUES ('old_timer', 'old@example.com', ?)",
      [hash],
    );
    await old.destroy();
    t = await startTestApp({ DATABASE_URL: database.url, REQUIRE_VERIFIED_EMAIL: 'true' });
  });

  afterAll(async () => {
    await t?.close();
    await database?.drop();
  });

  it('count as verified after the migration, so REQUIRE_VERIFIED_EMAIL=true still lets them in', async () => {
    const res = await request(t.url)
      .post('/api/v1/login')
      .send({ username: 'old_timer', password: 'password-123' })
      .expect(200);
    expect(res.body.data.user.email_verified).toBe(true);
    const [row] = await t.dataSource.query("SELECT email_verified FROM users WHERE username = 'old_timer'");
    expect(Boolean(row.email_verified)).toBe(true);
  });
});
