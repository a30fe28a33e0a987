import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { CreationTimeSubscriber } from './creation-time.subscriber.js';
import { entities } from './entities.js';
import { migrations } from './migrations/index.js';
import { mysqlDriver } from './mysql-driver.js';
import { loadSqliteDriver } from './sqlite-driver.js';

/**
 * The data source of the service and of the migration CLI. MySQL queries stay unbounded until
 * `startQueryTimeouts()` (DatabaseModule calls it once the migrations have run).
 */
export async function buildDataSourceOptions(
  config: Pick<AppConfig, 'database' | 'databasePoolSize' | 'databaseTimeouts' | 'databaseReplicas'>,
): Promise<DataSourceOptions> {
  const common = {
    entities,
    migrations,
    subscribers: [CreationTimeSubscriber],
    synchronize: false,
    migrationsTransactionMode: 'each' as const,
  };
  if (config.database.type === 'sqlite') {
    mkdirSync(dirname(config.database.path), { recursive: true });
    return {
      ...common,
      type: 'better-sqlite3',
      driver: await loadSqliteDriver(),
      database: config.database.path,
      enableWAL: true,
      // Busy timeout: how long a statement waits for another process's lock (a migration run from the
      // CLI, a backup) before failing with SQLITE_BUSY. better-sqlite3 is synchronous: the wait blocks.
      timeout: config.databaseTimeouts.acquireMs,
    };
  }
  return {
    ...common,
    type: 'mysql',
    // With replicas, TypeORM builds a pool per server through the driver's createPoolCluster (ReplicaPools):
    // everything goes to the primary unless a read runs in ReplicaReads' scope.
    ...(config.databaseReplicas.urls.length === 0
      ? { url: config.database.url }
      : {
          replication: {
            master: { url: config.database.url },
            slaves: config.databaseReplicas.urls.map((url) => ({ url })),
            defaultMode: 'master' as const,
          },
        }),
    driver: mysqlDriver({ ...config.databaseTimeouts, queriesBounded: false }),
    timezone: 'Z',
    charset: 'utf8mb4_unicode_ci',
    poolSize: config.databasePoolSize,
    supportBigNumbers: true,
    bigNumberStrings: false,
    // mysql2 otherwise captures a stack trace for every query to decorate its errors; TypeORM's
    // QueryFailedError already carries the caller's (async) stack. About 8 % of a product read's CPU.
    trace: false,
  };
}
