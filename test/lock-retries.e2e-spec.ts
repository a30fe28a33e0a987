import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { TransactionRunner } from '../src/database/transaction-runner.js';
import {
  expectLockRetries,
  lockRetriesSeen,
  unexpectedRetriesMessage,
} from './support/lock-retry-detector.js';
import { scrape } from './support/metrics.js';
import { startTestApp, TestApp } from './support/test-app.js';

// SQLite runs one transaction at a time (TransactionRunner queues them), so it never has lock conflicts:
// these tests need MariaDB/MySQL (TEST_DATABASE_URL a mysql:// URL, as .ci/run sets it).
const onMysql = /^(mysql|mariadb):/.test(process.env.TEST_DATABASE_URL ?? '');
const CONCURRENT = 12;

(onMysql ? describe : describe.skip)('lock retries and the write order (MySQL/MariaDB)', () => {
  let t: TestApp;
  let transactions: TransactionRunner;
  let parentId = 0;

  beforeAll(async () => {
    t = await startTestApp({ LOG_LEVEL: 'warn' });
    transactions = t.app.get(TransactionRunner);
    // Throwaway tables of this file's own database: a parent counting its children, a child with a foreign key.
    await t.dataSource.query(
      'CREATE TABLE retry_parent (id INT PRIMARY KEY, children INT NOT NULL DEFAULT 0) ENGINE=InnoDB',
    );
    await t.dataSource.query(
      'CREATE TABLE retry_child (id INT AUTO_INCREMENT PRIMARY KEY, parent_id INT NOT NULL, ' +
        'CONSTRAINT FK_retry_child_parent FOREIGN KEY (parent_id) REFERENCES retry_parent (id)) ENGINE=InnoDB',
    );
  });

  afterAll(async () => {
    await t.close();
  });

  async function newParent(): Promise<number> {
    parentId += 1;
    await t.dataSource.query('INSERT INTO retry_parent (id) VALUES (?)', [parentId]);
    return parentId;
  }

  async function counts(id: number): Promise<{ children: number; counted: number }> {
    const [row] = await t.dataSource.query(
      'SELECT (SELECT COUNT(*) FROM retry_child WHERE parent_id = ?) AS children, ' +
        '(SELECT children FROM retry_parent WHERE id = ?) AS counted',
      [id, id],
    );
    return { children: Number(row.children), counted: Number(row.counted) };
  }

  it('child-then-parent writes under concurrency deadlock: retried, logged at warn, counted and flagged', async () => {
    // The foreign-key check of the child insert holds a shared lock on the parent row; the parent update then
    // needs an exclusive one, which every other transaction's shared lock blocks: a deadlock.
    expectLockRetries();
    let output = '';
    const stdout = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
      output += String(chunk);
      return true;
    });
    const id = await newParent();
    const results = await Promise.allSettled(
      Array.from({ length: CONCURRENT }, () =>
        transactions.run('review child then parent', async (manager) => {
          await manager.query('INSERT INTO retry_child (parent_id) VALUES (?)', [id]);
          await manager.query('UPDATE retry_parent SET children = children + 1 WHERE id = ?', [id]);
        }),
      ),
    );
    const retries = lockRetriesSeen().filter((r) => r.purpose === 'review child then parent');
    stdout.mockRestore();

    expect(retries.length).toBeGreaterThan(0);
    expect(retries[0].code).toBe('ER_LOCK_DEADLOCK');
    // The message the suite fails an undeclared test with names the work and the attempt.
    expect(unexpectedRetriesMessage(retries)).toMatch(
      /^Unexpected lock retry: \d+ transaction\(s\) retried after a lock conflict: 'review child then parent' attempt \d+ \(ER_LOCK_DEADLOCK\)/,
    );
    const warnings = output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.level === 'warn' && entry.context === 'TransactionRunner');
    expect(warnings).toHaveLength(retries.length);
    expect(warnings[0].message).toMatchObject({
      msg: "Transaction 'review child then parent' retried after a lock conflict",
      purpose: 'review child then parent',
      attempt: expect.any(Number),
      code: 'ER_LOCK_DEADLOCK',
    });
    const metrics = await scrape(t.url);
    expect(metrics.value('commerce_transaction_retries_total', { purpose: 'review child then parent' })).toBe(
      retries.length,
    );
    // Whatever committed is whole: each child counted once by its parent.
    const committed = results.filter((r) => r.status === 'fulfilled').length;
    expect(await counts(id)).toEqual({ children: committed, counted: committed });
  });

  it('the same work written parent-then-child is not retried: all commit at the first attempt', async () => {
    const id = await newParent();
    await Promise.all(
      Array.from({ length: CONCURRENT }, () =>
        transactions.run('review parent then child', async (manager) => {
          await manager.query('UPDATE retry_parent SET children = children + 1 WHERE id = ?', [id]);
          await manager.query('INSERT INTO retry_child (parent_id) VALUES (?)', [id]);
        }),
      ),
    );
    expect(lockRetriesSeen()).toEqual([]);
    const metrics = await scrape(t.url);
    expect(metrics.value('commerce_transaction_retries_total', { purpose: 'review parent then child' })).toBe(
      undefined,
    );
    expect(await counts(id)).toEqual({ children: CONCURRENT, counted: CONCURRENT });
  });
});
