import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';

/**
 * Makes a read inside a transaction lock the rows it finds (SELECT ... FOR UPDATE) until commit. On SQLite,
 * where TransactionRunner runs one transaction at a time, the read is left as it is. Reads after the lock need
 * no such helper: they are plain reads, which see what the lock waited for (READ COMMITTED on MySQL/MariaDB).
 * A row that does not exist is not locked (no gap locks): decide "absent, then insert" by a unique index.
 */
export function forUpdate<T extends ObjectLiteral>(query: SelectQueryBuilder<T>): SelectQueryBuilder<T> {
  return query.connection.options.type === 'better-sqlite3' ? query : query.setLock('pessimistic_write');
}
