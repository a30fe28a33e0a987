import type { QueryRunner, TableColumnOptions } from 'typeorm';

/** Millisecond timestamps with a database default, in the dialect of the migration's connection. */
export function timestampColumns(
  queryRunner: QueryRunner,
  options: { softDelete: boolean },
): TableColumnOptions[] {
  const sqlite = queryRunner.connection.driver.options.type === 'better-sqlite3';
  const now = sqlite ? "(strftime('%Y-%m-%d %H:%M:%f', 'now'))" : 'CURRENT_TIMESTAMP(3)';
  const columns: TableColumnOptions[] = [
    {
      name: 'created_at',
      type: 'datetime',
      precision: sqlite ? undefined : 3,
      default: now,
      isNullable: false,
    },
    {
      name: 'updated_at',
      type: 'datetime',
      precision: sqlite ? undefined : 3,
      default: now,
      isNullable: false,
    },
  ];
  if (options.softDelete) {
    columns.push({
      name: 'deleted_at',
      type: 'datetime',
      precision: sqlite ? undefined : 3,
      isNullable: true,
    });
  }
  return columns;
}

/** Collation that makes a text column compare and index case-insensitively (MySQL's *_ci is already so). */
export function caseInsensitive(queryRunner: QueryRunner): string | undefined {
  return queryRunner.connection.driver.options.type === 'better-sqlite3' ? 'NOCASE' : undefined;
}

/** A millisecond timestamp column without a default (the service writes it), in the connection's dialect. */
export function datetimeColumn(
  queryRunner: QueryRunner,
  name: string,
  options: { nullable: boolean },
): TableColumnOptions {
  const sqlite = queryRunner.connection.driver.options.type === 'better-sqlite3';
  return { name, type: 'datetime', precision: sqlite ? undefined : 3, isNullable: options.nullable };
}

/**
 * A Date as the text both databases compare with their datetime columns (`2026-11-22 08:00:00.000`, UTC), for
 * raw statements: better-sqlite3 cannot bind a Date, and this is how TypeORM stores one on SQLite.
 */
export function sqlDatetime(date: Date): string {
  return date.toISOString().replace('T', ' ').replace('Z', '');
}

/**
 * A datetime column as a raw statement returns it: mysql2 gives a Date (the connection is UTC), SQLite the text
 * `2026-11-22 08:00:00.000` in UTC.
 */
export function dateFromRow(value: Date | string): Date {
  return typeof value === 'string' ? new Date(`${value.replace(' ', 'T')}Z`) : value;
}
