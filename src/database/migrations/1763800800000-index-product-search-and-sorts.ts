import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

const SORT_COLUMNS = ['price_cents', 'name', 'created_at'];

/**
 * The product list's indexes: for every sort (id, price, name, created_at, either direction) one index that
 * holds the filter's equality columns and then the sort key, so a page, a deep offset and a keyset page are
 * read in index order (id is the tie-breaker; InnoDB and SQLite append the row id to every index, and it is
 * named here so that both use it). Ordering by id is served by IDX_products_visible and
 * IDX_products_category_visible, which already end in the row id.
 *
 * And the full-text index of name and description: InnoDB FULLTEXT on MySQL/MariaDB, built with the stopword
 * list off so that "the" or "with" are words like any other; on SQLite an FTS5 table whose content is the
 * products table, kept in step by triggers. A later migration that makes SQLite rebuild `products` (TypeORM
 * does so to change a column) drops these triggers with the old table and must create them again.
 */
export class IndexProductSearchAndSorts1763800800000 implements MigrationInterface {
  name = 'IndexProductSearchAndSorts1763800800000';

  private readonly indices = SORT_COLUMNS.flatMap((column) => [
    new TableIndex({
      name: `IDX_products_visible_${column}`,
      columnNames: ['is_active', 'deleted_at', column, 'id'],
    }),
    new TableIndex({
      name: `IDX_products_category_visible_${column}`,
      columnNames: ['category_id', 'is_active', 'deleted_at', column, 'id'],
    }),
  ]);

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndices('products', this.indices);
    if (queryRunner.connection.driver.options.type === 'mysql') {
      // Read when the index is created (and stored with it): the words of the server's stopword list are
      // indexed too. ALTER TABLE ... ADD FULLTEXT cannot run in the migration's transaction; MySQL commits it.
      await queryRunner.query('SET SESSION innodb_ft_enable_stopword = OFF');
      try {
        await queryRunner.query(
          'ALTER TABLE `products` ADD FULLTEXT INDEX `FT_products_name_description` (`name`, `description`)',
        );
      } finally {
        await queryRunner.query('SET SESSION innodb_ft_enable_stopword = ON');
      }
      return;
    }
    // `_` is part of a word, as in InnoDB; letters are folded to lower case and their diacritics removed.
    await queryRunner.query(
      `CREATE VIRTUAL TABLE products_fts USING fts5(name, description, content='products', content_rowid='id', ` +
        `tokenize="unicode61 remove_diacritics 2 tokenchars '_'")`,
    );
    await queryRunner.query(
      `CREATE TRIGGER products_fts_insert AFTER INSERT ON products BEGIN
         INSERT INTO products_fts (rowid, name, description) VALUES (new.id, new.name, new.description);
       END`,
    );
    await queryRunner.query(
      `CREATE TRIGGER products_fts_delete AFTER DELETE ON products BEGIN
         INSERT INTO products_fts (products_fts, rowid, name, description)
         VALUES ('delete', old.id, old.name, old.description);
       END`,
    );
    await queryRunner.query(
      `CREATE TRIGGER products_fts_update AFTER UPDATE OF name, description ON products BEGIN
         INSERT INTO products_fts (products_fts, rowid, name, description)
         VALUES ('delete', old.id, old.name, old.description);
         INSERT INTO products_fts (rowid, name, description) VALUES (new.id, new.name, new.description);
       END`,
    );
    await queryRunner.query(`INSERT INTO products_fts (products_fts) VALUES ('rebuild')`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.driver.options.type === 'mysql') {
      await queryRunner.query('ALTER TABLE `products` DROP INDEX `FT_products_name_description`');
    } else {
      for (const trigger of ['products_fts_insert', 'products_fts_delete', 'products_fts_update']) {
        await queryRunner.query(`DROP TRIGGER ${trigger}`);
      }
      await queryRunner.query('DROP TABLE products_fts');
    }
    for (const index of this.indices) await queryRunner.dropIndex('products', index);
  }
}
