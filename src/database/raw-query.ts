import type { EntityManager } from 'typeorm';

/** Runs a fixed UPDATE or DELETE in the manager's transaction; gives how many rows it changed. */
export async function changedRows(
  manager: EntityManager,
  sql: string,
  parameters: unknown[],
): Promise<number> {
  const result = await manager.queryRunner!.query(sql, parameters, true);
  return result.affected ?? 0;
}

/**
 * Runs a fixed single-row INSERT in the manager's transaction; gives the auto-increment id, which MySQL reports
 * as `insertId` and better-sqlite3 as `lastInsertRowid` (TypeORM's raw result for SQLite).
 */
export async function insertRow(manager: EntityManager, sql: string, parameters: unknown[]): Promise<number> {
  const result = await manager.queryRunner!.query(sql, parameters, true);
  const raw = result.raw as { insertId?: number | string } | number | bigint;
  return Number(typeof raw === 'object' ? raw.insertId : raw);
}

/** `?, ?, ?` for a statement with `count` positional parameters. */
export function placeholders(count: number): string {
  return new Array<string>(count).fill('?').join(', ');
}
