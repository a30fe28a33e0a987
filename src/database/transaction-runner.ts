import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource, EntityManager } from 'typeorm';
import { isTransientLockError } from './errors.js';

const MAX_ATTEMPTS = 5;

/**
 * Runs a unit of work in one transaction; every query of the work goes through the given manager.
 *
 * - MySQL/MariaDB: a deadlock or lock-wait timeout rolls the work back and runs it again (up to 5 times).
 * - SQLite: TypeORM shares one connection, so a transaction left open across `await`s would absorb
 *   other requests' writes; transactions and the writes routed here therefore run one at a time.
 */
@Injectable()
export class TransactionRunner {
  private readonly logger = new Logger(TransactionRunner.name);
  private readonly serialize: boolean;
  private queue: Promise<unknown> = Promise.resolve();
  /** SQLite: transactions running or queued (at most one runs); reported as the pool metrics. */
  pending = 0;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.serialize = dataSource.options.type === 'better-sqlite3';
  }

  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (!this.serialize) return this.withRetry(work);
    this.pending += 1;
    const result = this.queue.then(() => this.dataSource.transaction(work));
    this.queue = result.catch(() => undefined).finally(() => (this.pending -= 1));
    return result;
  }

  private async withRetry<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.dataSource.transaction(work);
      } catch (error) {
        if (!isTransientLockError(error) || attempt === MAX_ATTEMPTS) throw error;
        this.logger.warn({ msg: 'Transaction retried after a lock conflict', attempt });
        await sleep(5 + Math.random() * 20 * attempt);
      }
    }
  }
}
