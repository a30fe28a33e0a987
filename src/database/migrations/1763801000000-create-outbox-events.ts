import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';

/**
 * The outbox: each domain event is written here in the transaction of the change it announces, then dispatched
 * after the commit (src/events/outbox-event-bus.ts). `available_at` is when a sweep may (re)dispatch it;
 * `claim` marks the rows one sweep took; dispatched rows are kept for OUTBOX_RETENTION.
 */
export class CreateOutboxEvents1763801000000 implements MigrationInterface {
  name = 'CreateOutboxEvents1763801000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const sqlite = queryRunner.connection.driver.options.type === 'better-sqlite3';
    const datetime = { type: 'datetime', precision: sqlite ? undefined : 3 };
    await queryRunner.createTable(
      new Table({
        name: 'outbox_events',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'type', type: 'varchar', length: '100', isNullable: false },
          { name: 'data', type: sqlite ? 'text' : 'mediumtext', isNullable: false },
          { name: 'created_at', ...datetime, isNullable: false },
          { name: 'available_at', ...datetime, isNullable: false },
          { name: 'attempts', type: 'integer', default: 0, isNullable: false },
          { name: 'claim', type: 'varchar', length: '36', isNullable: true },
          { name: 'dispatched_at', ...datetime, isNullable: true },
          { name: 'last_error', type: 'varchar', length: '500', isNullable: true },
        ],
        indices: [
          // The sweep (dispatched_at IS NULL, by available_at) and the purge (dispatched_at < cutoff).
          new TableIndex({
            name: 'IDX_outbox_events_pending',
            columnNames: ['dispatched_at', 'available_at'],
          }),
          new TableIndex({ name: 'IDX_outbox_events_claim', columnNames: ['claim'] }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('outbox_events');
  }
}
