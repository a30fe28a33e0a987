import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { addCheck } from '../check-constraints.js';
import { changeTable } from '../table-changes.js';
import { datetimeColumn, timestampColumns } from '../timestamps.js';

/**
 * Fulfilments (DESIGN.md §16): shipments of an order's units with carrier and tracking, the units each carries,
 * each item's fulfilled units (kept within its quantity by a CHECK) and the order's fulfillment_status.
 */
export class CreateFulfilments1763803500000 implements MigrationInterface {
  name = 'CreateFulfilments1763803500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await addBoundedUnits(queryRunner, 'fulfilled_quantity', 'quantity', 'CHK_order_items_fulfilled');
    await changeTable(queryRunner, 'orders', {
      addColumns: [{ name: 'fulfillment_status', type: 'varchar', length: '20', default: "'not_fulfilled'" }],
    });
    await queryRunner.createTable(
      new Table({
        name: 'fulfilments',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'order_id', type: 'integer' },
          { name: 'carrier', type: 'varchar', length: '100', isNullable: true },
          { name: 'tracking_number', type: 'varchar', length: '100', isNullable: true },
          { name: 'tracking_url', type: 'varchar', length: '2000', isNullable: true },
          { name: 'notify_customer', type: 'boolean', default: true },
          datetimeColumn(queryRunner, 'shipped_at', { nullable: false }),
          datetimeColumn(queryRunner, 'delivered_at', { nullable: true }),
          datetimeColumn(queryRunner, 'cancelled_at', { nullable: true }),
          // The staff accounts that created, delivered and cancelled it (the order's timeline shows them).
          { name: 'created_by', type: 'integer', isNullable: true },
          { name: 'delivered_by', type: 'integer', isNullable: true },
          { name: 'cancelled_by', type: 'integer', isNullable: true },
          ...timestampColumns(queryRunner, { softDelete: false }),
        ],
        indices: [{ name: 'IDX_fulfilments_order', columnNames: ['order_id'] }],
        foreignKeys: [
          {
            name: 'FK_fulfilments_order',
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
        name: 'fulfilment_items',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'fulfilment_id', type: 'integer' },
          { name: 'order_item_id', type: 'integer' },
          { name: 'quantity', type: 'integer' },
        ],
        indices: [
          { name: 'IDX_fulfilment_items_fulfilment', columnNames: ['fulfilment_id'] },
          { name: 'IDX_fulfilment_items_order_item', columnNames: ['order_item_id'] },
        ],
        foreignKeys: [
          {
            name: 'FK_fulfilment_items_fulfilment',
            columnNames: ['fulfilment_id'],
            referencedTableName: 'fulfilments',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
          {
            name: 'FK_fulfilment_items_order_item',
            columnNames: ['order_item_id'],
            referencedTableName: 'order_items',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );
    await addCheck(queryRunner, 'fulfilment_items', 'CHK_fulfilment_items_quantity', 'quantity > 0');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('fulfilment_items');
    await queryRunner.dropTable('fulfilments');
    await changeTable(queryRunner, 'orders', { dropColumns: ['fulfillment_status'] });
    await dropBoundedUnits(queryRunner, 'fulfilled_quantity', 'CHK_order_items_fulfilled');
  }
}

/**
 * Adds to order_items a count of units (default 0) that a CHECK keeps from 0 to `limit` (another column of the
 * item). On SQLite the
 * CHECK comes with the column (ALTER TABLE ADD COLUMN takes one), so the table, which other tables reference, is
 * not rebuilt.
 */
export async function addBoundedUnits(
  queryRunner: QueryRunner,
  column: string,
  limit: string,
  check: string,
): Promise<void> {
  const expression = `${column} >= 0 AND ${column} <= ${limit}`;
  if (queryRunner.connection.driver.options.type === 'mysql') {
    await changeTable(queryRunner, 'order_items', {
      addColumns: [{ name: column, type: 'integer', default: '0' }],
    });
    await addCheck(queryRunner, 'order_items', check, expression);
    return;
  }
  await queryRunner.query(
    `ALTER TABLE "order_items" ADD COLUMN "${column}" integer NOT NULL DEFAULT 0 CONSTRAINT "${check}" CHECK (${expression})`,
  );
}

export async function dropBoundedUnits(
  queryRunner: QueryRunner,
  column: string,
  check: string,
): Promise<void> {
  if (queryRunner.connection.driver.options.type === 'mysql') {
    await queryRunner.query(`ALTER TABLE \`order_items\` DROP CONSTRAINT \`${check}\``);
  }
  await changeTable(queryRunner, 'order_items', { dropColumns: [column] });
}
