import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/config/app-config.js';
import { buildDataSourceOptions } from '../src/database/data-source-options.js';
import { migrations } from '../src/database/migrations/index.js';
import { revertThrough } from './support/migrations.js';
import { createTestDatabase } from './support/test-app.js';

/** Whether orders.user_id takes NULL, as the database itself says. */
async function userIdNullable(db: DataSource): Promise<boolean> {
  if (db.options.type === 'mysql') {
    const [row] = await db.query(
      "SELECT IS_NULLABLE AS nullable FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'orders' AND COLUMN_NAME = 'user_id'",
    );
    return row.nullable === 'YES';
  }
  const columns: Array<{ name: string; notnull: number }> = await db.query("PRAGMA table_info('orders')");
  return columns.find((column) => column.name === 'user_id')!.notnull === 0;
}

// The carts migration turns orders.user_id nullable in place (guest orders) and adds the cart columns; its
// revert removes guest orders and makes the column NOT NULL again. Both on the database of the run.
describe('carts migration', () => {
  let db: DataSource;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    const config = loadConfig({
      NODE_ENV: 'test',
      JWT_SECRET: 'test-secret-test-secret-test-secret-0123',
      DATABASE_URL: database.url,
    });
    db = await new DataSource({ ...(await buildDataSourceOptions(config)), migrations }).initialize();
    await db.runMigrations({ transaction: 'each' });
  });

  afterAll(async () => {
    await db.destroy();
    await drop();
  });

  it('up: a guest order (user_id NULL) is accepted, its foreign key to users still enforced for others', async () => {
    expect(await userIdNullable(db)).toBe(true);
    await db.query(
      "INSERT INTO orders (order_number, user_id, total_cents, status, payment_status, shipping_address, payment_method, email) VALUES ('ORD-G', NULL, 100, 'pending', 'pending', 'x', 'credit_card', 'g@example.com')",
    );
    await expect(
      db.query(
        "INSERT INTO orders (order_number, user_id, total_cents, status, payment_status, shipping_address, payment_method) VALUES ('ORD-X', 999999, 100, 'pending', 'pending', 'x', 'credit_card')",
      ),
    ).rejects.toThrow();
  });

  it('down removes guest orders and makes user_id NOT NULL again; up again restores it', async () => {
    await revertThrough(db, 'CreateCarts1763802500000', { transaction: 'each' });
    expect(await userIdNullable(db)).toBe(false);
    const [{ n }] = await db.query("SELECT COUNT(*) AS n FROM orders WHERE order_number = 'ORD-G'");
    expect(Number(n)).toBe(0);
    const tables: Array<{ name: string }> =
      db.options.type === 'mysql'
        ? await db.query(
            "SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN ('carts', 'cart_items')",
          )
        : await db.query(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('carts', 'cart_items')",
          );
    expect(tables).toEqual([]);
    await db.runMigrations({ transaction: 'each' });
    expect(await userIdNullable(db)).toBe(true);
  });
});
