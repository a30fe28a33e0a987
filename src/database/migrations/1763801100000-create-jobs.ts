import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { datetimeColumn } from '../timestamps.js';

/**
 * The job queue without Redis (src/jobs/database-job-queue.ts): one row per job, claimed by a conditional
 * update, and one row per scheduled job whose `next_run_at` the instance that runs a tick moves on.
 */
export class CreateJobs1763801100000 implements MigrationInterface {
  name = 'CreateJobs1763801100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const sqlite = queryRunner.connection.driver.options.type === 'better-sqlite3';
    await queryRunner.createTable(
      new Table({
        name: 'jobs',
        columns: [
          {
            name: 'id',
            // SQLite numbers rows itself only for INTEGER PRIMARY KEY.
            type: sqlite ? 'integer' : 'bigint',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'name', type: 'varchar', length: '100' },
          // The producer's jobId: a second job with the same key is not added while the first is kept.
          { name: 'job_key', type: 'varchar', length: '191', isNullable: true, isUnique: true },
          { name: 'data', type: 'text' },
          // waiting (delayed while run_at is ahead), active, done, failed
          { name: 'state', type: 'varchar', length: '16' },
          { name: 'attempts_made', type: 'integer', default: 0 },
          { name: 'max_attempts', type: 'integer' },
          { name: 'backoff_ms', type: 'integer' },
          datetimeColumn(queryRunner, 'run_at', { nullable: false }),
          // The claim of the instance running the job: renewed while it runs, taken over once it lapses.
          { name: 'lease_token', type: 'varchar', length: '36', isNullable: true },
          datetimeColumn(queryRunner, 'locked_until', { nullable: true }),
          { name: 'last_error', type: 'varchar', length: '1000', isNullable: true },
          datetimeColumn(queryRunner, 'created_at', { nullable: false }),
          datetimeColumn(queryRunner, 'finished_at', { nullable: true }),
        ],
        indices: [
          // Claims: due jobs of one name; also the depth by state.
          { name: 'IDX_jobs_claim', columnNames: ['name', 'state', 'run_at'] },
          // The purge of finished jobs.
          { name: 'IDX_jobs_finished_at', columnNames: ['finished_at'] },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'job_schedules',
        columns: [
          { name: 'name', type: 'varchar', length: '100', isPrimary: true },
          { name: 'every_ms', type: 'bigint' },
          datetimeColumn(queryRunner, 'next_run_at', { nullable: false }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('job_schedules');
    await queryRunner.dropTable('jobs');
  }
}
