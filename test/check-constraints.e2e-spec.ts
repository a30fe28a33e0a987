import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { QueryRunner, Table } from 'typeorm';
import { addCheck, dropCheck } from '../src/database/check-constraints.js';
import { startTestApp, TestApp } from './support/test-app.js';

// Runs on SQLite and, with a mysql:// TEST_DATABASE_URL, on MariaDB/MySQL: the helper must give a real,
// enforced CHECK on both, where TypeORM's `checks` give one on SQLite only.
describe('addCheck / dropCheck in migrations', () => {
  let t: TestApp;
  let queryRunner: QueryRunner;

  beforeAll(async () => {
    t = await startTestApp();
    queryRunner = t.dataSource.createQueryRunner();
  });

  afterAll(async () => {
    await queryRunner.release();
    await t.close();
  });

  const mysql = () => t.config.database.type === 'mysql';

  async function checkNames(table: string): Promise<string[]> {
    if (mysql()) {
      const rows: Array<{ name: string }> = await t.dataSource.query(
        'SELECT CONSTRAINT_NAME AS name FROM information_schema.CHECK_CONSTRAINTS ' +
          'WHERE CONSTRAINT_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY CONSTRAINT_NAME',
        [table],
      );
      return rows.map((row) => row.name);
    }
    const [{ sql }] = await t.dataSource.query(
      "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
      [table],
    );
    return [...(sql as string).matchAll(/CONSTRAINT "(\w+)" CHECK/g)].map((match) => match[1]).sort();
  }

  const insert = (table: string, quantity: number) =>
    t.dataSource.query(`INSERT INTO ${table} (quantity) VALUES (?)`, [quantity]);

  function probeTable(name: string, checks: Array<{ name: string; expression: string }> = []): Table {
    return new Table({
      name,
      columns: [
        { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' },
        { name: 'quantity', type: 'integer' },
      ],
      checks,
    });
  }

  it('addCheck creates an enforced CHECK that rejects a breaking row; dropCheck removes it', async () => {
    await queryRunner.createTable(probeTable('check_probe'));
    await insert('check_probe', 5);

    await addCheck(queryRunner, 'check_probe', 'CHK_check_probe_quantity', 'quantity > 0');
    expect(await checkNames('check_probe')).toEqual(['CHK_check_probe_quantity']);
    await expect(insert('check_probe', 0)).rejects.toThrow(/CHK_check_probe_quantity|CHECK constraint/i);
    await insert('check_probe', 1);
    // The SQLite rebuild keeps the rows.
    const rows = await t.dataSource.query('SELECT quantity FROM check_probe ORDER BY id');
    expect(rows.map((row: { quantity: number }) => Number(row.quantity))).toEqual([5, 1]);

    await dropCheck(queryRunner, 'check_probe', 'CHK_check_probe_quantity');
    expect(await checkNames('check_probe')).toEqual([]);
    await insert('check_probe', 0);
    await queryRunner.dropTable('check_probe');
  });

  it('addCheck refuses to add a rule that existing rows break, leaving the table unchanged', async () => {
    await queryRunner.createTable(probeTable('check_probe_bad'));
    await insert('check_probe_bad', -1);
    await expect(
      addCheck(queryRunner, 'check_probe_bad', 'CHK_check_probe_bad', 'quantity > 0'),
    ).rejects.toThrow();
    expect(await checkNames('check_probe_bad')).toEqual([]);
    const [{ n }] = await t.dataSource.query('SELECT COUNT(*) AS n FROM check_probe_bad');
    expect(Number(n)).toBe(1);
    await queryRunner.dropTable('check_probe_bad');
  });

  it("TypeORM's own `checks` exist on SQLite only (why migrations use addCheck)", async () => {
    await queryRunner.createTable(
      probeTable('check_probe_typeorm', [{ name: 'CHK_probe_typeorm', expression: 'quantity > 0' }]),
    );
    expect(await checkNames('check_probe_typeorm')).toEqual(mysql() ? [] : ['CHK_probe_typeorm']);
    await queryRunner.dropTable('check_probe_typeorm');
  });

  it('the migrations created the project CHECKs on this database', async () => {
    expect(await checkNames('products')).toEqual(['CHK_products_price', 'CHK_products_stock']);
    expect(await checkNames('order_items')).toEqual([
      'CHK_order_items_fulfilled',
      'CHK_order_items_quantity',
      'CHK_order_items_returned',
    ]);
    expect(await checkNames('fulfilment_items')).toEqual(['CHK_fulfilment_items_quantity']);
    expect(await checkNames('return_items')).toEqual(['CHK_return_items_quantity']);
  });
});
