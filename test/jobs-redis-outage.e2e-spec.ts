import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { JobQueue, JobQueueUnavailableError } from '../src/jobs/job-queue.js';
import { freePort } from './support/app-process.js';
import { RedisProcess } from './support/redis-server.js';
import { startTestApp, type TestApp } from './support/test-app.js';

declare module '../src/jobs/job-queue.js' {
  interface Jobs {
    'test.outage': { n: number };
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(25);
  }
}

describe('BullMQ while its Redis is killed and started again', () => {
  let redis: RedisProcess;
  let t: TestApp;
  let jobs: JobQueue;
  const runs: string[] = [];

  beforeAll(async () => {
    redis = new RedisProcess(await freePort());
    await redis.start();
    t = await startTestApp({
      REDIS_URL: `redis://127.0.0.1:${redis.port}`,
      JOBS_ADD_TIMEOUT_MS: '3000',
      JOBS_LEASE_MS: '5000',
    });
    jobs = t.app.get(JobQueue);
    jobs.handle(
      'test.outage',
      async (_data, job) => {
        runs.push(job.id);
      },
      { concurrency: 5 },
    );
  });

  afterAll(async () => {
    await t?.close();
    await redis?.remove();
  });

  it('runs once each job Redis held when it died and each job added while it was down', async () => {
    const before = ['before-1', 'before-2', 'before-3', 'before-4', 'before-5'];
    // Delayed, so that they are still in Redis, not yet run, when it is killed.
    for (const [n, jobId] of before.entries()) await jobs.add('test.outage', { n }, { jobId, delayMs: 3000 });
    await redis.kill();

    const during = ['during-1', 'during-2', 'during-3', 'during-4', 'during-5'];
    const adds = during.map((jobId, n) => jobs.add('test.outage', { n }, { jobId }));
    await sleep(1000);
    expect(runs).toEqual([]);
    await redis.start();
    // Each add waited for Redis (less than JOBS_ADD_TIMEOUT_MS) and resolved once it held the job.
    await Promise.all(adds);

    await waitFor(() => runs.length >= 10);
    await sleep(1500);
    expect([...runs].sort()).toEqual([...before, ...during].sort());
  }, 60_000);

  it('an add fails within JOBS_ADD_TIMEOUT_MS while Redis stays down; the same jobId added again runs once', async () => {
    runs.length = 0;
    await redis.kill();
    const started = Date.now();
    const failure = await jobs.add('test.outage', { n: 1 }, { jobId: 'late-1' }).catch((error) => error);
    const waited = Date.now() - started;
    expect(failure).toBeInstanceOf(JobQueueUnavailableError);
    expect((failure as Error).message).toBe(
      "Redis did not take job 'test.outage' within JOBS_ADD_TIMEOUT_MS (3000 ms)",
    );
    expect(waited).toBeGreaterThanOrEqual(3000);
    // Bounded: the timeout plus what a busy machine adds to a timer (measured 3.0-4.5 s; seconds more on a
    // machine loaded past its cores), never a hang.
    expect(waited).toBeLessThan(3000 + 10_000);
    expect(runs).toEqual([]);

    await redis.start();
    // The caller's retry; the first attempt, still queued on the connection, may land as well.
    await jobs.add('test.outage', { n: 1 }, { jobId: 'late-1' });
    await waitFor(() => runs.length >= 1);
    await sleep(1500);
    expect(runs).toEqual(['late-1']);
  }, 60_000);
});
