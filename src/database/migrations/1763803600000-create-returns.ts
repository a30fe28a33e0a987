import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { addCheck } from '../check-constraints.js';
import { datetimeColumn, timestampColumns } from '../timestamps.js';
import { addBoundedUnits, dropBoundedUnits } from './1763803500000-create-fulfilments.js';

/**
 * Returns (DESIGN.md §16): what the customer sends back, each item's units and their share of the line's total,
 * and each order item's units in a return (kept within its fulfilled units by a CHECK).
 */
export class CreateReturns1763803600000 implements MigrationInterface {
  name = 'CreateReturns1763803600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await addBoundedUnits(queryRunner, 'returned_quantity', 'fulfilled_quantity', 'CHK_order_items_returned');
    await queryRunner.createTable(
      new Table({
        name: 'returns',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'order_id', type: 'integer' },
          // requested | received | rejected
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'currency_code', type: 'varchar', length: '3' },
          { name: 'note', type: 'varchar', length: '1000', isNullable: true },
          // What it refunds (minor units): the requested units' shares, then the received ones' (and shipping).
          { name: 'refund_amount_minor', type: 'bigint' },
          { name: 'refund_shipping', type: 'boolean', default: false },
          // The order whose shipping this return refunds: unique, so the shipping is refunded once per order.
          { name: 'shipping_refund_order_id', type: 'integer', isNullable: true, isUnique: true },
          // null until received; pending | succeeded | failed; the attempt names the refund's idempotency key.
          { name: 'refund_status', type: 'varchar', length: '16', isNullable: true },
          { name: 'refund_attempt', type: 'integer', default: 0 },
          { name: 'refund_error', type: 'varchar', length: '500', isNullable: true },
          { name: 'reject_reason', type: 'varchar', length: '500', isNullable: true },
          // Who requested it (the customer; null for a guest), received and rejected it (staff).
          { name: 'requested_by', type: 'integer', isNullable: true },
          { name: 'received_by', type: 'integer', isNullable: true },
          { name: 'rejected_by', type: 'integer', isNullable: true },
          datetimeColumn(queryRunner, 'received_at', { nullable: true }),
          datetimeColumn(queryRunner, 'rejected_at', { nullable: true }),
          ...timestampColumns(queryRunner, { softDelete: false }),
        ],
        indices: [
          { name: 'IDX_returns_order', columnNames: ['order_id'] },
          { name: 'IDX_returns_status', columnNames: ['status', 'id'] },
        ],
        foreignKeys: [
          {
            name: 'FK_returns_order',
            columnNames: ['order_id'],
            referencedTableName: 'orders',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'return_items',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'return_id', type: 'integer' },
          { name: 'order_item_id', type: 'integer' },
          { name: 'quantity', type: 'integer' },
          // Its units are the line's returned units first_unit + 1 … first_unit + quantity (their shares).
          { name: 'first_unit', type: 'integer' },
          { name: 'reason', type: 'varchar', length: '255', isNullable: true },
          { name: 'refund_minor', type: 'bigint' },
          { name: 'received_quantity', type: 'integer', isNullable: true },
          { name: 'restock', type: 'boolean', default: false },
        ],
        indices: [
          { name: 'IDX_return_items_return', columnNames: ['return_id'] },
          { name: 'IDX_return_items_order_item', columnNames: ['order_item_id'] },
        ],
        foreignKeys: [
          {
            name: 'FK_return_items_return',
            columnNames: ['return_id'],
            referencedTableName: 'returns',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
          {
            name: 'FK_return_items_order_item',
            columnNames: ['order_item_id'],
            referencedTableName: 'order_items',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );
    await addCheck(queryRunner, 'return_items', 'CHK_return_items_quantity', 'quantity > 0');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('return_items');
    await queryRunner.dropTable('returns');
    await dropBoundedUnits(queryRunner, 'returned_quantity', 'CHK_order_items_returned');
  }
}
