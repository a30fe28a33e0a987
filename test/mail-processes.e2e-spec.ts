import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { ADMIN_ENV, createAccount, loginAdmin } from './support/accounts.js';
import { buildService, startAppProcess, type AppProcess } from './support/app-process.js';
import { placeOrder } from './support/orders.js';
import { createProduct } from './support/products.js';
import { TestSmtpServer } from './support/smtp-server.js';
import { createTestDatabase } from './support/test-app.js';

const REDIS_URL = process.env.TEST_REDIS_URL;
const prefix = `mail-crash:${randomBytes(6).toString('hex')}:`;

/** The service as an OS process killed right after an order's commit, while the SMTP relay is down. */
describe('order confirmation across a crash', () => {
  let smtp: TestSmtpServer;
  let databaseUrl: string;
  let dropDatabase: () => Promise<void>;
  const processes: AppProcess[] = [];
  const start = async () => {
    const instance = await startAppProcess({
      ...ADMIN_ENV,
      DATABASE_URL: databaseUrl,
      JWT_SECRET: 'mail-crash-test-secret-shared-by-instances',
      THROTTLE_LIMIT: '100000',
      THROTTLE_AUTH_LIMIT: '100000',
      SMTP_URL: smtp.url,
      MAIL_RETRY_BACKOFF_MS: '200',
      MAIL_SEND_ATTEMPTS: '20',
      // A claimed event or job of the killed process is taken over after 2 s.
      OUTBOX_REDISPATCH_AFTER: '2',
      OUTBOX_SWEEP_INTERVAL: '1',
      JOBS_LEASE_MS: '2000',
      JOBS_POLL_INTERVAL_MS: '100',
      // With TEST_REDIS_URL the jobs run on BullMQ instead of the jobs table.
      ...(REDIS_URL === undefined ? {} : { REDIS_URL, REDIS_KEY_PREFIX: prefix }),
    });
    processes.push(instance);
    return instance;
  };

  beforeAll(async () => {
    buildService();
    smtp = await TestSmtpServer.create({ listening: false });
    const database = await createTestDatabase();
    databaseUrl = database.url;
    dropDatabase = database.drop;
  }, 120_000);

  afterAll(async () => {
    await Promise.all(processes.map((instance) => instance.stop()));
    await dropDatabase?.();
    await smtp?.stop();
    if (REDIS_URL !== undefined) {
      const redis = new Redis(REDIS_URL);
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    }
  });

  it('a process killed (SIGKILL) right after the 201, relay down: the confirmation arrives after restart, once', async () => {
    const crashing = await start();
    const admin = await loginAdmin(crashing);
    const buyer = await createAccount(crashing);
    const email = `${buyer.username}@example.com`;
    const product = await createProduct(crashing, admin.token, { name: 'Teapot', price: 24.5, stock: 5 });

    const placed = await placeOrder(crashing, buyer.token, [[product.id, 2]]).expect(201);
    process.kill(crashing.pid, 'SIGKILL');
    expect(await crashing.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(smtp.received).toHaveLength(0); // the relay was down: nothing could have left

    await start();
    await smtp.start();
    // The registration's verification e-mail and the order confirmation, each exactly once.
    const mails = await smtp.waitFor(email, 2, 30_000);
    const order = placed.body.data.order_number;
    expect(mails.map((mail) => mail.subject).sort()).toEqual([
      'Confirm your e-mail address',
      `Your order ${order}`,
    ]);
    const confirmation = mails.find((mail) => mail.subject === `Your order ${order}`)!;
    expect(confirmation.text).toContain('- Teapot: 2 × $24.50 = $49.00');
    expect(confirmation.text).toContain('Total: $49.00');
    // The event may be dispatched twice (before the crash and by the sweep): its e-mail job is keyed by its id.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(smtp.to(email)).toHaveLength(2);
  });
});
