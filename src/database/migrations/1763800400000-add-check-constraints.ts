import { MigrationInterface, QueryRunner } from 'typeorm';
import { addCheck, dropCheck } from '../check-constraints.js';

const CHECKS = [
  { table: 'products', name: 'CHK_products_stock', expression: 'stock >= 0' },
  { table: 'products', name: 'CHK_products_price', expression: 'price_cents > 0' },
  { table: 'order_items', name: 'CHK_order_items_quantity', expression: 'quantity > 0' },
];

/**
 * The CHECK constraints on MySQL/MariaDB, and the order-item one everywhere. On SQLite the products checks
 * exist since the table was created (TypeORM keeps `checks` of `new Table` there and drops them on MySQL).
 */
export class AddCheckConstraints1763800400000 implements MigrationInterface {
  name = 'AddCheckConstraints1763800400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const { table, name, expression } of this.missing(queryRunner)) {
      await addCheck(queryRunner, table, name, expression);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const { table, name } of this.missing(queryRunner)) await dropCheck(queryRunner, table, name);
  }

  private missing(queryRunner: QueryRunner) {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    return CHECKS.filter((check) => mysql || check.table !== 'products');
  }
}
