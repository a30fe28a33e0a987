import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';

/**
 * Makes a read inside a transaction lock the rows it finds (SELECT ... FOR UPDATE) until commit. On SQLite,
 * where TransactionRunner runs one transaction at a time, the read is left as it is.
 */
export function forUpdate<T extends ObjectLiteral>(query: SelectQueryBuilder<T>): SelectQueryBuilder<T> {
  return query.connection.options.type === 'better-sqlite3' ? query : query.setLock('pessimistic_write');
}
