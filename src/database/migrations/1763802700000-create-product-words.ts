import { MigrationInterface, QueryRunner } from 'typeorm';
import { insertProductWords, productWordRows } from '../../products/product-words.js';
import {
  replaceSqliteSearch,
  withoutStopwords,
} from './1763802400000-add-product-images-slugs-and-search-text.js';

/** Products indexed per batch by the backfill. */
const BACKFILL_BATCH = 500;

/**
 * `product_words`, the search's own index (src/products/product-words.ts), in place of the databases' full-text
 * indexes: InnoDB FULLTEXT scores every match of a word and FTS5's bm25 too, so a common word cost seconds at a
 * million products. Filled from the live products in batches; the FULLTEXT index (MySQL/MariaDB) and the FTS5
 * table with its triggers (SQLite) are dropped. `down` builds them again.
 */
export class CreateProductWords1763802700000 implements MigrationInterface {
  name = 'CreateProductWords1763802700000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    if (mysql) {
      await queryRunner.query(
        'CREATE TABLE `product_words` (' +
          '`product_id` int NOT NULL, ' +
          '`word` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL, ' +
          '`weight` smallint NOT NULL, ' +
          '`rank` smallint NOT NULL, ' +
          'PRIMARY KEY (`product_id`, `word`), ' +
          'INDEX `IDX_product_words_word` (`word`, `rank`, `product_id`), ' +
          'CONSTRAINT `FK_product_words_product` FOREIGN KEY (`product_id`) REFERENCES `products` (`id`) ' +
          'ON DELETE CASCADE) ENGINE=InnoDB',
      );
    } else {
      await queryRunner.query(
        'CREATE TABLE product_words (' +
          'product_id integer NOT NULL REFERENCES products (id) ON DELETE CASCADE, ' +
          'word varchar(64) NOT NULL, weight smallint NOT NULL, `rank` smallint NOT NULL, ' +
          'PRIMARY KEY (product_id, word)) WITHOUT ROWID',
      );
      await queryRunner.query(
        'CREATE INDEX IDX_product_words_word ON product_words (word, `rank`, product_id)',
      );
    }
    await backfillProductWords(queryRunner);
    if (mysql) {
      await queryRunner.query('ALTER TABLE `products` DROP INDEX `FT_products_search`');
    } else {
      for (const trigger of ['products_fts_insert', 'products_fts_delete', 'products_fts_update']) {
        await queryRunner.query(`DROP TRIGGER IF EXISTS ${trigger}`);
      }
      await queryRunner.query('DROP TABLE IF EXISTS products_fts');
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.driver.options.type === 'mysql') {
      await withoutStopwords(queryRunner, () =>
        queryRunner.query(
          'ALTER TABLE `products` ADD FULLTEXT INDEX `FT_products_search` (`name`, `description`, `search_text`)',
        ),
      );
    } else {
      await replaceSqliteSearch(queryRunner, ['name', 'description', 'search_text']);
    }
    await queryRunner.query('DROP TABLE product_words');
  }
}

/** The words of every live product, BACKFILL_BATCH products at a time in id order. */
async function backfillProductWords(queryRunner: QueryRunner): Promise<void> {
  let afterId = 0;
  for (;;) {
    const rows: Array<{
      id: number | string;
      name: string;
      description: string | null;
      search_text: string | null;
      is_active: number | boolean;
    }> = await queryRunner.query(
      'SELECT id, name, description, search_text, is_active FROM products ' +
        'WHERE id > ? AND deleted_at IS NULL ORDER BY id LIMIT ?',
      [afterId, BACKFILL_BATCH],
    );
    if (rows.length === 0) return;
    await insertProductWords(
      queryRunner.manager,
      rows.flatMap((row) =>
        productWordRows(Number(row.id), {
          name: row.name,
          description: row.description,
          searchText: row.search_text,
          active: Boolean(row.is_active),
        }),
      ),
    );
    afterId = Number(rows[rows.length - 1].id);
  }
}
