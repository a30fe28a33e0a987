import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXIT_GRACE_MS } from '../src/lifecycle/exit-watchdog.js';
import { createAccount } from './support/accounts.js';
import { type AppProcess, buildService, freePort, startAppProcess } from './support/app-process.js';
import { eventually } from './support/eventually.js';
import { RedisProcess } from './support/redis-server.js';
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

describe('shutdown: drain, then stop', () => {
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

/** The exit status, or null when the process is still running `ms` after `since`. */
async function exitWithin(app: AppProcess, since: number, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>(
    (resolve) => (timer = setTimeout(() => resolve(null), since + ms - Date.now())),
  );
  const exited = await Promise.race([app.exited, late]);
  clearTimeout(timer);
  return exited === null ? null : { ...exited, afterMs: Date.now() - since };
}

/** Whether a thread of process `pid` is blocked opening a FIFO (Linux: the kernel function it sleeps in). */
function waitingInFifoOpen(pid: number): boolean {
  return readdirSync(`/proc/${pid}/task`).some((task) => {
    try {
      return readFileSync(`/proc/${pid}/task/${task}/wchan`, 'utf8') === 'wait_for_partner';
    } catch {
      return false; // the thread has ended
    }
  });
}

/** A TCP server that takes connections and never answers: an SMTP relay that has stopped. */
async function silentServer() {
  const sockets: Socket[] = [];
  let connected: () => void = () => undefined;
  const firstConnection = new Promise<void>((resolve) => (connected = resolve));
  const server = createServer((socket) => {
    sockets.push(socket);
    connected();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`,
    firstConnection,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

/**
 * SHUTDOWN_TIMEOUT_MS bounds the shutdown, whatever does not end: the sequence's own deadline names what it was
 * waiting for and exits 1, and when the exit itself cannot complete (Node joins its threads first) the exit
 * watchdog kills the process EXIT_GRACE_MS later.
 */
describe('shutdown: a step that does not end', () => {
  const TIMEOUT_MS = 3000;
  const env = () => ({
    DATABASE_URL: databaseUrl,
    JWT_SECRET: 'shutdown-test-secret-shutdown-test-secret',
    SHUTDOWN_DRAIN_MS: '0',
    SHUTDOWN_TIMEOUT_MS: String(TIMEOUT_MS),
    LOG_LEVEL: 'log',
  });

  it('a job still running at SHUTDOWN_TIMEOUT_MS: exit 1 at the deadline, the log names the job queue waiting for it', async () => {
    // The verification e-mail of a registration is a job; the relay never answers, so the job runs on.
    const smtp = await silentServer();
    const app = await startAppProcess({ ...env(), SMTP_URL: smtp.url });
    try {
      await createAccount(app);
      await smtp.firstConnection;
      const signalledAt = Date.now();
      process.kill(app.pid, 'SIGTERM');

      const exited = await exitWithin(app, signalledAt, TIMEOUT_MS + EXIT_GRACE_MS);
      expect(exited).toEqual({ code: 1, signal: null, afterMs: expect.any(Number) });
      expect(exited!.afterMs).toBeGreaterThanOrEqual(TIMEOUT_MS);
      expect(app.output()).toContain(
        `Shutdown did not finish within SHUTDOWN_TIMEOUT_MS (${TIMEOUT_MS} ms), ` +
          'waiting for DatabaseJobQueue.beforeApplicationShutdown',
      );
      expect(app.output()).not.toContain('killed with SIGKILL');
    } finally {
      if ((await exitWithin(app, Date.now(), 0)) === null) process.kill(app.pid, 'SIGKILL');
      smtp.close();
    }
  }, 120_000);

  (process.env.TEST_REDIS_URL ? it : it.skip)(
    'with BullMQ and its Redis frozen (SIGSTOP): exit 1 at the deadline, the log names the job queue',
    async () => {
      const smtp = await silentServer();
      const redis = new RedisProcess(await freePort());
      await redis.start();
      const app = await startAppProcess({ ...env(), SMTP_URL: smtp.url, REDIS_URL: redis.url });
      try {
        await createAccount(app);
        await smtp.firstConnection;
        redis.signal('SIGSTOP');
        const signalledAt = Date.now();
        process.kill(app.pid, 'SIGTERM');

        const exited = await exitWithin(app, signalledAt, TIMEOUT_MS + EXIT_GRACE_MS);
        expect(exited).toEqual({ code: 1, signal: null, afterMs: expect.any(Number) });
        expect(app.output()).toContain(
          `Shutdown did not finish within SHUTDOWN_TIMEOUT_MS (${TIMEOUT_MS} ms), ` +
            'waiting for BullJobQueue.beforeApplicationShutdown',
        );
      } finally {
        if ((await exitWithin(app, Date.now(), 0)) === null) process.kill(app.pid, 'SIGKILL');
        redis.signal('SIGCONT');
        await redis.remove();
        smtp.close();
      }
    },
    120_000,
  );

  it('a thread that holds the exit (a file read that never returns): killed EXIT_GRACE_MS after the deadline', async () => {
    // A FIFO at an upload's path: opening it blocks a thread of libuv's pool until a writer comes, as a read on a
    // network mount that stopped answering does. process.exit() waits for that thread.
    const uploads = mkdtempSync(join(tmpdir(), 'commerce-shutdown-'));
    const path = '2026/01/0123456789abcdef0123456789abcdef.png';
    mkdirSync(join(uploads, '2026/01'), { recursive: true });
    execFileSync('mkfifo', [join(uploads, path)]);
    const app = await startAppProcess({ ...env(), UPLOAD_DIR: uploads });
    try {
      const read = send(`${app.url}/api/v1/uploads/${path}`);
      await eventually(() => waitingInFifoOpen(app.pid), { ms: 30_000 });
      const signalledAt = Date.now();
      process.kill(app.pid, 'SIGTERM');

      const exited = await exitWithin(app, signalledAt, TIMEOUT_MS + EXIT_GRACE_MS + 5000);
      expect(exited).toEqual({ code: null, signal: 'SIGKILL', afterMs: expect.any(Number) });
      expect(exited!.afterMs).toBeGreaterThanOrEqual(TIMEOUT_MS + EXIT_GRACE_MS);
      expect(app.output()).toContain(
        `Shutdown did not finish within SHUTDOWN_TIMEOUT_MS (${TIMEOUT_MS} ms), ` +
          'waiting for 1 HTTP requests on 1 connections, now cut',
      );
      expect(app.output()).toContain(
        `The process did not end within ${TIMEOUT_MS + EXIT_GRACE_MS} ms of SIGTERM ` +
          `(SHUTDOWN_DRAIN_MS + SHUTDOWN_TIMEOUT_MS + ${EXIT_GRACE_MS} ms): killed with SIGKILL`,
      );
      expect((await read).error).toBe('ECONNRESET');
    } finally {
      if ((await exitWithin(app, Date.now(), 0)) === null) process.kill(app.pid, 'SIGKILL');
      rmSync(uploads, { recursive: true, force: true });
    }
  }, 120_000);
});
