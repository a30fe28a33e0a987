import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { slugify } from '../../common/slug.js';
import { refreshSearchText } from '../../products/product-statements.js';

/** Products given their slug per statement by the backfill. */
const SLUG_BATCH = 500;

const FTS_TRIGGERS = ['products_fts_insert', 'products_fts_delete', 'products_fts_update'];

/**
 * Several images per product, a unique slug, and `search_text` (what else than name and description a search
 * matches: variant SKUs and titles) in the full-text index.
 *
 * `products` is changed in place on both databases: `ALTER TABLE … ADD COLUMN` of nullable columns (no TypeORM
 * rebuild, so on SQLite the FTS triggers and the foreign keys of order items stay as they are). The full-text
 * index is replaced by one over the three columns: on MySQL/MariaDB built with the stopword list off (as
 * migration 1763800800000 did; any ALTER of `products` here runs with it off, in case MariaDB rebuilds the
 * table), on SQLite the FTS5 table and its triggers are created again with the new column.
 *
 * Existing products get their slugs in batches (in id order, so the first product of a name keeps the bare
 * slug); soft-deleted products get none (a deleted product gives its slug up). Their `image`, when set,
 * becomes their first image.
 */
export class AddProductImagesSlugsAndSearchText1763802400000 implements MigrationInterface {
  name = 'AddProductImagesSlugsAndSearchText1763802400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    await queryRunner.createTable(
      new Table({
        name: 'product_images',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'product_id', type: 'integer' },
          // A path returned by POST /upload, as `products.image`.
          { name: 'path', type: 'varchar', length: '255' },
          { name: 'alt', type: 'varchar', length: '255', default: "''" },
          { name: 'position', type: 'integer' },
        ],
        foreignKeys: [
          {
            name: 'FK_product_images_product',
            columnNames: ['product_id'],
            referencedTableName: 'products',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
        indices: [
          {
            name: 'UQ_product_images_product_position',
            columnNames: ['product_id', 'position'],
            isUnique: true,
          },
          // "Is this file a product's image?" for the orphan removal and for deletes of uploads.
          { name: 'IDX_product_images_path', columnNames: ['path'] },
        ],
      }),
    );
    await queryRunner.query(
      'INSERT INTO product_images (product_id, path, alt, position) ' +
        "SELECT id, image, '', 0 FROM products WHERE image <> ''",
    );

    if (mysql) {
      await withoutStopwords(queryRunner, async () => {
        await queryRunner.query(
          'ALTER TABLE `products` ADD COLUMN `slug` VARCHAR(200) NULL, ADD COLUMN `search_text` TEXT NULL',
        );
        await queryRunner.query('ALTER TABLE `products` DROP INDEX `FT_products_name_description`');
        await queryRunner.query(
          'ALTER TABLE `products` ADD FULLTEXT INDEX `FT_products_search` (`name`, `description`, `search_text`)',
        );
      });
    } else {
      await queryRunner.query('ALTER TABLE products ADD COLUMN slug VARCHAR(200) COLLATE NOCASE NULL');
      await queryRunner.query('ALTER TABLE products ADD COLUMN search_text TEXT NULL');
      await replaceSqliteSearch(queryRunner, ['name', 'description', 'search_text']);
    }

    await backfillSlugs(queryRunner);
    await queryRunner.query('CREATE UNIQUE INDEX UQ_products_slug ON products (slug)');
    // "Is this file a variant's image?" for the orphan removal and for deletes of uploads.
    await queryRunner.query('CREATE INDEX IDX_product_variants_image ON product_variants (image)');
    await backfillSearchText(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    const on = (table: string) => (mysql ? ` ON ${table}` : '');
    await queryRunner.query(`DROP INDEX IDX_product_variants_image${on('product_variants')}`);
    await queryRunner.query(`DROP INDEX UQ_products_slug${on('products')}`);
    if (mysql) {
      await withoutStopwords(queryRunner, async () => {
        await queryRunner.query('ALTER TABLE `products` DROP INDEX `FT_products_search`');
        await queryRunner.query('ALTER TABLE `products` DROP COLUMN `slug`, DROP COLUMN `search_text`');
        await queryRunner.query(
          'ALTER TABLE `products` ADD FULLTEXT INDEX `FT_products_name_description` (`name`, `description`)',
        );
      });
    } else {
      await replaceSqliteSearch(queryRunner, ['name', 'description']);
      await queryRunner.query('ALTER TABLE products DROP COLUMN slug');
      await queryRunner.query('ALTER TABLE products DROP COLUMN search_text');
    }
    await queryRunner.dropTable('product_images');
  }
}

