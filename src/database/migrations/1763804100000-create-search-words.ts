import { MigrationInterface, QueryRunner } from 'typeorm';
import { insertDictionaryWords, writeProductWords } from '../../products/product-words.js';

/** Distinct words read per batch by the backfill. */
const BACKFILL_BATCH = 5000;

/**
 * `search_words`, the search's dictionary: the distinct letter-only words of the catalogue, which a search's
 * words may be typos or stems of (src/products/word-dictionary.ts). Filled from product_words. Products whose
 * text has compounds (`t-shirt`) get their words written again, now with the joined word (`tshirt`).
 */
export class CreateSearchWords1763804100000 implements MigrationInterface {
  name = 'CreateSearchWords1763804100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.driver.options.type === 'mysql') {
      await queryRunner.query(
        'CREATE TABLE `search_words` (' +
          '`id` int NOT NULL AUTO_INCREMENT, ' +
          '`word` varchar(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL, ' +
          'PRIMARY KEY (`id`), UNIQUE INDEX `UQ_search_words_word` (`word`)) ENGINE=InnoDB',
      );
    } else {
      await queryRunner.query(
        'CREATE TABLE search_words (id integer PRIMARY KEY AUTOINCREMENT, word varchar(64) NOT NULL, ' +
          'CONSTRAINT UQ_search_words_word UNIQUE (word))',
      );
    }
    const compounds: Array<{ id: number | string }> = await queryRunner.query(
      'SELECT id FROM products WHERE deleted_at IS NULL AND (' +
        ['name', 'description', 'search_text']
          .map((column) => `${column} LIKE '%-%' OR ${column} LIKE '%''%' OR ${column} LIKE '%\u2019%'`)
          .join(' OR ') +
        ') ORDER BY id',
    );
    for (const { id } of compounds) await writeProductWords(queryRunner.manager, Number(id));
    let after = '';
    for (;;) {
      const rows: Array<{ word: string }> = await queryRunner.query(
        'SELECT DISTINCT word FROM product_words WHERE word > ? ORDER BY word LIMIT ?',
        [after, BACKFILL_BATCH],
      );
      if (rows.length === 0) return;
      await insertDictionaryWords(
        queryRunner.manager,
        rows.map((row) => row.word),
      );
      after = rows[rows.length - 1].word;
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE search_words');
  }
}
