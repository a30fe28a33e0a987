import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { DataSource } from 'typeorm';
import { sqliteDriverName } from './sqlite-driver.js';

/** The worker: one read-only connection to the database file, answering one statement at a time. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);
const db = new Database(workerData.path, { readonly: true, fileMustExist: true, timeout: workerData.busyTimeoutMs });
parentPort.on('message', ({ id, sql, params }) => {
  try {
    parentPort.postMessage({ id, rows: db.prepare(sql).all(params) });
  } catch (error) {
    parentPort.postMessage({ id, error: { message: String(error.message), code: error.code } });
  }
});
`;

interface Answer {
  id: number;
  rows?: unknown[];
  error?: { message: string; code?: string };
}

/** The code of the error a statement past its `timeoutMs` fails with. */
export const SQLITE_READER_TIMEOUT = 'SQLITE_READER_TIMEOUT';

interface Pending {
  sql: string;
  params: unknown[];
  resolve(rows: unknown[]): void;
  reject(error: Error): void;
}

/**
 * Read-only statements on the SQLite file in a worker thread. better-sqlite3 runs a statement synchronously on
 * the calling thread, so a search that takes 100 ms on the service's own connection stops every other request
 * for 100 ms; run here, it stops nobody (WAL lets this reader and the service's writer work at once, and it sees
 * every committed write). One statement at a time, in order. Not used on MySQL/MariaDB, whose driver is
 * asynchronous.
 *
 * A statement given a `timeoutMs` fails at that deadline. SQLite's statement cannot be interrupted from here
 * (better-sqlite3 has no sqlite3_interrupt), so the worker running it is told to stop and left to finish it
 * on its own (its thread ends when the statement returns), and the statements queued behind it go to a new
 * worker.
 */
@Injectable()
export class SqliteReader implements OnApplicationShutdown {
  private worker: Worker | null = null;
  private nextId = 0;
  /** The statements sent to the current worker and not yet answered, by id. */
  private pending = new Map<number, Pending>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  query<T>(sql: string, params: unknown[], timeoutMs?: number): Promise<T[]> {
    this.dataSource.logger.logQuery(sql, params);
    const id = this.nextId++;
    return new Promise<T[]>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = () => clearTimeout(timer);
      this.send(id, {
        sql,
        params,
        resolve: (rows) => {
          settle();
          resolve(rows as T[]);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      if (timeoutMs !== undefined) timer = setTimeout(() => this.abandon(id, timeoutMs), timeoutMs);
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.worker?.terminate();
    this.worker = null;
  }

  private send(id: number, statement: Pending): void {
    const worker = this.started();
    this.pending.set(id, statement);
    worker.postMessage({ id, sql: statement.sql, params: statement.params });
  }

  /** Fails statement `id` at its deadline, if it still waits; the others go to a new worker. */
  private abandon(id: number, timeoutMs: number): void {
    const statement = this.pending.get(id);
    if (statement === undefined) return;
    const others = [...this.pending].filter(([other]) => other !== id);
    this.pending.clear();
    const worker = this.worker;
    this.worker = null;
    void worker?.terminate();
    statement.reject(
      Object.assign(new Error(`Statement stopped waiting after ${timeoutMs} ms`), {
        code: SQLITE_READER_TIMEOUT,
      }),
    );
    for (const [otherId, other] of others) this.send(otherId, other);
  }

  private started(): Worker {
    if (this.worker !== null) return this.worker;
    const options = this.dataSource.options as { database: string; timeout?: number };
    // Resolved here, from the entry script (dist/src/main.js, jest): a worker started from source text would
    // resolve modules from the working directory.
    const from = process.argv[1] ?? join(process.cwd(), 'package.json');
    const driverPath = createRequire(from).resolve(sqliteDriverName());
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { path: options.database, busyTimeoutMs: options.timeout ?? 5000, driverPath },
    });
    worker.unref();
    const pending = new Map<number, Pending>();
    this.pending = pending;
    worker.on('message', ({ id, rows, error }: Answer) => {
      const waiting = pending.get(id);
      pending.delete(id);
      if (error === undefined) waiting?.resolve(rows ?? []);
      else waiting?.reject(Object.assign(new Error(error.message), { code: error.code }));
    });
    worker.on('error', (error) => failAll(pending, error));
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = null;
      failAll(pending, new Error('The SQLite reader stopped'));
    });
    this.worker = worker;
    return worker;
  }
}

function failAll(pending: Map<number, Pending>, error: Error): void {
  for (const waiting of pending.values()) waiting.reject(error);
  pending.clear();
}
