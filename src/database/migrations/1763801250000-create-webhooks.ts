import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { addCheck } from '../check-constraints.js';
import { datetimeColumn, timestampColumns } from '../timestamps.js';

/**
 * Webhook endpoints and their deliveries: one delivery per endpoint and event (the unique index makes a
 * redispatched event a no-op), holding the body it sends and where its attempts stand.
 */
export class CreateWebhooks1763801250000 implements MigrationInterface {
  name = 'CreateWebhooks1763801250000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const sqlite = queryRunner.connection.driver.options.type === 'better-sqlite3';
    await queryRunner.createTable(
      new Table({
        name: 'webhooks',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'url', type: 'varchar', length: '2048' },
          // JSON array of event types, or ["*"].
          { name: 'events', type: 'text' },
          { name: 'description', type: 'varchar', length: '500', default: "''" },
          // The signing secret (whsec_…): kept as is because HMAC needs it; never returned after creation.
          { name: 'secret', type: 'varchar', length: '100' },
          { name: 'active', type: 'boolean', default: true },
          ...timestampColumns(queryRunner, { softDelete: false }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'webhook_deliveries',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'webhook_id', type: 'integer' },
          { name: 'event_id', type: 'varchar', length: '64' },
          { name: 'event_type', type: 'varchar', length: '100' },
          // The request body, the same bytes on every attempt.
          { name: 'payload', type: sqlite ? 'text' : 'mediumtext' },
          { name: 'status', type: 'varchar', length: '16', default: "'pending'" },
          // Attempts started; an attempt is counted when it starts.
          { name: 'attempts', type: 'integer', default: 0 },
          { name: 'last_status_code', type: 'integer', isNullable: true },
          { name: 'last_error', type: 'varchar', length: '500', isNullable: true },
          // Pending: when the next attempt is due, or until when the running attempt holds the delivery.
          datetimeColumn(queryRunner, 'next_attempt_at', { nullable: true }),
          ...timestampColumns(queryRunner, { softDelete: false }),
        ],
        foreignKeys: [
          {
            name: 'FK_webhook_deliveries_webhook',
            columnNames: ['webhook_id'],
            referencedTableName: 'webhooks',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
        indices: [
          // One delivery per endpoint and event.
          {
            name: 'UQ_webhook_deliveries_webhook_event',
            columnNames: ['webhook_id', 'event_id'],
            isUnique: true,
          },
          // An endpoint's deliveries, newest first.
          { name: 'IDX_webhook_deliveries_webhook_id', columnNames: ['webhook_id', 'id'] },
          // The sweep of overdue pending deliveries.
          { name: 'IDX_webhook_deliveries_status_next', columnNames: ['status', 'next_attempt_at'] },
          // The removal of old deliveries (WEBHOOK_DELIVERY_RETENTION).
          { name: 'IDX_webhook_deliveries_created_at', columnNames: ['created_at'] },
        ],
      }),
    );
    // Not `checks` of the Table: TypeORM creates those on SQLite only.
    await addCheck(
      queryRunner,
      'webhook_deliveries',
      'CHK_webhook_deliveries_status',
      "status IN ('pending', 'succeeded', 'failed')",
    );
    await addCheck(queryRunner, 'webhook_deliveries', 'CHK_webhook_deliveries_attempts', 'attempts >= 0');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('webhook_deliveries');
    await queryRunner.dropTable('webhooks');
  }
}
