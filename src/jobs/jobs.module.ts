import { Global, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { TransactionRunner } from '../database/transaction-runner.js';
import { Metrics } from '../observability/metrics.js';
import { RedisConnection } from '../redis/redis-connection.js';
import { BullJobQueue } from './bullmq-job-queue.js';
import { DatabaseJobQueue } from './database-job-queue.js';
import { JobQueue } from './job-queue.js';

/** The job queue for every module: BullMQ when REDIS_URL is set, the `jobs` table otherwise. */
@Global()
@Module({
  providers: [
    {
      provide: JobQueue,
      inject: [APP_CONFIG, DataSource, TransactionRunner, Metrics, RedisConnection],
      useFactory: (
        config: AppConfig,
        dataSource: DataSource,
        transactions: TransactionRunner,
        metrics: Metrics,
        redis: RedisConnection,
      ): JobQueue =>
        config.redisUrl === null
          ? new DatabaseJobQueue(dataSource, transactions, metrics, config.jobs)
          : new BullJobQueue(redis, metrics, config.jobs),
    },
  ],
  exports: [JobQueue],
})
export class JobsModule {}
