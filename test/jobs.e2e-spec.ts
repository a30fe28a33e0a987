import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import type { Env } from '../src/config/app-config.js';
import { JobContext, JobQueue } from '../src/jobs/job-queue.js';
import { buildService, mainScript } from './support/app-process.js';
import { scrape } from './support/metrics.js';
import { startTestApp, type TestApp } from './support/test-app.js';

declare module '../src/jobs/job-queue.js' {
  interface Jobs {
    'test.echo': { text: string; n: number };
    'test.fail': { n: number };
    'test.dedup': { n: number };
    'test.delay': { n: number };
    'test.hang': { n: number };
  }
}

const REDIS_URL = process.env.TEST_REDIS_URL;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(25);
  }
}

interface StoredJob {
  state: 'waiting' | 'delayed' | 'active' | 'completed' | 'failed';
  attempts: number;
  error: string | null;
}

/** One queue back end under test: its settings and how to read a job's stored state. */
interface Backend {
  env: Env;
  stored(t: TestApp, name: string, jobId: string): Promise<StoredJob | null>;
  /** Rows (database) or jobs (Redis) kept for a job name. */
  count(t: TestApp, name: string): Promise<number>;
  close(): Promise<void>;
}

function databaseBackend(): Backend {
  return {
    env: {},
    async stored(t, name, jobId) {
      const [row] = await t.dataSource.query(
        'SELECT state, attempts_made, last_error, run_at FROM jobs WHERE name = ? AND job_key = ?',
        [name, jobId],
      );
      if (row === undefined) return null;
      const runAt =
        typeof row.run_at === 'string' ? new Date(`${row.run_at.replace(' ', 'T')}Z`) : (row.run_at as Date);
      const state =
        row.state === 'done'
          ? 'completed'
          : row.state === 'waiting' && runAt.getTime() > Date.now()
            ? 'delayed'
            : row.state;
      return { state, attempts: Number(row.attempts_made), error: row.last_error };
    },
    async count(t, name) {
      const [row] = await t.dataSource.query('SELECT COUNT(*) AS n FROM jobs WHERE name = ?', [name]);
      return Number(row.n);
    },
    close: async () => undefined,
  };
}

function bullBackend(redisUrl: string): Backend {
  const prefix = `test:${randomBytes(6).toString('hex')}:`;
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queues = new Map<string, Queue>();
  const queue = (name: string) => {
    if (!queues.has(name)) queues.set(name, new Queue(name, { connection: redis, prefix: `${prefix}bull` }));
    return queues.get(name)!;
  };
  return {
    env: { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix },
    async stored(_t, name, jobId) {
      const job = await queue(name).getJob(`id-${encodeURIComponent(jobId)}`);
      if (job === undefined) return null;
      const state = (await job.getState()) as StoredJob['state'];
      return { state, attempts: job.attemptsStarted, error: job.failedReason ?? null };
    },
    async count(_t, name) {
      const counts = await queue(name).getJobCounts();
      return Object.values(counts).reduce((sum, n) => sum + n, 0);
    },
    async close() {
      await Promise.all([...queues.values()].map((q) => q.close()));
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    },
  };
}

const backends: Array<[string, () => Backend]> = [
  ['the jobs table (no REDIS_URL)', databaseBackend],
  ...(REDIS_URL === undefined
    ? []
    : [['BullMQ (REDIS_URL)', () => bullBackend(REDIS_URL)] as [string, () => Backend]]),
];

