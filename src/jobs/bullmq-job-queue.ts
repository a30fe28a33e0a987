import { BeforeApplicationShutdown, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Job, Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { AppConfig } from '../config/app-config.js';
import type { JobCount, Metrics } from '../observability/metrics.js';
import type { RedisConnection } from '../redis/redis-connection.js';
import { measureJobRun } from './job-run.js';
import { JobHandler, JobName, JobOptions, JobQueue, JobQueueUnavailableError, Jobs } from './job-queue.js';

/** How long a scrape of /metrics waits for the queue depths before leaving them out. */
const COUNTS_TIMEOUT_MS = 1000;

/**
 * The job queue on Redis (REDIS_URL): one BullMQ queue per job name, keys under `<REDIS_KEY_PREFIX>bull:<name>:`.
 * Workers start once the application is up and finish their running jobs before the database pool closes;
 * scheduled jobs are BullMQ job schedulers, so each tick is one job that one worker of all instances runs.
 */
export class BullJobQueue extends JobQueue implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('JobQueue');
  private readonly connection: Redis;
  private readonly prefix: string;
  private readonly queues = new Map<string, Queue>();
  private readonly workers: Worker[] = [];
  /** Workers and schedulers registered before the application is up, started by onApplicationBootstrap. */
  private readonly starts: Array<() => void> = [];
  /** Job and schedule names this instance has a worker for. */
  private readonly handled = new Set<string>();
  /** Stores each schedule's job scheduler in Redis (upsert: harmless when it is there already). */
  private readonly schedulers: Array<() => void> = [];
  private started = false;

  constructor(
    redis: RedisConnection,
    private readonly metrics: Metrics,
    private readonly config: AppConfig['jobs'],
  ) {
    super();
    this.connection = redis.createQueueClient();
    this.prefix = `${redis.keyPrefix}bull`;
    metrics.countJobs = () => this.counts();
    // A Redis that comes back without its data (no append-only file, or a new server) has lost the job
    // schedulers, which are otherwise stored only at start-up: the outbox and webhook sweeps would never run again.
    let connectedBefore = false;
    this.connection.on('ready', () => {
      if (connectedBefore) for (const store of this.schedulers) store();
      connectedBefore = true;
    });
  }

  /**
   * Resolves once Redis holds the job; rejects with JobQueueUnavailableError when Redis does not answer within
   * JOBS_ADD_TIMEOUT_MS. The command stays queued on the connection and may still land once Redis is back,
   * so a caller that tries again gives a jobId to add the job once.
   */
  async add<N extends JobName>(name: N, data: Jobs[N], options: JobOptions = {}): Promise<void> {
    const added = this.queue(name).add(name, data, {
      // BullMQ refuses custom ids that are integers or contain ':'; the prefix and the encoding avoid both.
      jobId: options.jobId === undefined ? undefined : `id-${encodeURIComponent(options.jobId)}`,
      delay: options.delayMs,
      attempts: options.attempts ?? 1,
      backoff: options.backoffMs ? { type: 'exponential', delay: options.backoffMs } : undefined,
      removeOnComplete: { age: this.config.retentionSeconds },
      removeOnFail: { age: this.config.retentionSeconds },
    });
    await within(added, this.config.addTimeoutMs, () => {
      throw new JobQueueUnavailableError(
        `Redis did not take job '${name}' within JOBS_ADD_TIMEOUT_MS (${this.config.addTimeoutMs} ms)`,
      );
    });
  }

  handle<N extends JobName>(name: N, handler: JobHandler<N>, options: { concurrency?: number } = {}): void {
    this.claimName(name, `Job '${name}' already has a handler`);
    this.whenStarted(() =>
      this.startWorker(name, options.concurrency ?? 1, async (job) => {
        const attempt = job.attemptsStarted;
        const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
        try {
          await measureJobRun(this.metrics, name, final, () =>
            handler(job.data as Jobs[N], { id: jobIdOf(job), attempt }),
          );
        } catch (error) {
          this.logger.warn({
            msg: 'Job failed',
            job: name,
            id: job.id,
            attempt,
            final,
            error: (error as Error).message,
          });
          throw error;
        }
      }),
    );
  }

  schedule(name: string, everyMs: number, work: () => Promise<void>): void {
    this.claimName(name, `Scheduled job '${name}' is already registered`);
    this.whenStarted(() => {
      this.startWorker(name, 1, async () => {
        try {
          await measureJobRun(this.metrics, name, true, work);
        } catch (error) {
          // A tick is not retried: the next one comes.
          this.logger.warn({ msg: 'Scheduled job failed', job: name, error: (error as Error).message });
        }
      });
      // Waits for Redis when it is away at start-up; the start does not.
      const store = () =>
        void this.queue(name)
          .upsertJobScheduler(
            name,
            { every: everyMs },
            { name, opts: { removeOnComplete: true, removeOnFail: true } },
          )
          .catch((error: Error) =>
            this.logger.error({ msg: 'Scheduling a job failed', job: name, error: error.message }),
          );
      this.schedulers.push(store);
      store();
    });
  }

  onApplicationBootstrap(): void {
    this.started = true;
    for (const start of this.starts.splice(0)) start();
  }

  /** Before the database pool and Redis connections close: workers take no new job and finish theirs. */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.allSettled(this.workers.map((worker) => worker.close()));
    await Promise.allSettled([...this.queues.values()].map((queue) => queue.close()));
  }

  /** One worker per name: a schedule and a job, or two handlers, of one name would take each other's jobs. */
  private claimName(name: string, message: string): void {
    if (this.handled.has(name)) throw new Error(message);
    this.handled.add(name);
  }

  private whenStarted(start: () => void): void {
    if (this.started) start();
    else this.starts.push(start);
  }

  private queue(name: string): Queue {
    let queue = this.queues.get(name);
    if (queue === undefined) {
      queue = new Queue(name, { connection: this.connection, prefix: this.prefix });
      // Connection errors: RedisConnection logs each loss and return of the connection.
      queue.on('error', () => undefined);
      this.queues.set(name, queue);
    }
    return queue;
  }

  private startWorker(name: string, concurrency: number, process: (job: Job) => Promise<void>): void {
    this.queue(name); // counted in the metrics even before its first job
    const worker = new Worker(name, process, {
      connection: this.connection,
      prefix: this.prefix,
      concurrency,
      // A job whose worker stops renewing its lock for this long (its instance died) runs again.
      lockDuration: this.config.leaseMs,
      stalledInterval: this.config.leaseMs,
    });
    worker.on('error', (error) =>
      this.logger.debug({ msg: 'Job worker error', job: name, error: error.message }),
    );
    this.workers.push(worker);
  }

  private async counts(): Promise<JobCount[]> {
    const states = ['waiting', 'delayed', 'active', 'failed'] as const;
    const counts = await Promise.all(
      [...this.queues].map(async ([name, queue]) => {
        const byState = await within(
          queue.getJobCounts(...states).catch(() => null),
          COUNTS_TIMEOUT_MS,
          () => null,
        );
        return byState === null ? [] : states.map((state) => ({ name, state, count: byState[state] ?? 0 }));
      }),
    );
    return counts.flat();
  }
}

/** The producer's jobId when it gave one, else BullMQ's own id. */
function jobIdOf(job: Job): string {
  return job.id?.startsWith('id-') ? decodeURIComponent(job.id.slice(3)) : String(job.id);
}

/** `promise`, or what `onTimeout` returns (or throws) once `ms` have passed. */
async function within<T>(promise: Promise<T>, ms: number, onTimeout: () => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(onTimeout());
      } catch (error) {
        reject(error as Error);
      }
    }, ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
