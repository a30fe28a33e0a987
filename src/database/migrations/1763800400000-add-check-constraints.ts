import { MigrationInterface, QueryRunner, TableCheck } from 'typeorm';

const CHECKS = [
  { table: 'products', name: 'CHK_products_stock', expression: 'stock >= 0' },
  { table: 'products', name: 'CHK_products_price', expression: 'price_cents > 0' },
  { table: 'order_items', name: 'CHK_order_items_quantity', expression: 'quantity > 0' },
];

/**
 * The CHECK constraints on MySQL/MariaDB, and the order-item one everywhere. TypeORM's table API creates
 * `checks` on SQLite but silently leaves them out on MySQL, so there they are added here with plain SQL
 * (enforced by MariaDB since 10.2 and MySQL since 8.0.16). The statement fails if existing rows break a rule:
 * such rows must be corrected first, never silently changed by a migration.
 */
export class AddCheckConstraints1763800400000 implements MigrationInterface {
  name = 'AddCheckConstraints1763800400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.driver.options.type === 'mysql') {
      for (const { table, name, expression } of CHECKS) {
        await queryRunner.query(`ALTER TABLE \`${table}\` ADD CONSTRAINT \`${name}\` CHECK (${expression})`);
      }
      return;
    }
    // SQLite rebuilds the table to add a constraint; the products checks exist since the table was created.
    const quantity = CHECKS[2];
    await queryRunner.createCheckConstraint(
      quantity.table,
      new TableCheck({ name: quantity.name, expression: quantity.expression }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.driver.options.type === 'mysql') {
      for (const { table, name } of CHECKS) {
        await queryRunner.query(`ALTER TABLE \`${table}\` DROP CONSTRAINT \`${name}\``);
      }
      return;
    }
    await queryRunner.dropCheckConstraint(CHECKS[2].table, CHECKS[2].name);
  }
}
