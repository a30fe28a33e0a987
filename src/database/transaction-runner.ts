import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource, EntityManager } from 'typeorm';
import { isTransientLockError } from './errors.js';

const MAX_ATTEMPTS = 5;

/** A unit of work that hit a lock conflict (deadlock, lock-wait timeout) and is run again. */
export interface LockRetry {
  /** The label given to `run`, e.g. 'place order'. */
  purpose: string;
  /** The attempt that failed (1 for the first run). */
  attempt: number;
  /** The driver's error code, e.g. ER_LOCK_DEADLOCK. */
  code: string;
}

/**
 * The transaction a unit of work runs in. A module takes part in another module's unit of work by receiving it
 * as the first argument of a facade method (`reserveStock(tx, items)`) and running every query through it.
 */
export type Tx = EntityManager;

type LockRetryListener = (retry: LockRetry) => void;

/**
 * The after-commit callbacks of each open TransactionRunner transaction, keyed by its manager (each attempt of a
 * unit of work has a manager of its own, so an attempt rolled back for a lock conflict takes its callbacks with it).
 */
type CommitCallback = () => void | Promise<void>;

const commitCallbacks = new WeakMap<EntityManager, CommitCallback[]>();

/**
 * Runs `callback` once the outermost transaction of `tx` has committed, never after a rollback: how a module
 * called inside another's unit of work (a facade method taking `tx`) announces its part of it. Callbacks run in
 * the order they were added, right after the commit; they must not throw. A callback's promise is awaited before
 * the next one runs and before `run` resolves. `tx` must be a transaction opened by `TransactionRunner.run`.
 */
export function afterCommit(tx: Tx, callback: CommitCallback): void {
  const callbacks = commitCallbacks.get(tx);
  if (callbacks === undefined) throw new Error('afterCommit needs a transaction of TransactionRunner.run');
  callbacks.push(callback);
}

/** Listeners of every runner in the process: how the test suite sees retries of any app it started. */
const processListeners = new Set<LockRetryListener>();

/** Calls `listener` for each retry of any TransactionRunner in this process; returns the unsubscribe. */
export function observeLockRetries(listener: LockRetryListener): () => void {
  processListeners.add(listener);
  return () => processListeners.delete(listener);
}

/**
 * Runs a unit of work in one transaction; every query of the work goes through the given manager.
 *
 * - MySQL/MariaDB: a deadlock or lock-wait timeout rolls the work back and runs it again (up to 5 times).
 *   Each retry is logged at warn with the work's purpose and counted (commerce_transaction_retries_total):
 *   a retry under ordinary load usually means a write order to fix (docs/extending.md#lock-retries).
 *   The connections run at READ COMMITTED (mysql-driver.ts): a plain read sees what was committed before it,
 *   so a read after a row lock sees the change the lock waited for (docs/extending.md#reads-after-a-lock).
 * - SQLite: TypeORM shares one connection, so a transaction left open across `await`s would absorb
 *   other requests' writes; transactions and the writes routed here therefore run one at a time.
 */
@Injectable()
export class TransactionRunner {
  private readonly logger = new Logger(TransactionRunner.name);
  private readonly serialize: boolean;
  private readonly listeners = new Set<LockRetryListener>();
  private queue: Promise<unknown> = Promise.resolve();
  /** SQLite: transactions running or queued (at most one runs); reported as the pool metrics. */
  pending = 0;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.serialize = dataSource.options.type === 'better-sqlite3';
  }

  /** `purpose` is a short label of the work ('place order'), named in logs and metrics when it is retried. */
  run<T>(purpose: string, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (!this.serialize) return this.withRetry(purpose, work);
    this.pending += 1;
    const result = this.queue.then(() => inTransaction(this.dataSource, work));
    this.queue = result.catch(() => undefined).finally(() => (this.pending -= 1));
    return result;
  }

  /** Calls `listener` for each retry of this runner (the metrics count them). */
  onLockRetry(listener: LockRetryListener): void {
    this.listeners.add(listener);
  }

  private async withRetry<T>(purpose: string, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await inTransaction(this.dataSource, work);
      } catch (error) {
        if (!isTransientLockError(error) || attempt === MAX_ATTEMPTS) throw error;
        const retry: LockRetry = { purpose, attempt, code: lockErrorCode(error) };
        this.logger.warn({ msg: `Transaction '${purpose}' retried after a lock conflict`, ...retry });
        for (const listener of [...this.listeners, ...processListeners]) listener(retry);
        await sleep(5 + Math.random() * 20 * attempt);
      }
    }
  }
}

/** One attempt: the work in a transaction, then, once committed, its after-commit callbacks. */
async function inTransaction<T>(
  dataSource: DataSource,
  work: (manager: EntityManager) => Promise<T>,
): Promise<T> {
  const callbacks: CommitCallback[] = [];
  const result = await dataSource.transaction((manager) => {
    commitCallbacks.set(manager, callbacks);
    return work(manager);
  });
  for (const callback of callbacks) await callback();
  return result;
}

function lockErrorCode(error: unknown): string {
  const { code, driverError } = error as { code?: string; driverError?: { code?: string } };
  return driverError?.code ?? code ?? 'unknown';
}
