import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { addCheck } from '../check-constraints.js';
import { timestampColumns } from '../timestamps.js';

const VARIANT_CHECKS = [
  { name: 'CHK_product_variants_stock', expression: 'stock >= 0' },
  { name: 'CHK_product_variants_price', expression: 'price_cents > 0' },
];

/**
 * Options and variants of products, and the variant an order item was for. New tables and nullable columns
 * added in place (`ALTER TABLE ... ADD COLUMN`): `products` itself is not touched, so neither its full-text
 * index nor its FTS triggers are rebuilt, and no existing row changes.
 */
export class CreateProductVariants1763801400000 implements MigrationInterface {
  name = 'CreateProductVariants1763801400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    // A product's options, `[{"name":"Size","values":["S","M"]}]`; no row for a product that never had any.
    await queryRunner.createTable(
      new Table({
        name: 'product_options',
        columns: [
          { name: 'product_id', type: 'integer', isPrimary: true },
          { name: 'options', type: 'text' },
        ],
        foreignKeys: [
          {
            name: 'FK_product_options_product',
            columnNames: ['product_id'],
            referencedTableName: 'products',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'product_variants',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'product_id', type: 'integer' },
          { name: 'sku', type: 'varchar', length: '64' },
          // The SKU in lower case while the variant is live, NULL once deleted (NULLs never collide): SKUs are
          // unique ignoring case among live variants, and a deleted variant's SKU may be used again.
          { name: 'sku_key', type: 'varchar', length: '64', isNullable: true },
          { name: 'title', type: 'varchar', length: '200' },
          // The option values, `{"Size":"M","Colour":"Red"}`.
          { name: 'options', type: 'text' },
          // SHA-256 of the option values in the product's option order while live, NULL once deleted.
          { name: 'option_key', type: 'varchar', length: '64', isNullable: true },
          { name: 'price_cents', type: 'integer' },
          { name: 'stock', type: 'integer' },
          { name: 'is_active', type: 'boolean', default: true },
          { name: 'image', type: 'varchar', length: '255', default: "''" },
          { name: 'position', type: 'integer', default: 0 },
          ...timestampColumns(queryRunner, { softDelete: true }),
        ],
        // Kept by SQLite; MySQL/MariaDB get them from addCheck below.
        checks: VARIANT_CHECKS,
        foreignKeys: [
          {
            name: 'FK_product_variants_product',
            columnNames: ['product_id'],
            referencedTableName: 'products',
            referencedColumnNames: ['id'],
            onDelete: 'RESTRICT',
          },
        ],
        indices: [
          { name: 'UQ_product_variants_sku_key', columnNames: ['sku_key'], isUnique: true },
          {
            name: 'UQ_product_variants_option_key',
            columnNames: ['product_id', 'option_key'],
            isUnique: true,
          },
          // A product's variants, and "has it active variants?" of every order by product id.
          { name: 'IDX_product_variants_product', columnNames: ['product_id', 'is_active', 'deleted_at'] },
        ],
      }),
    );
    if (mysql) {
      for (const { name, expression } of VARIANT_CHECKS) {
        await addCheck(queryRunner, 'product_variants', name, expression);
      }
    }
    // Snapshots of the variant ordered; NULL for an item of a product without variants. Variants are only ever
    // soft-deleted, so variant_id keeps pointing at its row.
    await queryRunner.query('ALTER TABLE order_items ADD COLUMN variant_id integer NULL');
    await queryRunner.query('ALTER TABLE order_items ADD COLUMN sku varchar(64) NULL');
    await queryRunner.query('ALTER TABLE order_items ADD COLUMN variant_title varchar(200) NULL');
    await queryRunner.query('CREATE INDEX IDX_order_items_variant ON order_items (variant_id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    await queryRunner.query(
      mysql ? 'DROP INDEX IDX_order_items_variant ON order_items' : 'DROP INDEX IDX_order_items_variant',
    );
    for (const column of ['variant_title', 'sku', 'variant_id']) {
      await queryRunner.query(`ALTER TABLE order_items DROP COLUMN ${column}`);
    }
    await queryRunner.dropTable('product_variants');
    await queryRunner.dropTable('product_options');
  }
}