/** Runs MySQL/MariaDB DDL with the stopword list off, so that a full-text index it builds indexes every word. */
export async function withoutStopwords(queryRunner: QueryRunner, work: () => Promise<void>): Promise<void> {
  await queryRunner.query('SET SESSION innodb_ft_enable_stopword = OFF');
  try {
    await work();
  } finally {
    await queryRunner.query('SET SESSION innodb_ft_enable_stopword = ON');
  }
}

/** The FTS5 table of `products` and its triggers, created again over `columns` and filled from the table. */
export async function replaceSqliteSearch(queryRunner: QueryRunner, columns: string[]): Promise<void> {
  for (const trigger of FTS_TRIGGERS) await queryRunner.query(`DROP TRIGGER IF EXISTS ${trigger}`);
  await queryRunner.query('DROP TABLE IF EXISTS products_fts');
  const list = columns.join(', ');
  const values = (row: string) => columns.map((column) => `${row}.${column}`).join(', ');
  // `_` is part of a word, as in InnoDB; letters are folded to lower case and their diacritics removed.
  await queryRunner.query(
    `CREATE VIRTUAL TABLE products_fts USING fts5(${list}, content='products', content_rowid='id', ` +
      `tokenize="unicode61 remove_diacritics 2 tokenchars '_'")`,
  );
  await queryRunner.query(
    `CREATE TRIGGER products_fts_insert AFTER INSERT ON products BEGIN
       INSERT INTO products_fts (rowid, ${list}) VALUES (new.id, ${values('new')});
     END`,
  );
  await queryRunner.query(
    `CREATE TRIGGER products_fts_delete AFTER DELETE ON products BEGIN
       INSERT INTO products_fts (products_fts, rowid, ${list}) VALUES ('delete', old.id, ${values('old')});
     END`,
  );
  await queryRunner.query(
    `CREATE TRIGGER products_fts_update AFTER UPDATE OF ${list} ON products BEGIN
       INSERT INTO products_fts (products_fts, rowid, ${list}) VALUES ('delete', old.id, ${values('old')});
       INSERT INTO products_fts (rowid, ${list}) VALUES (new.id, ${values('new')});
     END`,
  );
  await queryRunner.query(`INSERT INTO products_fts (products_fts) VALUES ('rebuild')`);
}

/** The search text of the products that have variants, SLUG_BATCH products at a time. */
async function backfillSearchText(queryRunner: QueryRunner): Promise<void> {
  const manager = queryRunner.manager;
  let afterId = 0;
  for (;;) {
    const rows: Array<{ product_id: number | string }> = await queryRunner.query(
      'SELECT DISTINCT product_id FROM product_variants WHERE product_id > ? ORDER BY product_id LIMIT ?',
      [afterId, SLUG_BATCH],
    );
    if (rows.length === 0) return;
    for (const row of rows) await refreshSearchText(manager, Number(row.product_id));
    afterId = Number(rows[rows.length - 1].product_id);
  }
}

/**
 * Gives every live product without a slug the one its name gives, in id order, a numeric suffix on a
 * collision; SLUG_BATCH products per UPDATE, so that a large catalogue is never held in one statement.
 */
async function backfillSlugs(queryRunner: QueryRunner): Promise<void> {
  const taken = new Set<string>();
  /** Per slug of a name, the next suffix to try: each collision costs one look-up, however many share it. */
  const nextSuffix = new Map<string, number>();
  let afterId = 0;
  for (;;) {
    const rows: Array<{ id: number | string; name: string }> = await queryRunner.query(
      'SELECT id, name FROM products WHERE slug IS NULL AND deleted_at IS NULL AND id > ? ORDER BY id LIMIT ?',
      [afterId, SLUG_BATCH],
    );
    if (rows.length === 0) return;
    const cases: string[] = [];
    const params: unknown[] = [];
    for (const row of rows) {
      const base = slugify(row.name, 'product');
      let slug = base;
      if (taken.has(slug)) {
        let suffix = nextSuffix.get(base) ?? 2;
        while (taken.has(`${base}-${suffix}`)) suffix += 1;
        slug = `${base}-${suffix}`;
        nextSuffix.set(base, suffix + 1);
      }
      taken.add(slug);
      cases.push('WHEN ? THEN ?');
      params.push(Number(row.id), slug);
    }
    const ids = rows.map((row) => Number(row.id));
    await queryRunner.query(
      `UPDATE products SET slug = CASE id ${cases.join(' ')} END WHERE id IN (${ids.map(() => '?').join(', ')})`,
      [...params, ...ids],
    );
    afterId = ids[ids.length - 1];
  }
}
