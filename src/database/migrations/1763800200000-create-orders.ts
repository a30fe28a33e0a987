import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { timestampColumns } from '../timestamps.js';

export class CreateOrders1763800200000 implements MigrationInterface {
  name = 'CreateOrders1763800200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'orders',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'order_number', type: 'varchar', length: '32' },
          { name: 'user_id', type: 'integer' },
          { name: 'total_cents', type: 'bigint' },
          { name: 'status', type: 'varchar', length: '16' },
          { name: 'payment_status', type: 'varchar', length: '16' },
          { name: 'shipping_address', type: 'varchar', length: '255' },
          { name: 'payment_method', type: 'varchar', length: '32' },
          { name: 'idempotency_key', type: 'varchar', length: '128', isNullable: true },
          { name: 'request_hash', type: 'varchar', length: '64', isNullable: true },
          ...timestampColumns(queryRunner, { softDelete: false }),
        ],
        foreignKeys: [
          {
            name: 'FK_orders_user',
            columnNames: ['user_id'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'RESTRICT',
          },
        ],
        indices: [
          { name: 'UQ_orders_order_number', columnNames: ['order_number'], isUnique: true },
          // Lists: a user's orders newest first (the index also holds id), optionally by status.
          { name: 'IDX_orders_user', columnNames: ['user_id'] },
          { name: 'IDX_orders_user_status', columnNames: ['user_id', 'status'] },
          // NULL keys do not collide, so orders without a key are unconstrained.
          {
            name: 'UQ_orders_user_idempotency_key',
            columnNames: ['user_id', 'idempotency_key'],
            isUnique: true,
          },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'order_items',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'order_id', type: 'integer' },
          { name: 'product_id', type: 'integer' },
          { name: 'product_name', type: 'varchar', length: '200' },
          { name: 'unit_price_cents', type: 'integer' },
          { name: 'quantity', type: 'integer' },
        ],
        foreignKeys: [
          {
            name: 'FK_order_items_order',
            columnNames: ['order_id'],
            referencedTableName: 'orders',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
          {
            name: 'FK_order_items_product',
            columnNames: ['product_id'],
            referencedTableName: 'products',
            referencedColumnNames: ['id'],
            onDelete: 'RESTRICT',
          },
        ],
        indices: [
          { name: 'IDX_order_items_order', columnNames: ['order_id'] },
          { name: 'IDX_order_items_product', columnNames: ['product_id'] },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('order_items');
    await queryRunner.dropTable('orders');
  }
}
