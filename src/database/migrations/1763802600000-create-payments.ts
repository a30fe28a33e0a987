import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { timestampColumns } from '../timestamps.js';

/**
 * Payments of orders, their refunds, and the provider webhook events already applied (one row per event id, so a
 * redelivered event does nothing).
 */
export class CreatePayments1763802600000 implements MigrationInterface {
  name = 'CreatePayments1763802600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // orders.payment_status takes `partially_refunded` (18 characters). SQLite does not enforce varchar lengths.
    const mysql = queryRunner.connection.driver.options.type !== 'better-sqlite3';
    if (mysql) await queryRunner.query('ALTER TABLE orders MODIFY payment_status varchar(20) NOT NULL');
    const id = {
      name: 'id',
      type: 'integer',
      isPrimary: true,
      isGenerated: true,
      generationStrategy: 'increment' as const,
    };
    await queryRunner.createTable(
      new Table({
        name: 'payments',
        columns: [
          id,
          { name: 'order_id', type: 'integer' },
          // The order's id while the payment is live (not cancelled): the unique index allows one live payment.
          { name: 'live_order_id', type: 'integer', isNullable: true },
          { name: 'provider', type: 'varchar', length: '16' },
          { name: 'status', type: 'varchar', length: '20' },
          { name: 'amount_cents', type: 'bigint' },
          { name: 'currency', type: 'varchar', length: '3' },
          { name: 'refunded_cents', type: 'bigint', default: 0 },
          // The provider's id of the payment (a PaymentIntent id), once created there.
          { name: 'provider_ref', type: 'varchar', length: '255', isNullable: true },
          { name: 'client_secret', type: 'varchar', length: '255', isNullable: true },
          // Why the payment needs a person: e.g. amount_mismatch, paid_after_cancel.
          { name: 'flag', type: 'varchar', length: '32', isNullable: true },
          ...timestampColumns(queryRunner, { softDelete: false }),
        ],
        foreignKeys: [
          {
            name: 'FK_payments_order',
            columnNames: ['order_id'],
            referencedTableName: 'orders',
            referencedColumnNames: ['id'],
          },
        ],
        indices: [
          { name: 'UQ_payments_live_order', columnNames: ['live_order_id'], isUnique: true },
          { name: 'IDX_payments_order', columnNames: ['order_id'] },
          // Reconciliation: payments left in a status, oldest first.
          { name: 'IDX_payments_status_updated', columnNames: ['status', 'updated_at'] },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'payment_refunds',
        columns: [
          id,
          { name: 'payment_id', type: 'integer' },
          { name: 'amount_cents', type: 'bigint' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'reason', type: 'varchar', length: '500', isNullable: true },
          { name: 'provider_ref', type: 'varchar', length: '255', isNullable: true },
          { name: 'idempotency_key', type: 'varchar', length: '128', isNullable: true },
          ...timestampColumns(queryRunner, { softDelete: false }),
        ],
        foreignKeys: [
          {
            name: 'FK_payment_refunds_payment',
            columnNames: ['payment_id'],
            referencedTableName: 'payments',
            referencedColumnNames: ['id'],
          },
        ],
        indices: [
          { name: 'IDX_payment_refunds_payment', columnNames: ['payment_id'] },
          { name: 'UQ_payment_refunds_idempotency', columnNames: ['idempotency_key'], isUnique: true },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'payment_provider_events',
        columns: [
          { name: 'id', type: 'varchar', length: '255', isPrimary: true },
          { name: 'provider', type: 'varchar', length: '16' },
          { name: 'type', type: 'varchar', length: '100' },
          { name: 'payment_id', type: 'integer', isNullable: true },
          ...timestampColumns(queryRunner, { softDelete: false }),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('payment_provider_events');
    await queryRunner.dropTable('payment_refunds');
    await queryRunner.dropTable('payments');
    if (queryRunner.connection.driver.options.type !== 'better-sqlite3') {
      await queryRunner.query('ALTER TABLE orders MODIFY payment_status varchar(16) NOT NULL');
    }
  }
}
