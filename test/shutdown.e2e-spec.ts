import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Agent, request as httpRequest } from 'node:http';
import { createAccount } from './support/accounts.js';
import { buildService, startAppProcess } from './support/app-process.js';
import { createTestDatabase } from './support/test-app.js';
import { TestSocket } from './support/ws-client.js';

// The default drain: long enough for the checks below even when the machine is very busy.
const DRAIN_MS = 8000;

interface Answer {
  status?: number;
  connection?: string;
  body?: { code?: number; message?: string; data?: unknown };
  error?: string;
}

/** One HTTP request; `agent: false` opens a new connection for it. Never throws: errors are answers. */
function send(
  url: string,
  options: { method?: string; body?: object; token?: string; agent?: Agent | false } = {},
): Promise<Answer> {
  return new Promise((resolve) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = httpRequest(
      url,
      {
        method: options.method ?? 'GET',
        agent: options.agent ?? false,
        headers: {
          ...(payload === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...(options.token === undefined ? {} : { Authorization: `Bearer ${options.token}` }),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
        res.on('end', () => {
          let body: Answer['body'];
          try {
            body = JSON.parse(text) as Answer['body'];
          } catch {
            resolve({ status: res.statusCode, error: `incomplete body: ${text.slice(0, 80)}` });
            return;
          }
          resolve({ status: res.statusCode, connection: res.headers.connection, body });
        });
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    req.end(payload);
  });
}

const countBy = (answers: Answer[], key: (answer: Answer) => string) =>
  answers.reduce<Record<string, number>>((counts, answer) => {
    counts[key(answer)] = (counts[key(answer)] ?? 0) + 1;
    return counts;
  }, {});

/**
 * The built service as a real process under load, stopped with SIGTERM: it drains (readiness 500,
 * still serving, `Connection: close`), stops accepting, finishes what it accepted, closes WebSockets
 * with 1001 and exits 0.
 */
describe('shutdown: drain, then stop', () => {
  let dropDatabase: () => Promise<void>;
  let databaseUrl: string;

  beforeAll(async () => {
    buildService();
    const database = await createTestDatabase();
    databaseUrl = database.url;
    dropDatabase = database.drop;
  }, 120_000);

  afterAll(async () => {
    await dropDatabase?.();
  });

  it('answers all 300 requests on new connections across SIGTERM with complete envelopes and exits 0', async () => {
    const app = await startAppProcess({
      DATABASE_URL: databaseUrl,
      JWT_SECRET: 'shutdown-test-secret-shutdown-test-secret',
      THROTTLE_LIMIT: '100000',
      THROTTLE_AUTH_LIMIT: '100000',
      SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
      SHUTDOWN_TIMEOUT_MS: '45000',
      // 300 requests at once queue for pooled MySQL connections, on a busy machine beyond the 5 s default.
      DATABASE_ACQUIRE_TIMEOUT_MS: '30000',
      LOG_LEVEL: 'log',
    });
    const account = await createAccount(app, { password: 'password-123' });
    const socket = await TestSocket.authenticated(app, account.token);
    const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
    const before = await send(`${app.url}/api/v1/health/ready`, { agent: keepAlive });
    expect(before).toMatchObject({ status: 200, connection: 'keep-alive' });

    // A third of the requests are logins (a memory-hard hash each), so some are still in flight
    // when the listener closes; the others read the catalogue.
    const fire = (count: number) =>
      Array.from({ length: count }, (_, i) =>
        i % 3 === 0
          ? send(`${app.url}/api/v1/login`, {
              method: 'POST',
              body: { username: account.username, password: 'password-123' },
            })
          : send(`${app.url}/api/v1/products?page_size=5`, { token: account.token }),
      );

    const firstHalf = fire(150);
    let answered = 0;
    await new Promise<void>((resolve) => {
      for (const answer of firstHalf) void answer.then(() => ++answered === 50 && resolve());
    });
    const signalledAt = Date.now();
    process.kill(app.pid, 'SIGTERM');

    // Once the signal is handled (at once, unless the machine is very busy): readiness fails, keep-alive
    // responses say `Connection: close`, and new connections are still served.
    let draining: Answer;
    do {
      draining = await send(`${app.url}/api/v1/health/ready`);
    } while (draining.status === 200 && Date.now() - signalledAt < DRAIN_MS);
    expect(draining).toMatchObject({
      status: 500,
      connection: 'close',
      body: { code: 500, message: 'Internal Server Error', data: { details: 'Not ready: draining' } },
    });
    const onKeptAlive = await send(`${app.url}/api/v1/health/live`, { agent: keepAlive });
    expect(onKeptAlive).toMatchObject({ status: 200, connection: 'close', body: { code: 200 } });
    const secondHalf = fire(150);

    const answers = await Promise.all([...firstHalf, ...secondHalf]);
    const outcomes = countBy(answers, (answer) => answer.error ?? `${answer.status} ${answer.body?.code}`);
    expect(outcomes).toEqual({ '200 200': 300 });

    // After the drain the listener is closed: a new connection is refused, not reset. (A connection that
    // reaches the kernel in the very instant of the close is reset by the kernel, so the probe waits for it.)
    while (!app.output().includes('Stopped accepting connections') && Date.now() - signalledAt < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(Date.now() - signalledAt).toBeGreaterThanOrEqual(DRAIN_MS);
    const refused = await send(`${app.url}/api/v1/health/live`);
    expect(refused.error).toBe('ECONNREFUSED');

    expect(await socket.closed).toEqual({ code: 1001, reason: 'Server shutting down' });
    expect(await app.exited).toEqual({ code: 0, signal: null });
    expect(app.output()).toContain(`SIGTERM received: readiness fails, serving for ${DRAIN_MS} ms more`);
    expect(app.output()).toContain('Shutdown complete');
    keepAlive.destroy();
  }, 120_000);
});
