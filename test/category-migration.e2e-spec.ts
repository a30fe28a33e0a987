import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { DataSource, QueryRunner } from 'typeorm';
import { loadConfig } from '../src/config/app-config.js';
import { buildDataSourceOptions } from '../src/database/data-source-options.js';
import { CreateCategories1763801200000 } from '../src/database/migrations/1763801200000-create-categories.js';
import { migrations } from '../src/database/migrations/index.js';
import { changeTable } from '../src/database/table-changes.js';
import { ADMIN_ENV, loginAdmin } from './support/accounts.js';
import { createTestDatabase, startTestApp } from './support/test-app.js';

const FTS_TRIGGERS = ['products_fts_delete', 'products_fts_insert', 'products_fts_update'];
const UPTO_CATEGORIES = migrations.indexOf(CreateCategories1763801200000) + 1;

/** A data source on `url` knowing the first `count` migrations (the database as that release left it). */
async function dataSourceAt(url: string, count: number): Promise<DataSource> {
  const config = loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: 'test-secret-test-secret-test-secret-0123',
    DATABASE_URL: url,
  });
  const dataSource = new DataSource({
    ...(await buildDataSourceOptions(config)),
    migrations: migrations.slice(0, count),
  });
  return dataSource.initialize();
}

// The migration that adds categories and the products → categories foreign key, run on a database that already
// holds products (one deleted), an order referencing them, and searchable words that are stopwords on MariaDB.
describe('categories migration and changeTable', () => {
  let url: string;
  let drop: () => Promise<void>;
  let db: DataSource;
  const mysql = () => db.options.type === 'mysql';

  const triggers = async (): Promise<string[]> =>
    (
      await db.query(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'products' ORDER BY name",
      )
    ).map((row: { name: string }) => row.name);

  /** The columns of the FULLTEXT index of products on MySQL/MariaDB (later migrations add `search_text`). */
  async function fullTextColumns(): Promise<string> {
    const [{ columns }] = await db.query(
      "SELECT GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX SEPARATOR ', ') AS columns " +
        'FROM information_schema.STATISTICS ' +
        "WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'products' AND INDEX_TYPE = 'FULLTEXT'",
    );
    return String(columns);
  }

  /**
   * Product ids matching `word` through the search index of the schema at hand, as the product list searches:
   * the word table once its migration ran, before it the full-text index.
   */
  async function searchIds(word: string): Promise<number[]> {
    const wordTable = await hasTable('product_words');
    const rows: Array<{ id: number }> = wordTable
      ? await db.query('SELECT product_id AS id FROM product_words WHERE word = ? ORDER BY product_id', [
          word,
        ])
      : mysql()
        ? await db.query(
            `SELECT id FROM products WHERE MATCH (${await fullTextColumns()}) AGAINST (? IN BOOLEAN MODE) ORDER BY id`,
            [`+${word}`],
          )
        : await db.query(
            'SELECT p.id FROM products p INNER JOIN products_fts ON products_fts.rowid = p.id WHERE products_fts MATCH ? ORDER BY p.id',
            [`"${word}"`],
          );
    return rows.map((row) => Number(row.id));
  }

  async function hasTable(name: string): Promise<boolean> {
    const [{ n }] = await db.query(
      mysql()
        ? 'SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?'
        : "SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ?",
      [name],
    );
    return Number(n) > 0;
  }

  async function foreignKeysOfProducts(): Promise<string[]> {
    if (mysql()) {
      const rows = await db.query(
        'SELECT CONSTRAINT_NAME AS name FROM information_schema.REFERENTIAL_CONSTRAINTS ' +
          "WHERE CONSTRAINT_SCHEMA = DATABASE() AND TABLE_NAME = 'products'",
      );
      return rows.map((row: { name: string }) => row.name);
    }
    const rows = await db.query("PRAGMA foreign_key_list('products')");
    return rows.map((row: { table: string; from: string }) => `${row.from}->${row.table}`);
  }

  beforeAll(async () => {
    ({ url, drop } = await createTestDatabase());
    db = await dataSourceAt(url, UPTO_CATEGORIES - 1);
    await db.runMigrations();
    await db.query(
      "INSERT INTO users (id, username, email, password_hash) VALUES (1, 'buyer', 'buyer@example.com', 'x')",
    );
    await db.query(
      'INSERT INTO products (id, name, description, price_cents, stock, category_id) VALUES ' +
        "(1, 'Lamp with a shade', 'Reads with ease', 1000, 5, 3), (2, 'Desk', 'Oak', 5000, 1, 3), " +
        "(3, 'Chair', 'Beech', 3000, 2, 9), (4, 'Old stool', 'Pine', 900, 0, 12)",
    );
    await db.query(`UPDATE products SET deleted_at = ${mysql() ? 'NOW(3)' : "datetime('now')"} WHERE id = 4`);
    await db.query(
      'INSERT INTO orders (id, order_number, user_id, total_cents, status, payment_status, shipping_address, ' +
        "payment_method) VALUES (1, 'ORD-1', 1, 1900, 'pending', 'unpaid', '1 Main St', 'paypal')",
    );
    await db.query(
      'INSERT INTO order_items (order_id, product_id, product_name, unit_price_cents, quantity) VALUES ' +
        "(1, 1, 'Lamp with a shade', 1000, 1), (1, 4, 'Old stool', 900, 1)",
    );
    await db.destroy();
    db = await dataSourceAt(url, UPTO_CATEGORIES);
  });

  afterAll(async () => {
    if (db.isInitialized) await db.destroy();
    await drop();
  });

  it('creates a placeholder category for every category id products use (deleted ones too), then the foreign key', async () => {
    expect(await searchIds('with')).toEqual([1]);
    await db.runMigrations();
    const categories = await db.query(
      'SELECT id, name, slug, parent_id, is_active FROM categories ORDER BY id',
    );
    expect(
      categories.map((c: Record<string, unknown>) => ({
        ...c,
        id: Number(c.id),
        is_active: Boolean(c.is_active),
      })),
    ).toEqual([
      { id: 3, name: 'Category 3', slug: 'category-3', parent_id: null, is_active: true },
      { id: 9, name: 'Category 9', slug: 'category-9', parent_id: null, is_active: true },
      { id: 12, name: 'Category 12', slug: 'category-12', parent_id: null, is_active: true },
    ]);
    expect(await foreignKeysOfProducts()).toEqual(
      mysql() ? ['FK_products_category'] : ['category_id->categories'],
    );
    await expect(
      db.query(
        "INSERT INTO products (name, description, price_cents, stock, category_id) VALUES ('X', '', 1, 1, 99)",
      ),
    ).rejects.toThrow(/foreign key/i);
  });

  it('keeps the full-text search (stopword-like words on MariaDB, the FTS5 triggers on SQLite) and the order rows', async () => {
    expect(await searchIds('with')).toEqual([1]);
    expect(await searchIds('a')).toEqual(mysql() ? [] : [1]); // shorter than InnoDB's token size: REGEXP there
    if (!mysql()) {
      expect(await triggers()).toEqual(FTS_TRIGGERS);
      expect(await db.query('PRAGMA foreign_key_check')).toEqual([]);
    }
    // The triggers keep working: a renamed product is found by its new name only.
    await db.query("UPDATE products SET name = 'Chair with arms' WHERE id = 3");
    expect(await searchIds('arms')).toEqual([3]);
    const items = await db.query('SELECT product_id FROM order_items ORDER BY product_id');
    expect(items.map((row: { product_id: number }) => Number(row.product_id))).toEqual([1, 4]);
    await expect(
      db.query(
        "INSERT INTO order_items (order_id, product_id, product_name, unit_price_cents, quantity) VALUES (1, 999, 'x', 1, 1)",
      ),
    ).rejects.toThrow(/foreign key/i);
  });

  it('the service on the migrated database searches "with" and lists the placeholder categories', async () => {
    await db.destroy();
    const t = await startTestApp({ ...ADMIN_ENV, DATABASE_URL: url });
    try {
      const { token } = await loginAdmin(t);
      const found = await request(t.url)
        .get('/api/v1/products?search=with')
        .auth(token, { type: 'bearer' })
        .expect(200);
      expect(found.body.data.map((p: { id: number }) => p.id)).toEqual([1, 3]);
      const listed = await request(t.url)
        .get('/api/v1/categories')
        .auth(token, { type: 'bearer' })
        .expect(200);
      expect(listed.body.data.map((c: { id: number }) => c.id)).toEqual([3, 9, 12]);
      // A new product naming a fresh id gets its placeholder with the next free id after it.
      await request(t.url)
        .post('/api/v1/products')
        .auth(token, { type: 'bearer' })
        .send({ name: 'Shelf', price: 20, stock: 1, category_id: 40 })
        .expect(201);
      const created = await request(t.url)
        .post('/api/v1/categories')
        .auth(token, { type: 'bearer' })
        .send({ name: 'Shelves' })
        .expect(201);
      expect(created.body.data.id).toBe(41);
    } finally {
      await t.app.close();
    }
    // The service ran every migration: the data source knows them all, to revert the later ones first.
    db = await dataSourceAt(url, migrations.length);
  });

  it('reverts: the foreign key and the categories go, products, orders and the search stay', async () => {
    await db.query('DELETE FROM products WHERE id > 4');
    for (let i = migrations.length; i >= UPTO_CATEGORIES; i--) await db.undoLastMigration();
    expect(await foreignKeysOfProducts()).toEqual([]);
    const [{ n }] = await db.query(
      mysql()
        ? "SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'categories'"
        : "SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'categories'",
    );
    expect(Number(n)).toBe(0);
    const [{ products }] = await db.query('SELECT COUNT(*) AS products FROM products');
    expect(Number(products)).toBe(4);
    expect(await searchIds('with')).toEqual([1, 3]);
    if (!mysql()) {
      expect(await triggers()).toEqual(FTS_TRIGGERS);
      expect(await db.query('PRAGMA foreign_key_check')).toEqual([]);
    }
    // And up again.
    await db.runMigrations();
    expect(
      (await db.query('SELECT id FROM categories ORDER BY id')).map((c: { id: number }) => Number(c.id)),
    ).toEqual([3, 9, 12]);
  });

  describe('changeTable', () => {
    let queryRunner: QueryRunner;
    let triggersBefore: string[];
    let wordRowsBefore: number;
    const wordRows = async () => Number((await db.query('SELECT COUNT(*) AS n FROM product_words'))[0].n);

    beforeAll(async () => {
      queryRunner = db.createQueryRunner();
      triggersBefore = mysql() ? [] : await triggers();
      wordRowsBefore = await wordRows();
    });

    afterAll(async () => {
      await queryRunner.release();
    });

    it('adds and drops a column of products in place: rows, search (the word table, not cascaded away) and triggers kept', async () => {
      await changeTable(queryRunner, 'products', {
        addColumns: [{ name: 'probe_rank', type: 'integer', default: '7' }],
      });
      const rows = await db.query('SELECT id, probe_rank FROM products ORDER BY id');
      expect(rows.map((row: { probe_rank: number }) => Number(row.probe_rank))).toEqual([7, 7, 7, 7]);
      expect(await searchIds('with')).toEqual([1, 3]);
      if (!mysql()) expect(await triggers()).toEqual(triggersBefore);
      await changeTable(queryRunner, 'products', { dropColumns: ['probe_rank'] });
      await expect(db.query('SELECT probe_rank FROM products')).rejects.toThrow();
      expect(await searchIds('with')).toEqual([1, 3]);
      expect(wordRowsBefore).toBeGreaterThan(0);
      expect(await wordRows()).toBe(wordRowsBefore);
    });

    it('refuses a column that is neither nullable nor defaulted, before changing anything', async () => {
      await expect(
        changeTable(queryRunner, 'products', { addColumns: [{ name: 'probe_required', type: 'integer' }] }),
      ).rejects.toThrow(/needs a default or to be nullable/);
    });

    it('fails a foreign key that existing rows break, and leaves no key behind', async () => {
      await db.query(
        "INSERT INTO products (name, description, price_cents, stock, category_id) VALUES ('Y', '', 1, 1, 3)",
      );
      await changeTable(queryRunner, 'products', {
        addColumns: [{ name: 'probe_user_id', type: 'integer', isNullable: true }],
      });
      await db.query('UPDATE products SET probe_user_id = 77 WHERE id = 1');
      await expect(
        changeTable(queryRunner, 'products', {
          addForeignKeys: [{ name: 'FK_products_probe_user', column: 'probe_user_id', references: 'users' }],
        }),
      ).rejects.toThrow(/reference missing rows|break FK_products_probe_user/);
      expect(await foreignKeysOfProducts()).toEqual(
        mysql() ? ['FK_products_category'] : ['category_id->categories'],
      );
      if (mysql()) {
        const indexes = await db.query(
          "SELECT INDEX_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND INDEX_NAME = 'FK_products_probe_user'",
        );
        expect(indexes).toEqual([]);
      }

      await db.query('UPDATE products SET probe_user_id = 1 WHERE id = 1');
      await changeTable(queryRunner, 'products', {
        addForeignKeys: [{ name: 'FK_products_probe_user', column: 'probe_user_id', references: 'users' }],
      });
      expect((await foreignKeysOfProducts()).sort()).toEqual(
        mysql()
          ? ['FK_products_category', 'FK_products_probe_user']
          : ['category_id->categories', 'probe_user_id->users'],
      );
      await changeTable(queryRunner, 'products', {
        dropForeignKeys: ['FK_products_probe_user'],
        dropColumns: mysql() ? [] : ['probe_user_id'],
      });
      if (mysql()) {
        // MySQL keeps the index it made for the key; it goes before the column.
        await db.query('ALTER TABLE products DROP INDEX FK_products_probe_user');
        await changeTable(queryRunner, 'products', { dropColumns: ['probe_user_id'] });
      }
      expect(await foreignKeysOfProducts()).toEqual(
        mysql() ? ['FK_products_category'] : ['category_id->categories'],
      );
      expect(await searchIds('with')).toEqual([1, 3]);
      expect(await wordRows()).toBe(wordRowsBefore);
      if (!mysql()) expect(await triggers()).toEqual(triggersBefore);
    });
  });
});
