import { MigrationInterface, QueryRunner } from 'typeorm';
import type { ProductOption } from '../../products/product-options.js';
import { insertOptionValues, optionValueRows } from '../../products/product-option-values.js';

/** Products indexed per batch by the backfill. */
const BACKFILL_BATCH = 500;

/**
 * `product_option_values`, the index of the products' option values (src/products/product-option-values.ts)
 * that the list's `option[Name]` filter and its options facet read. Names and values are compared as bytes
 * (utf8mb4_bin on MySQL/MariaDB, as SQLite does): names exactly, values by their folded key. Filled from the
 * live products' options in batches.
 */
export class CreateProductOptionValues1763803900000 implements MigrationInterface {
  name = 'CreateProductOptionValues1763803900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.driver.options.type === 'mysql') {
      const text = (length: number) =>
        `varchar(${length}) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL`;
      await queryRunner.query(
        'CREATE TABLE `product_option_values` (' +
          '`product_id` int NOT NULL, ' +
          `\`name\` ${text(50)}, ` +
          `\`value_key\` ${text(255)}, ` +
          `\`value\` ${text(50)}, ` +
          'PRIMARY KEY (`product_id`, `name`, `value_key`), ' +
          'INDEX `IDX_product_option_values_value` (`name`, `value_key`, `product_id`), ' +
          'CONSTRAINT `FK_product_option_values_product` FOREIGN KEY (`product_id`) ' +
          'REFERENCES `products` (`id`) ON DELETE CASCADE) ENGINE=InnoDB',
      );
    } else {
      await queryRunner.query(
        'CREATE TABLE product_option_values (' +
          'product_id integer NOT NULL REFERENCES products (id) ON DELETE CASCADE, ' +
          'name varchar(50) NOT NULL, value_key varchar(255) NOT NULL, value varchar(50) NOT NULL, ' +
          'PRIMARY KEY (product_id, name, value_key)) WITHOUT ROWID',
      );
      await queryRunner.query(
        'CREATE INDEX IDX_product_option_values_value ON product_option_values (name, value_key, product_id)',
      );
    }
    await backfillOptionValues(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE product_option_values');
  }
}

/** The option values of every live product, BACKFILL_BATCH products at a time in id order. */
async function backfillOptionValues(queryRunner: QueryRunner): Promise<void> {
  let afterId = 0;
  for (;;) {
    const rows: Array<{ product_id: number | string; options: string }> = await queryRunner.query(
      'SELECT o.product_id, o.options FROM product_options o INNER JOIN products p ON p.id = o.product_id ' +
        'WHERE o.product_id > ? AND p.deleted_at IS NULL ORDER BY o.product_id LIMIT ?',
      [afterId, BACKFILL_BATCH],
    );
    if (rows.length === 0) return;
    await insertOptionValues(
      queryRunner.manager,
      rows.flatMap((row) =>
        optionValueRows(Number(row.product_id), JSON.parse(row.options) as ProductOption[]),
      ),
    );
    afterId = Number(rows[rows.length - 1].product_id);
  }
}
