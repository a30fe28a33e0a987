/**
 * The background jobs the service runs, as one typed map: job name → data (JSON). Each module adds its jobs by
 * declaration merging, like the domain events:
 *
 *   declare module '../jobs/job-queue.js' {
 *     interface Jobs {
 *       'mail.send': { messageId: number };
 *     }
 *   }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Jobs {}

export type JobName = keyof Jobs & string;

export interface JobOptions {
  /** A second `add` with the same id while the first is known is ignored (at-least-once producers). */
  jobId?: string;
  delayMs?: number;
  /** Runs in all, the first included (default 1: no retry). */
  attempts?: number;
  /** Exponential backoff: the n-th retry waits backoffMs × 2^(n-1). */
  backoffMs?: number;
}

export interface JobContext {
  id: string;
  /** 1 for the first run. */
  attempt: number;
}

export type JobHandler<N extends JobName> = (data: Jobs[N], job: JobContext) => Promise<void>;

/**
 * Background jobs: BullMQ on Redis when REDIS_URL is set, otherwise a queue in the database polled by every
 * instance. A job runs on one instance at a time; a handler that throws is retried as its options say.
 */
export abstract class JobQueue {
  /**
   * Resolves once the job is stored (a committed row, or acknowledged by Redis); rejects when it could not be:
   * a database error, or JobQueueUnavailableError when Redis did not answer within JOBS_ADD_TIMEOUT_MS.
   */
  abstract add<N extends JobName>(name: N, data: Jobs[N], options?: JobOptions): Promise<void>;

  /** Registers the handler of `name` (once per process, at start-up). */
  abstract handle<N extends JobName>(
    name: N,
    handler: JobHandler<N>,
    options?: { concurrency?: number },
  ): void;

  /** Runs `work` every `everyMs` once per tick across all instances (replaces a per-instance timer). */
  abstract schedule(name: string, everyMs: number, work: () => Promise<void>): void;
}

/** `add` could not hand the job to Redis in time: the caller keeps the work and adds it again later. */
export class JobQueueUnavailableError extends Error {
  override name = 'JobQueueUnavailableError';
}
