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

/**
 * Read-only statements on the SQLite file in a worker thread. better-sqlite3 runs a statement synchronously on
 * the calling thread, so a search that takes 100 ms on the service's own connection stops every other request
 * for 100 ms; run here, it stops nobody (WAL lets this reader and the service's writer work at once, and it sees
 * every committed write). One statement at a time, in order. Not used on MySQL/MariaDB, whose driver is
 * asynchronous.
 */
@Injectable()
export class SqliteReader implements OnApplicationShutdown {
  private worker: Worker | null = null;
  private nextId = 0;
  private readonly pending = new Map<
    number,
    { resolve(rows: unknown[]): void; reject(error: Error): void }
  >();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  query<T>(sql: string, params: unknown[]): Promise<T[]> {
    this.dataSource.logger.logQuery(sql, params);
    const id = this.nextId++;
    return new Promise<T[]>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (rows: unknown[]) => void, reject });
      this.started().postMessage({ id, sql, params });
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.worker?.terminate();
    this.worker = null;
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
    worker.on('message', ({ id, rows, error }: Answer) => {
      const waiting = this.pending.get(id);
      this.pending.delete(id);
      if (error === undefined) waiting?.resolve(rows ?? []);
      else waiting?.reject(Object.assign(new Error(error.message), { code: error.code }));
    });
    worker.on('error', (error) => this.failAll(error));
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = null;
      this.failAll(new Error('The SQLite reader stopped'));
    });
    this.worker = worker;
    return worker;
  }

  private failAll(error: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}
