import type { InsertResult } from 'typeorm';

/**
 * The auto-increment id of a single-row INSERT run with `updateEntity(false)`: MySQL reports it as
 * `insertId`, better-sqlite3 as `lastInsertRowid` (TypeORM's raw result for SQLite).
 */
export function insertedId(result: InsertResult): number {
  const raw = result.raw as { insertId?: number | string } | number | bigint;
  return Number(typeof raw === 'object' ? raw.insertId : raw);
}
