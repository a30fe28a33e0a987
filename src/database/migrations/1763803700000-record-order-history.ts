import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { changeTable } from '../table-changes.js';
import { datetimeColumn, timestampColumns } from '../timestamps.js';

/**
 * After the order (DESIGN.md §16): who recorded a manual payment and when, who asked for a refund, the order an
 * outbox event is about (indexed: an order's timeline reads its events without scanning the outbox), and staff
 * notes on orders. Orders that took money with no payment row for it (marked paid by hand before manual payments
 * were recorded) get their manual payment, so that they are refunded like any other:
 *
 * - amount: the order's amount due (total - gift_card_total), currency the order's, no recorder (unknown);
 * - payment_status `paid` or `partially_refunded`: the payment is `paid`, nothing refunded (a partial refund could
 *   only go through a payment row, so it went to the order's gift card payment, which keeps it);
 * - payment_status `refunded`: the payment is `refunded` in full (the order says all money went back, by hand).
 */
export class RecordOrderHistory1763803700000 implements MigrationInterface {
  name = 'RecordOrderHistory1763803700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    await changeTable(queryRunner, 'payments', {
      addColumns: [
        { name: 'recorded_by', type: 'integer', isNullable: true },
        datetimeColumn(queryRunner, 'recorded_at', { nullable: true }),
      ],
    });
    await changeTable(queryRunner, 'payment_refunds', {
      addColumns: [{ name: 'requested_by', type: 'integer', isNullable: true }],
    });
    await changeTable(queryRunner, 'outbox_events', {
      addColumns: [{ name: 'order_id', type: 'integer', isNullable: true }],
    });
    const orderIdOfData = mysql
      ? "JSON_UNQUOTE(JSON_EXTRACT(data, '$.order.id'))"
      : "json_extract(data, '$.order.id')";
    await queryRunner.query(
      `UPDATE outbox_events SET order_id = ${orderIdOfData} WHERE type LIKE 'order.%' AND order_id IS NULL`,
    );
    await queryRunner.createIndex(
      'outbox_events',
      new TableIndex({ name: 'IDX_outbox_events_order', columnNames: ['order_id', 'created_at'] }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'order_notes',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'order_id', type: 'integer' },
          { name: 'author_id', type: 'integer' },
          { name: 'text', type: 'varchar', length: '2000' },
          ...timestampColumns(queryRunner, { softDelete: false }),
        ],
        foreignKeys: [
          {
            name: 'FK_order_notes_order',
            columnNames: ['order_id'],
            referencedTableName: 'orders',
            referencedColumnNames: ['id'],
          },
        ],
        indices: [{ name: 'IDX_order_notes_order', columnNames: ['order_id'] }],
      }),
    );
    await queryRunner.query(
      'INSERT INTO payments (order_id, live_order_id, provider, status, amount_cents, currency, refunded_cents, ' +
        'provider_ref, client_secret, flag, created_at, updated_at) ' +
        "SELECT o.id, NULL, 'manual', CASE o.payment_status WHEN 'refunded' THEN 'refunded' ELSE 'paid' END, " +
        'o.total_cents - o.gift_card_total_minor, o.currency_code, ' +
        "CASE o.payment_status WHEN 'refunded' THEN o.total_cents - o.gift_card_total_minor ELSE 0 END, " +
        'NULL, NULL, NULL, o.updated_at, o.updated_at FROM orders o ' +
        "WHERE o.payment_status IN ('paid', 'partially_refunded', 'refunded') " +
        'AND o.total_cents - o.gift_card_total_minor > 0 AND NOT EXISTS (SELECT 1 FROM payments p ' +
        "WHERE p.order_id = o.id AND p.provider <> 'gift_card' " +
        "AND p.status IN ('paid', 'partially_refunded', 'refunded')) ORDER BY o.id",
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // The backfilled payments stay: they record money the orders took.
    await queryRunner.dropTable('order_notes');
    await queryRunner.dropIndex('outbox_events', 'IDX_outbox_events_order');
    await changeTable(queryRunner, 'outbox_events', { dropColumns: ['order_id'] });
    await changeTable(queryRunner, 'payment_refunds', { dropColumns: ['requested_by'] });
    await changeTable(queryRunner, 'payments', { dropColumns: ['recorded_by', 'recorded_at'] });
  }
}
