import { BeforeApplicationShutdown, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { isUniqueViolation } from '../database/errors.js';
import { changedRows, placeholders } from '../database/raw-query.js';
import { dateFromRow, sqlDatetime } from '../database/timestamps.js';
import type { TransactionRunner } from '../database/transaction-runner.js';
import type { JobCount, Metrics } from '../observability/metrics.js';
import { measureJobRun } from './job-run.js';
import { JobContext, JobHandler, JobName, JobOptions, JobQueue, Jobs } from './job-queue.js';

/** Finished jobs are purged, and jobs whose instances died too often failed, this often per instance. */
const MAINTENANCE_INTERVAL_MS = 60_000;
const PURGE_BATCH = 1000;

/**
 * Due for a run: waiting and due, or active with a lapsed lease (its instance died or hung) and at most one run
 * beyond its attempts, so that a job whose runs keep killing their instance ends up failed.
 */
const CLAIMABLE =
  "((state = 'waiting' AND run_at <= ?) OR (state = 'active' AND locked_until <= ? AND attempts_made <= max_attempts))";

interface Handler {
  run: (data: unknown, job: JobContext) => Promise<void>;
  concurrency: number;
  running: number;
}

interface Schedule {
  everyMs: number;
  work: () => Promise<void>;
  registered: boolean;
  running: boolean;
}

interface ClaimedJob {
  id: number;
  data: string;
  job_key: string | null;
  attempts_made: number;
  max_attempts: number;
  backoff_ms: number;
  lease_token: string;
}

/**
 * The job queue without Redis: jobs are rows of `jobs`, which every instance polls. A job is claimed by a
 * conditional UPDATE that only one instance's statement can win (on SQLite and MySQL/MariaDB alike), with a
 * lease the running instance renews; a job whose lease lapses runs again elsewhere. A scheduled job's tick
 * belongs to the instance whose conditional UPDATE moves its `job_schedules.next_run_at` on.
 */
export class DatabaseJobQueue extends JobQueue implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('JobQueue');
  private readonly handlers = new Map<string, Handler>();
  private readonly schedules = new Map<string, Schedule>();
  private readonly runs = new Set<Promise<void>>();
  private started = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private pollAgain = false;
  private maintainedAt = 0;
  private failing = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly transactions: TransactionRunner,
    private readonly metrics: Metrics,
    private readonly config: AppConfig['jobs'],
  ) {
    super();
    metrics.countJobs = () => this.counts();
  }

  async add<N extends JobName>(name: N, data: Jobs[N], options: JobOptions = {}): Promise<void> {
    const now = new Date();
    const runAt = new Date(now.getTime() + (options.delayMs ?? 0));
    try {
      await this.transactions.run('add job', (tx) =>
        tx.query(
          `INSERT INTO jobs (name, job_key, data, state, attempts_made, max_attempts, backoff_ms, run_at, created_at)
           VALUES (?, ?, ?, 'waiting', 0, ?, ?, ?, ?)`,
          [
            name,
            options.jobId ?? null,
            JSON.stringify(data),
            options.attempts ?? 1,
            options.backoffMs ?? 0,
            sqlDatetime(runAt),
            sqlDatetime(now),
          ],
        ),
      );
    } catch (error) {
      if (options.jobId !== undefined && isUniqueViolation(error)) return; // known already: added once
      throw error;
    }
    if (this.handlers.has(name) && runAt <= now) this.wake();
  }

  handle<N extends JobName>(name: N, handler: JobHandler<N>, options: { concurrency?: number } = {}): void {
    if (this.handlers.has(name)) throw new Error(`Job '${name}' already has a handler`);
    this.handlers.set(name, {
      run: handler as Handler['run'],
      concurrency: options.concurrency ?? 1,
      running: 0,
    });
    this.wake();
  }

  schedule(name: string, everyMs: number, work: () => Promise<void>): void {
    if (this.schedules.has(name)) throw new Error(`Scheduled job '${name}' is already registered`);
    this.schedules.set(name, { everyMs, work, registered: false, running: false });
    this.wake();
  }

  onApplicationBootstrap(): void {
    this.started = true;
    this.wake();
  }

  /** Before the database pool closes: no new claim, and the running jobs and ticks finish. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.polling;
    await Promise.allSettled(this.runs);
  }

  /** Polls now (or again right after the poll in progress). */
  private wake(): void {
    if (!this.started || this.stopped) return;
    this.pollAgain = true;
    if (this.polling !== undefined) return;
    clearTimeout(this.timer);
    this.polling = this.pollWhileAsked();
  }

  private async pollWhileAsked(): Promise<void> {
    while (this.pollAgain && !this.stopped) {
      this.pollAgain = false;
      await this.poll();
    }
    this.polling = undefined;
    if (this.stopped) return;
    this.timer = setTimeout(() => this.wake(), this.config.pollIntervalMs);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    try {
      await this.runDueTicks();
      for (const [name, handler] of this.handlers) {
        const free = handler.concurrency - handler.running;
        if (free > 0) for (const job of await this.claim(name, free)) this.start(name, handler, job);
      }
      if (Date.now() - this.maintainedAt >= MAINTENANCE_INTERVAL_MS) await this.maintain();
      if (this.failing) this.logger.log({ msg: 'Job queue polling works again' });
      this.failing = false;
    } catch (error) {
      // Logged once per outage; the next poll tries again.
      if (!this.failing)
        this.logger.warn({ msg: 'Job queue polling failed', error: (error as Error).message });
      this.failing = true;
    }
  }

  private async runDueTicks(): Promise<void> {
    if (this.schedules.size === 0) return;
    for (const [name, schedule] of this.schedules) {
      if (!schedule.registered) await this.register(name, schedule);
    }
    const now = new Date();
    const rows: Array<{ name: string; next_run_at: Date | string }> = await this.dataSource.query(
      `SELECT name, next_run_at FROM job_schedules WHERE name IN (${placeholders(this.schedules.size)})`,
      [...this.schedules.keys()],
    );
    for (const row of rows) {
      const schedule = this.schedules.get(row.name)!;
      if (schedule.running || dateFromRow(row.next_run_at) > now) continue;
      const won = await this.transactions.run('claim scheduled tick', (tx) =>
        changedRows(tx, 'UPDATE job_schedules SET next_run_at = ? WHERE name = ? AND next_run_at <= ?', [
          sqlDatetime(new Date(now.getTime() + schedule.everyMs)),
          row.name,
          sqlDatetime(now),
        ]),
      );
      if (won === 1) this.track(this.tick(row.name, schedule));
    }
  }

  /** The schedule's row: its first tick one interval from now; a changed interval starts counting again. */
  private async register(name: string, schedule: Schedule): Promise<void> {
    const nextRunAt = sqlDatetime(new Date(Date.now() + schedule.everyMs));
    try {
      await this.transactions.run('register scheduled job', async (tx) => {
        const [row] = await tx.query('SELECT every_ms FROM job_schedules WHERE name = ?', [name]);
        if (row === undefined) {
          await tx.query('INSERT INTO job_schedules (name, every_ms, next_run_at) VALUES (?, ?, ?)', [
            name,
            schedule.everyMs,
            nextRunAt,
          ]);
        } else if (Number(row.every_ms) !== schedule.everyMs) {
          await tx.query('UPDATE job_schedules SET every_ms = ?, next_run_at = ? WHERE name = ?', [
            schedule.everyMs,
            nextRunAt,
            name,
          ]);
        }
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error; // another instance inserted it first
    }
    schedule.registered = true;
  }

  private async tick(name: string, schedule: Schedule): Promise<void> {
    schedule.running = true;
    try {
      await measureJobRun(this.metrics, name, true, schedule.work);
    } catch (error) {
      this.logger.warn({ msg: 'Scheduled job failed', job: name, error: (error as Error).message });
    } finally {
      schedule.running = false;
    }
  }

  private claim(name: string, limit: number): Promise<ClaimedJob[]> {
    return this.transactions.run('claim jobs', async (tx) => {
      const now = sqlDatetime(new Date());
      const lockedUntil = sqlDatetime(new Date(Date.now() + this.config.leaseMs));
      const due: Array<{ id: number }> = await tx.query(
        `SELECT id FROM jobs WHERE name = ? AND ${CLAIMABLE} ORDER BY run_at, id LIMIT ${limit}`,
        [name, now, now],
      );
      const claimed: number[] = [];
      for (const { id } of due) {
        const taken = await changedRows(
          tx,
          `UPDATE jobs SET state = 'active', lease_token = ?, locked_until = ?, attempts_made = attempts_made + 1
           WHERE id = ? AND ${CLAIMABLE}`,
          [randomUUID(), lockedUntil, id, now, now],
        );
        if (taken === 1) claimed.push(id);
      }
      if (claimed.length === 0) return [];
      return tx.query(
        `SELECT id, data, job_key, attempts_made, max_attempts, backoff_ms, lease_token FROM jobs
         WHERE id IN (${placeholders(claimed.length)})`,
        claimed,
      );
    });
  }

  private start(name: string, handler: Handler, job: ClaimedJob): void {
    handler.running += 1;
    this.track(
      this.run(name, handler, job).finally(() => {
        handler.running -= 1;
        this.wake();
      }),
    );
  }

  private track(run: Promise<void>): void {
    this.runs.add(run);
    void run.finally(() => this.runs.delete(run));
  }

  private async run(name: string, handler: Handler, job: ClaimedJob): Promise<void> {
    const attempt = Number(job.attempts_made);
    const final = attempt >= Number(job.max_attempts);
    const renewal = setInterval(() => void this.renewLease(job), this.config.leaseMs / 3);
    renewal.unref();
    let failure: Error | undefined;
    try {
      await measureJobRun(this.metrics, name, final, () =>
        handler.run(JSON.parse(job.data), { id: job.job_key ?? String(job.id), attempt }),
      );
    } catch (error) {
      failure = error as Error;
      this.logger.warn({ msg: 'Job failed', job: name, id: job.id, attempt, final, error: failure.message });
    } finally {
      clearInterval(renewal);
    }
    try {
      await this.finish(job, attempt, final, failure);
    } catch (error) {
      // The lease lapses and the job runs again: at least once.
      this.logger.warn({ msg: 'Recording a job outcome failed', job: name, error: (error as Error).message });
    }
  }

  private finish(job: ClaimedJob, attempt: number, final: boolean, failure: Error | undefined) {
    const now = new Date();
    const [sql, parameters] =
      failure === undefined
        ? [`state = 'done', finished_at = ?`, [sqlDatetime(now)]]
        : final
          ? [
              `state = 'failed', finished_at = ?, last_error = ?`,
              [sqlDatetime(now), failure.message.slice(0, 1000)],
            ]
          : [
              `state = 'waiting', run_at = ?, last_error = ?`,
              [
                sqlDatetime(new Date(now.getTime() + Number(job.backoff_ms) * 2 ** (attempt - 1))),
                failure.message.slice(0, 1000),
              ],
            ];
    return this.transactions.run('finish job', (tx) =>
      changedRows(
        tx,
        `UPDATE jobs SET ${sql}, lease_token = NULL, locked_until = NULL WHERE id = ? AND lease_token = ?`,
        [...parameters, job.id, job.lease_token],
      ),
    );
  }

  private async renewLease(job: ClaimedJob): Promise<void> {
    try {
      await this.transactions.run('renew job lease', (tx) =>
        changedRows(tx, 'UPDATE jobs SET locked_until = ? WHERE id = ? AND lease_token = ?', [
          sqlDatetime(new Date(Date.now() + this.config.leaseMs)),
          job.id,
          job.lease_token,
        ]),
      );
    } catch {
      // The next renewal tries again; a lapsed lease only means the job may run twice.
    }
  }

  /** Purges jobs finished more than JOBS_RETENTION ago; fails jobs whose runs keep losing their instance. */
  private async maintain(): Promise<void> {
    const now = new Date();
    await this.transactions.run('fail abandoned jobs', (tx) =>
      changedRows(
        tx,
        `UPDATE jobs SET state = 'failed', finished_at = ?, last_error = ?, lease_token = NULL, locked_until = NULL
         WHERE state = 'active' AND locked_until <= ? AND attempts_made > max_attempts`,
        [sqlDatetime(now), 'The instance running it stopped on every attempt', sqlDatetime(now)],
      ),
    );
    const before = sqlDatetime(new Date(now.getTime() - this.config.retentionSeconds * 1000));
    for (;;) {
      const purged = await this.transactions.run('purge finished jobs', (tx) =>
        changedRows(
          tx,
          `DELETE FROM jobs WHERE id IN
             (SELECT id FROM (SELECT id FROM jobs WHERE finished_at <= ? LIMIT ${PURGE_BATCH}) AS finished)`,
          [before],
        ),
      );
      if (purged < PURGE_BATCH) break;
    }
    this.maintainedAt = Date.now();
  }

  private async counts(): Promise<JobCount[]> {
    const rows: Array<{ name: string; job_state: JobCount['state']; count: number | string }> =
      await this.dataSource.query(
        `SELECT name, CASE WHEN state = 'waiting' AND run_at > ? THEN 'delayed' ELSE state END AS job_state,
           COUNT(*) AS count
         FROM jobs WHERE state IN ('waiting', 'active', 'failed') GROUP BY name, job_state`,
        [sqlDatetime(new Date())],
      );
    return rows.map((row) => ({ name: row.name, state: row.job_state, count: Number(row.count) }));
  }
}
