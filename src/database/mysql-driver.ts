import mysql from 'mysql2';
import type { DataSource } from 'typeorm';
import { ReplicaPools } from './replica-pools.js';

/**
 * Bounds on every wait for MySQL. Queries are bounded only once `queriesBounded` is set, after the
 * migrations have run, so that a long schema change is not cut short.
 */
export interface MysqlTimeouts {
  acquireMs: number;
  queryMs: number;
  queriesBounded: boolean;
}

type Callback = (error: Error | null, ...results: unknown[]) => void;

/** Run on every new connection before its first query (in order; a failure discards the connection). */
const SESSION_SETTINGS = [
  "SET time_zone = '+00:00'",
  'SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED',
];

/** A replica's connections: a write sent there by mistake fails instead of being lost. */
const REPLICA_SESSION_SETTING = 'SET SESSION TRANSACTION READ ONLY';

const timeoutError = (message: string, code: string) => Object.assign(new Error(message), { code });

/**
 * mysql2 as TypeORM uses it, with what mysql2 3.x lacks or gets wrong for a database that stops
 * answering (measured with a SIGSTOPped MariaDB):
 * - every pooled connection switched to UTC before its first query, so that CURRENT_TIMESTAMP
 *   defaults and the driver's `timezone: 'Z'` agree whatever the server's zone is, and to READ COMMITTED, so
 *   that each plain read of a transaction sees what was committed before it: a read made after waiting for a
 *   row lock sees the change the lock waited for (at the servers' default, REPEATABLE READ, it would see the
 *   snapshot of the transaction's first read; docs/extending.md#reads-after-a-lock);
 * - an acquire timeout: mysql2's pool has none (TypeORM's `acquireTimeout` is ignored with a warning),
 *   so a request waited for a free connection as long as the database stayed silent;
 * - a query timeout that also discards the connection: mysql2's own `timeout` fails the query but
 *   leaves the connection in the pool with the query still pending, so the next query on it hung;
 * - and stops the timed-out statement on the server (KILL QUERY): closing its connection does not, the
 *   server ran it to its end (measured: searches still running 39 s after they were given up).
 */
export function mysqlDriver(timeouts: MysqlTimeouts) {
  const createPool = (options: mysql.PoolOptions, replica = false) => {
    const settings = replica ? [...SESSION_SETTINGS, REPLICA_SESSION_SETTING] : SESSION_SETTINGS;
    const pool = mysql.createPool(options);
    pool.on('connection', (connection) => {
      boundQueries(connection, timeouts);
      // TypeORM calls `promise()` for every query, and mysql2 answers with a new wrapper each time (an event
      // emitter, and a require() to resolve): about a tenth of an order's CPU. One wrapper per connection.
      const promised = connection.promise();
      connection.promise = () => promised;
      for (const setting of settings) {
        connection.query(setting, (error: Error | null) => {
          if (error !== null) connection.destroy();
        });
      }
    });
    const getConnection = pool.getConnection.bind(pool);
    pool.getConnection = (callback: Parameters<typeof getConnection>[0]) => {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        const message = `No database connection available within ${timeouts.acquireMs} ms`;
        callback(timeoutError(message, 'POOL_ACQUIRE_TIMEOUT'), undefined as never);
      }, timeouts.acquireMs);
      getConnection((error, connection) => {
        clearTimeout(timer);
        // A connection that arrives after the caller gave up goes straight back to the pool.
        if (settled) connection?.release();
        else callback(error, connection);
      });
    };
    return pool;
  };
  return {
    ...mysql,
    timeouts,
    createPool: (options: mysql.PoolOptions) => createPool(options),
    // With DATABASE_REPLICA_URLS, TypeORM's `replication` option asks for a pool cluster.
    createPoolCluster: () => new ReplicaPools(createPool),
  };
}

function boundQueries(connection: mysql.Connection, timeouts: MysqlTimeouts): void {
  const query = connection.query.bind(connection) as (...args: unknown[]) => unknown;
  (connection as { query: unknown }).query = (...args: unknown[]) => {
    const [sql, ...rest] = args;
    const callback = rest.at(-1);
    if (!timeouts.queriesBounded || typeof callback !== 'function') return query(...args);
    const options = typeof sql === 'string' ? { sql } : (sql as object);
    const bounded = (error: (Error & { code?: string }) | null, ...results: unknown[]) => {
      if (error?.code === 'PROTOCOL_SEQUENCE_TIMEOUT') {
        killQuery(connection);
        connection.destroy();
      }
      (callback as Callback)(error, ...results);
    };
    return query({ timeout: timeouts.queryMs, ...options }, ...rest.slice(0, -1), bounded);
  };
}

/**
 * Sends `KILL QUERY <thread id>` for the statement `connection` runs, on a connection of its own (the timed-out
 * one is still busy), with the same account, which may always kill its own statements. Fire and forget: if the
 * database cannot be reached either, there is nothing more to do.
 */
function killQuery(connection: mysql.Connection): void {
  const threadId = connection.threadId;
  if (!Number.isInteger(threadId)) return;
  const { Connection } = mysql as unknown as {
    Connection: new (options: { config: unknown }) => mysql.Connection;
  };
  const killer = new Connection({ config: connection.config });
  killer.on('error', () => killer.destroy());
  killer.query(`KILL QUERY ${threadId}`, () => killer.destroy());
}

/** Starts bounding the queries of a data source built with `mysqlDriver` (a no-op for SQLite). */
export function startQueryTimeouts(dataSource: DataSource): void {
  const driver = (dataSource.options as { driver?: { timeouts?: MysqlTimeouts } }).driver;
  if (driver?.timeouts !== undefined) driver.timeouts.queriesBounded = true;
}

/**
 * Runs one statement on a pooled connection of a data source built with `mysqlDriver`, bounded at `timeoutMs`
 * instead of DATABASE_QUERY_TIMEOUT_MS: past it the statement is killed on the server and its connection
 * discarded (boundQueries), and the error's code is PROTOCOL_SEQUENCE_TIMEOUT.
 */
export async function queryWithTimeout<T>(
  dataSource: DataSource,
  sql: string,
  params: unknown[],
  timeoutMs: number,
): Promise<T[]> {
  dataSource.logger.logQuery(sql, params);
  const runner = dataSource.createQueryRunner('slave');
  try {
    const connection = (await runner.connect()) as mysql.PoolConnection;
    return await new Promise<T[]>((resolve, reject) => {
      connection.query({ sql, timeout: timeoutMs }, params, (error, rows) => {
        if (error) reject(error);
        else resolve(rows as T[]);
      });
    });
  } finally {
    await runner.release();
  }
}
