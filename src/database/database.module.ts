import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { APP_CONFIG } from '../config/config.module.js';
import type { AppConfig } from '../config/app-config.js';
import { buildDataSourceOptions } from './data-source-options.js';
import { startQueryTimeouts } from './mysql-driver.js';
import { ReplicaReads } from './replica-reads.js';
import { SqliteReader } from './sqlite-reader.js';
import { TransactionRunner } from './transaction-runner.js';

@Global()
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig) => ({
        ...(await buildDataSourceOptions(config)),
        migrationsRun: config.migrationsRun,
        retryAttempts: config.nodeEnv === 'test' ? 1 : 5,
      }),
      // initialize() runs the migrations; queries are bounded from then on.
      dataSourceFactory: async (options) => {
        const dataSource = await new DataSource(options as DataSourceOptions).initialize();
        startQueryTimeouts(dataSource);
        return dataSource;
      },
    }),
  ],
  providers: [TransactionRunner, SqliteReader, ReplicaReads],
  exports: [TransactionRunner, SqliteReader, ReplicaReads],
})
export class DatabaseModule {}
