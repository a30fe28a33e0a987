import { MigrationInterface, QueryRunner, Table } from 'typeorm';

/**
 * One row whose `generation` every product write through the service raises in its own transaction, so that
 * the product list's totals can be kept until the catalogue changes (src/products/product-list-totals.ts).
 */
export class CreateCatalogState1763800900000 implements MigrationInterface {
  name = 'CreateCatalogState1763800900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'catalog_state',
        columns: [
          { name: 'id', type: 'integer', isPrimary: true },
          { name: 'generation', type: 'bigint', default: 0 },
        ],
      }),
    );
    await queryRunner.query('INSERT INTO catalog_state (id, generation) VALUES (1, 0)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('catalog_state');
  }
}
