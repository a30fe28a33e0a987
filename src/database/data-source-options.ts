import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import mysql from 'mysql2';
import type { DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { CreationTimeSubscriber } from './creation-time.subscriber.js';
import { entities } from './entities.js';
import { migrations } from './migrations/index.js';

/**
 * mysql2 with every pooled connection switched to UTC before its first query, so that
 * CURRENT_TIMESTAMP defaults and the driver's `timezone: 'Z'` agree whatever the server's zone is.
 */
const mysqlDriverInUtc = {
  ...mysql,
  createPool(options: mysql.PoolOptions) {
    const pool = mysql.createPool(options);
    pool.on('connection', (connection) => {
      connection.query("SET time_zone = '+00:00'");
    });
    return pool;
  },
};

export function buildDataSourceOptions(
  config: Pick<AppConfig, 'database' | 'databasePoolSize'>,
): DataSourceOptions {
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
      database: config.database.path,
      enableWAL: true,
      // Writers wait for each other instead of failing with SQLITE_BUSY.
      timeout: 10_000,
    };
  }
  return {
    ...common,
    type: 'mysql',
    url: config.database.url,
    driver: mysqlDriverInUtc,
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
