import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';
import { changeTable } from '../table-changes.js';

/**
 * An order's e-mail in lower case, indexed: a shopper's earlier orders (first-order promotions) are found by
 * account or by e-mail without scanning the orders.
 */
export class IndexOrdersByEmail1763803400000 implements MigrationInterface {
  name = 'IndexOrdersByEmail1763803400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await changeTable(queryRunner, 'orders', {
      addColumns: [{ name: 'email_key', type: 'varchar', length: '254', isNullable: true }],
    });
    await queryRunner.query('UPDATE orders SET email_key = LOWER(email) WHERE email IS NOT NULL');
    await queryRunner.createIndex(
      'orders',
      new TableIndex({ name: 'IDX_orders_email_key', columnNames: ['email_key'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('orders', 'IDX_orders_email_key');
    await changeTable(queryRunner, 'orders', { dropColumns: ['email_key'] });
  }
}