describe.each(backends)('job queue on %s', (_name, make) => {
  let backend: Backend;
  let t: TestApp;
  let jobs: JobQueue;

  beforeAll(async () => {
    backend = make();
    t = await startTestApp({ ...backend.env, JOBS_POLL_INTERVAL_MS: '50', JOBS_LEASE_MS: '1000' });
    jobs = t.app.get(JobQueue);
  });

  afterAll(async () => {
    await t.close();
    await backend.close();
  });

  it('runs a job once with its data, its jobId and attempt 1, and keeps it as completed', async () => {
    const runs: Array<{ data: unknown; job: JobContext }> = [];
    jobs.handle('test.echo', async (data, job) => {
      runs.push({ data, job });
    });
    await jobs.add('test.echo', { text: 'héllo', n: 42 }, { jobId: 'echo:1' });
    await waitFor(() => runs.length === 1);
    expect(runs).toEqual([{ data: { text: 'héllo', n: 42 }, job: { id: 'echo:1', attempt: 1 } }]);
    await waitFor(async () => (await backend.stored(t, 'test.echo', 'echo:1'))?.state === 'completed');
    expect(await backend.stored(t, 'test.echo', 'echo:1')).toEqual({
      state: 'completed',
      attempts: 1,
      error: null,
    });
    const metrics = await scrape(t.url);
    expect(
      metrics.value('commerce_job_duration_seconds_count', { name: 'test.echo', result: 'succeeded' }),
    ).toBe(1);
  });

  it('retries a failing job with exponential backoff (300 ms, then 600 ms), then keeps it as failed', async () => {
    const attempts: Array<{ at: number; attempt: number }> = [];
    jobs.handle('test.fail', async (_data, job) => {
      attempts.push({ at: Date.now(), attempt: job.attempt });
      throw new Error(`refused on attempt ${job.attempt}`);
    });
    await jobs.add('test.fail', { n: 1 }, { jobId: 'fail-1', attempts: 3, backoffMs: 300 });
    await waitFor(async () => (await backend.stored(t, 'test.fail', 'fail-1'))?.state === 'failed');
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    const [first, second, third] = attempts.map((a) => a.at);
    expect(second - first).toBeGreaterThanOrEqual(300);
    expect(second - first).toBeLessThan(300 + 1000);
    expect(third - second).toBeGreaterThanOrEqual(600);
    expect(third - second).toBeLessThan(600 + 1000);
    expect(await backend.stored(t, 'test.fail', 'fail-1')).toEqual({
      state: 'failed',
      attempts: 3,
      error: 'refused on attempt 3',
    });
    // No fourth run.
    await sleep(1500);
    expect(attempts).toHaveLength(3);
    const metrics = await scrape(t.url);
    expect(metrics.value('commerce_job_failures_total', { name: 'test.fail', final: 'false' })).toBe(2);
    expect(metrics.value('commerce_job_failures_total', { name: 'test.fail', final: 'true' })).toBe(1);
    expect(metrics.value('commerce_jobs', { name: 'test.fail', state: 'failed' })).toBe(1);
  });

  it('adds a job given the same jobId once, however often and concurrently it is added', async () => {
    const runs: number[] = [];
    jobs.handle('test.dedup', async (data) => {
      runs.push(data.n);
    });
    await Promise.all([1, 2, 3, 4, 5].map((n) => jobs.add('test.dedup', { n }, { jobId: 'order-7:paid' })));
    await waitFor(() => runs.length === 1);
    await jobs.add('test.dedup', { n: 6 }, { jobId: 'order-7:paid' }); // after the run: still known
    await jobs.add('test.dedup', { n: 7 }, { jobId: 'order-8:paid' });
    await waitFor(() => runs.length === 2);
    await sleep(500);
    expect(runs).toHaveLength(2);
    expect(runs[1]).toBe(7);
    expect(await backend.count(t, 'test.dedup')).toBe(2);
  });

  it('runs a delayed job no earlier than its delay, and reports it as delayed until then', async () => {
    const runs: number[] = [];
    jobs.handle('test.delay', async () => {
      runs.push(Date.now());
    });
    const added = Date.now();
    await jobs.add('test.delay', { n: 1 }, { jobId: 'delay-1', delayMs: 1500 });
    expect((await backend.stored(t, 'test.delay', 'delay-1'))?.state).toBe('delayed');
    expect((await scrape(t.url)).value('commerce_jobs', { name: 'test.delay', state: 'delayed' })).toBe(1);
    await waitFor(() => runs.length === 1);
    expect(runs[0] - added).toBeGreaterThanOrEqual(1500);
    expect(runs[0] - added).toBeLessThan(1500 + 1500);
    await waitFor(async () => (await backend.stored(t, 'test.delay', 'delay-1'))?.state === 'completed');
  });

  it('runs a scheduled job once per tick across two instances sharing the database and Redis', async () => {
    const second = await startTestApp({
      ...backend.env,
      JOBS_POLL_INTERVAL_MS: '50',
      DATABASE_URL: t.databaseUrl,
    });
    try {
      const ticks: Array<{ at: number; instance: string }> = [];
      const everyMs = 500;
      const began = Date.now();
      for (const [instance, app] of [
        ['first', t],
        ['second', second],
      ] as const) {
        app.app.get(JobQueue).schedule('test.tick', everyMs, async () => {
          ticks.push({ at: Date.now(), instance });
          await sleep(50);
        });
      }
      // Eight ticks: 4 s unless a busy machine delays them (a late tick is not made up for).
      await waitFor(() => ticks.length >= 8, 60_000);
      const elapsed = Date.now() - began;
      const times = ticks.map((tick) => tick.at).sort((x, y) => x - y);
      // One run per tick: never more runs than ticks, and no two runs together (two instances running one tick
      // would start within milliseconds; ticks are an interval apart, give or take the pick-up delay of a worker).
      expect(times.length).toBeLessThanOrEqual(Math.ceil(elapsed / everyMs) + 1);
      for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThan(everyMs / 2);
    } finally {
      await second.app.close();
    }
  });

  describe('an instance killed while it runs a job (its own process)', () => {
    let worker: ChildProcess | undefined;

    beforeAll(() => buildService(), 120_000);

    afterAll(() => {
      worker?.kill('SIGKILL');
    });

    it('the job runs again elsewhere once the lease of the dead instance lapses, as its next attempt', async () => {
      let output = '';
      worker = spawn(process.execPath, [join(__dirname, 'support/job-worker-process.mjs')], {
        env: {
          PATH: process.env.PATH,
          TZ: 'UTC',
          BUILD_DIR: dirname(dirname(mainScript())),
          JOB_NAME: 'test.hang',
          APP_ENV: JSON.stringify({
            ...backend.env,
            NODE_ENV: 'test',
            LOG_LEVEL: 'error',
            JWT_SECRET: 'test-secret-test-secret-test-secret-0123',
            DATABASE_URL: t.databaseUrl,
            UPLOAD_DIR: t.config.upload.dir,
            JOBS_POLL_INTERVAL_MS: '50',
            JOBS_LEASE_MS: '1000',
          }),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      worker.stdout!.on('data', (chunk) => (output += chunk));
      worker.stderr!.on('data', (chunk) => (output += chunk));
      await waitFor(() => output.includes('ready'), 60_000);

      await jobs.add('test.hang', { n: 9 }, { jobId: 'hang-1', attempts: 1 });
      await waitFor(() => output.includes('started hang-1 1'));
      expect((await backend.stored(t, 'test.hang', 'hang-1'))?.state).toBe('active');
      const exited = once(worker, 'exit');
      worker.kill('SIGKILL');
      await exited;
      const killedAt = Date.now();

      const runs: Array<{ data: unknown; job: JobContext; at: number }> = [];
      jobs.handle('test.hang', async (data, job) => {
        runs.push({ data, job, at: Date.now() });
      });
      await waitFor(() => runs.length === 1, 20_000);
      expect(runs[0]).toMatchObject({ data: { n: 9 }, job: { id: 'hang-1', attempt: 2 } });
      expect(runs[0].at - killedAt).toBeLessThan(10_000);
      await waitFor(async () => (await backend.stored(t, 'test.hang', 'hang-1'))?.state === 'completed');
      expect(await backend.stored(t, 'test.hang', 'hang-1')).toEqual({
        state: 'completed',
        attempts: 2,
        error: null,
      });
      await sleep(1500);
      expect(runs).toHaveLength(1);
    }, 90_000);
  });
});
