import { describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { afterCommit, LockRetry, observeLockRetries, TransactionRunner } from './transaction-runner.js';

/** A MySQL DataSource whose transactions fail with the given driver errors, then succeed. */
function mysqlFailing(...codes: string[]) {
  const transaction = jest.fn(async () => {
    const code = codes.shift();
    if (code !== undefined) throw Object.assign(new Error(code), { driverError: { code } });
    return 'done';
  });
  return { dataSource: { options: { type: 'mysql' }, transaction } as unknown as DataSource, transaction };
}

describe('TransactionRunner on MySQL', () => {
  it('retries lock conflicts, telling its listeners and the process-wide observers the purpose and attempt', async () => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const { dataSource, transaction } = mysqlFailing('ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT');
    const runner = new TransactionRunner(dataSource);
    const local: LockRetry[] = [];
    const global: LockRetry[] = [];
    runner.onLockRetry((retry) => local.push(retry));
    const stop = observeLockRetries((retry) => global.push(retry));

    await expect(runner.run('place order', async () => 'unused')).resolves.toBe('done');
    stop();

    const expected = [
      { purpose: 'place order', attempt: 1, code: 'ER_LOCK_DEADLOCK' },
      { purpose: 'place order', attempt: 2, code: 'ER_LOCK_WAIT_TIMEOUT' },
    ];
    expect(transaction).toHaveBeenCalledTimes(3);
    expect(local).toEqual(expected);
    expect(global).toEqual(expected);
    expect(Logger.prototype.warn).toHaveBeenCalledWith({
      msg: "Transaction 'place order' retried after a lock conflict",
      ...expected[0],
    });
    jest.restoreAllMocks();
  });

  it('gives up after the fifth attempt and never retries other errors', async () => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const conflicts = mysqlFailing(...Array(5).fill('ER_LOCK_DEADLOCK'));
    await expect(new TransactionRunner(conflicts.dataSource).run('x', async () => 1)).rejects.toThrow(
      'ER_LOCK_DEADLOCK',
    );
    expect(conflicts.transaction).toHaveBeenCalledTimes(5);

    const other = mysqlFailing('ER_DUP_ENTRY');
    const retries: LockRetry[] = [];
    const runner = new TransactionRunner(other.dataSource);
    runner.onLockRetry((retry) => retries.push(retry));
    await expect(runner.run('x', async () => 1)).rejects.toThrow('ER_DUP_ENTRY');
    expect(other.transaction).toHaveBeenCalledTimes(1);
    expect(retries).toEqual([]);
    jest.restoreAllMocks();
  });

  it('runs after-commit callbacks of the committed attempt only, never those of an attempt rolled back', async () => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const codes = ['ER_LOCK_DEADLOCK'];
    // Like TypeORM: a fresh manager per transaction; the work's callbacks are registered before the outcome.
    const transaction = jest.fn(async (work: (manager: object) => Promise<unknown>) => {
      const result = await work({});
      const code = codes.shift();
      if (code !== undefined) throw Object.assign(new Error(code), { driverError: { code } });
      return result;
    });
    const runner = new TransactionRunner({
      options: { type: 'mysql' },
      transaction,
    } as unknown as DataSource);
    const ran: string[] = [];
    let attempt = 0;
    const result = await runner.run('x', async (tx) => {
      attempt += 1;
      afterCommit(tx, () => void ran.push(`first of attempt ${attempt}`));
      afterCommit(tx, async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        ran.push(`second of attempt ${attempt}`);
      });
      expect(ran).toEqual([]);
      return attempt;
    });
    expect(result).toBe(2);
    // The second callback's promise was awaited before run resolved.
    expect(ran).toEqual(['first of attempt 2', 'second of attempt 2']);
    expect(() => afterCommit({} as never, () => undefined)).toThrow(
      'needs a transaction of TransactionRunner.run',
    );
    jest.restoreAllMocks();
  });
});
