import { QueryRunner, TableColumn, type TableColumnOptions } from 'typeorm';

/** A foreign key `column` → `references`(`referencedColumn`, default `id`), named like FK_products_category. */
export interface ForeignKeyChange {
  name: string;
  column: string;
  references: string;
  referencedColumn?: string;
}

/**
 * What changeTable does to a table, in this order: drop foreign keys, drop columns, add columns, let columns take
 * NULL (`nullColumns`) or refuse it again (`notNullColumns`, whose rows must hold no NULL), add foreign keys.
 * An added column is nullable or has a constant `default` (SQL text: `'0'`, `"''"`); a dropped column must be
 * in no index (drop the index first with `queryRunner.dropIndex`, which changes no table).
 */
export interface TableChange {
  dropForeignKeys?: string[];
  dropColumns?: string[];
  addColumns?: TableColumnOptions[];
  nullColumns?: string[];
  notNullColumns?: string[];
  addForeignKeys?: ForeignKeyChange[];
}

/**
 * Changes an existing table in place on both databases, keeping what a rebuild would lose, for tables that
 * carry data and are referenced (`products`). TypeORM's own `addColumn`/`createForeignKey` rebuild the table on
 * SQLite (copy, drop, rename: the drop fails once other tables reference its rows, drops the FTS5 triggers, and
 * a revert runs it inside a transaction, where SQLite's foreign keys cannot be switched off), and on MySQL
 * adding a foreign key with the checks on copies the table, which recreates its FULLTEXT index under the
 * session's stopword setting (on by default: searches for "with" or "a" stop matching).
 *
 * - MySQL/MariaDB: one `ALTER TABLE`, run with `foreign_key_checks = 0` (a new foreign key is then added in
 *   place instead of copying the table) and `innodb_ft_enable_stopword = OFF` (any rebuild the server still
 *   chooses recreates the FULLTEXT index as migration 1763800800000 built it); both are restored after.
 * - SQLite: columns with `ALTER TABLE ADD/DROP COLUMN`; foreign keys by rewriting the table's definition in
 *   the schema (the documented procedure for changes that leave the stored rows as they are; the rows,
 *   indexes and triggers stay untouched). Works inside the migration's transaction, up and down.
 *
 * Afterwards every foreign key of the table is checked against the rows (`PRAGMA foreign_key_check` on SQLite,
 * a join per key on MySQL): a row pointing nowhere fails the change and leaves nothing of it (SQLite rolls it
 * back with the transaction; MySQL, which commits DDL as it goes, has its new keys and their indexes dropped
 * again). Backfill the referenced rows before adding a foreign key.
 */
export async function changeTable(
  queryRunner: QueryRunner,
  table: string,
  change: TableChange,
): Promise<void> {
  if (queryRunner.connection.driver.options.type !== 'mysql') {
    // SQLite's schema changes are transactional: outside a migration's transaction, the helper opens its own.
    const own = !queryRunner.isTransactionActive;
    if (own) await queryRunner.startTransaction();
    try {
      await changeSqliteTable(queryRunner, table, change);
      await assertForeignKeysHold(queryRunner, table);
      if (own) await queryRunner.commitTransaction();
    } catch (error) {
      if (own) await queryRunner.rollbackTransaction();
      throw error;
    }
    return;
  }
  await changeMysqlTable(queryRunner, table, change);
  try {
    await assertForeignKeysHold(queryRunner, table);
  } catch (error) {
    // MySQL has committed the ALTER: take the new keys away again, with the indexes MySQL made for them.
    const added = (change.addForeignKeys ?? []).map((key) => key.name);
    if (added.length > 0) await changeMysqlTable(queryRunner, table, { dropForeignKeys: added });
    for (const name of added) {
      const [index]: unknown[] = await queryRunner.query(
        'SELECT 1 FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND INDEX_NAME = ? LIMIT 1',
        [table, name],
      );
      if (index !== undefined) await queryRunner.query(`ALTER TABLE \`${table}\` DROP INDEX \`${name}\``);
    }
    throw error;
  }
}

function columnSql(queryRunner: QueryRunner, options: TableColumnOptions, quote: string): string {
  const column = new TableColumn(options);
  if (!column.isNullable && column.default === undefined) {
    throw new Error(`changeTable: the new column ${column.name} needs a default or to be nullable`);
  }
  const type = queryRunner.connection.driver.createFullType(column);
  return (
    `${quote}${column.name}${quote} ${type}${column.isNullable ? ' NULL' : ' NOT NULL'}` +
    (column.default === undefined ? '' : ` DEFAULT ${String(column.default)}`)
  );
}

async function changeMysqlTable(queryRunner: QueryRunner, table: string, change: TableChange): Promise<void> {
  const nullability: string[] = [];
  for (const [names, nullable] of [
    [change.nullColumns ?? [], true],
    [change.notNullColumns ?? [], false],
  ] as const) {
    for (const name of names) {
      const [column]: Array<{ type: string }> = await queryRunner.query(
        'SELECT COLUMN_TYPE AS type FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME = ?',
        [table, name],
      );
      if (column === undefined) throw new Error(`changeTable: no column ${name} in ${table}`);
      nullability.push(`MODIFY COLUMN \`${name}\` ${column.type}${nullable ? ' NULL' : ' NOT NULL'}`);
    }
  }
  const clauses = [
    ...(change.dropForeignKeys ?? []).map((name) => `DROP FOREIGN KEY \`${name}\``),
    ...(change.dropColumns ?? []).map((name) => `DROP COLUMN \`${name}\``),
    ...(change.addColumns ?? []).map((column) => `ADD COLUMN ${columnSql(queryRunner, column, '`')}`),
    ...nullability,
    ...(change.addForeignKeys ?? []).map(
      (key) =>
        `ADD CONSTRAINT \`${key.name}\` FOREIGN KEY (\`${key.column}\`) ` +
        `REFERENCES \`${key.references}\` (\`${key.referencedColumn ?? 'id'}\`)`,
    ),
  ];
  if (clauses.length === 0) return;
  const [before]: Array<{ checks: number | string; stopwords: number | string }> = await queryRunner.query(
    'SELECT @@SESSION.foreign_key_checks AS checks, @@SESSION.innodb_ft_enable_stopword AS stopwords',
  );
  await queryRunner.query('SET SESSION foreign_key_checks = 0, innodb_ft_enable_stopword = OFF');
  try {
    await queryRunner.query(`ALTER TABLE \`${table}\` ${clauses.join(', ')}`);
  } finally {
    await queryRunner.query('SET SESSION foreign_key_checks = ?, innodb_ft_enable_stopword = ?', [
      Number(before.checks),
      Number(before.stopwords),
    ]);
  }
}

async function changeSqliteTable(
  queryRunner: QueryRunner,
  table: string,
  change: TableChange,
): Promise<void> {
  const dropped = change.dropForeignKeys ?? [];
  if (dropped.length > 0) {
    await rewriteSqliteDefinition(queryRunner, table, (definition) =>
      dropped.reduce(withoutConstraint, definition),
    );
  }
  for (const name of change.dropColumns ?? []) {
    await queryRunner.query(`ALTER TABLE "${table}" DROP COLUMN "${name}"`);
  }
  for (const column of change.addColumns ?? []) {
    await queryRunner.query(`ALTER TABLE "${table}" ADD COLUMN ${columnSql(queryRunner, column, '"')}`);
  }
  for (const name of change.nullColumns ?? []) {
    await rewriteSqliteDefinition(queryRunner, table, (definition) => {
      const notNull = new RegExp(`("${name}" [^,]*?) NOT NULL`);
      if (!notNull.test(definition)) throw new Error(`changeTable: ${name} of ${table} is not NOT NULL`);
      return definition.replace(notNull, '$1');
    });
  }
  for (const name of change.notNullColumns ?? []) {
    const [{ n }]: Array<{ n: number }> = await queryRunner.query(
      `SELECT COUNT(*) AS n FROM "${table}" WHERE "${name}" IS NULL`,
    );
    if (Number(n) > 0) throw new Error(`changeTable: ${Number(n)} row(s) of ${table} have ${name} NULL`);
    await rewriteSqliteDefinition(queryRunner, table, (definition) =>
      definition.replace(new RegExp(`("${name}" [a-z]+(?:\\([0-9, ]+\\))?)`), '$1 NOT NULL'),
    );
  }
  const added = change.addForeignKeys ?? [];
  if (added.length > 0) {
    await rewriteSqliteDefinition(queryRunner, table, (definition) => {
      const constraints = added.map(
        (key) =>
          `CONSTRAINT "${key.name}" FOREIGN KEY ("${key.column}") ` +
          `REFERENCES "${key.references}" ("${key.referencedColumn ?? 'id'}")`,
      );
      return `${definition.replace(/\)\s*$/, '')}, ${constraints.join(', ')})`;
    });
  }
}

/** The definition without `CONSTRAINT "name" …` up to the next constraint or the closing parenthesis. */
function withoutConstraint(definition: string, name: string): string {
  const start = definition.indexOf(`, CONSTRAINT "${name}" `);
  if (start < 0) throw new Error(`changeTable: no constraint ${name} in ${definition}`);
  const next = definition.indexOf(', CONSTRAINT "', start + 2);
  return definition.slice(0, start) + (next < 0 ? ')' : definition.slice(next));
}

/**
 * Replaces the table's CREATE TABLE text in sqlite_schema and bumps the schema version, so that every
 * connection reads the new definition. Only for changes that leave the stored rows valid as they are (a foreign
 * key, a column taking NULL, a column without NULL rows refusing it); better-sqlite3 refuses writing the schema outside its unsafe mode, switched on just for it.
 */
async function rewriteSqliteDefinition(
  queryRunner: QueryRunner,
  table: string,
  rewrite: (definition: string) => string,
): Promise<void> {
  const [row]: Array<{ sql: string }> = await queryRunner.query(
    "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?",
    [table],
  );
  if (row === undefined) throw new Error(`changeTable: no table ${table}`);
  const [{ schema_version: version }]: Array<{ schema_version: number }> =
    await queryRunner.query('PRAGMA schema_version');
  const database = (
    queryRunner.connection.driver as unknown as { databaseConnection: { unsafeMode(on: boolean): void } }
  ).databaseConnection;
  database.unsafeMode(true);
  try {
    await queryRunner.query('PRAGMA writable_schema = ON');
    await queryRunner.query("UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?", [
      rewrite(row.sql),
      table,
    ]);
    await queryRunner.query(`PRAGMA schema_version = ${Number(version) + 1}`);
  } finally {
    await queryRunner.query('PRAGMA writable_schema = OFF');
    database.unsafeMode(false);
  }
}

/** Fails when a row of `table` points to no row through one of its foreign keys. */
async function assertForeignKeysHold(queryRunner: QueryRunner, table: string): Promise<void> {
  if (queryRunner.connection.driver.options.type !== 'mysql') {
    const broken: Array<{ parent: string; rowid: number }> = await queryRunner.query(
      `PRAGMA foreign_key_check("${table}")`,
    );
    if (broken.length > 0) {
      throw new Error(
        `changeTable: ${broken.length} row(s) of ${table} reference missing rows of ${broken[0].parent} ` +
          `(rowid ${broken[0].rowid} first)`,
      );
    }
    return;
  }
  const keys: Array<{ name: string; column_name: string; parent: string; parent_column: string }> =
    await queryRunner.query(
      'SELECT CONSTRAINT_NAME AS name, COLUMN_NAME AS column_name, REFERENCED_TABLE_NAME AS parent, ' +
        'REFERENCED_COLUMN_NAME AS parent_column FROM information_schema.KEY_COLUMN_USAGE ' +
        'WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND REFERENCED_TABLE_NAME IS NOT NULL ' +
        'ORDER BY CONSTRAINT_NAME, ORDINAL_POSITION',
      [table],
    );
  const byName = new Map<string, typeof keys>();
  for (const key of keys) byName.set(key.name, [...(byName.get(key.name) ?? []), key]);
  for (const [name, columns] of byName) {
    const parent = columns[0].parent;
    const on = columns.map((c) => `p.\`${c.parent_column}\` = t.\`${c.column_name}\``).join(' AND ');
    const present = columns.map((c) => `t.\`${c.column_name}\` IS NOT NULL`).join(' AND ');
    const [{ n }]: Array<{ n: number | string }> = await queryRunner.query(
      `SELECT COUNT(*) AS n FROM \`${table}\` t LEFT JOIN \`${parent}\` p ON ${on} ` +
        `WHERE ${present} AND p.\`${columns[0].parent_column}\` IS NULL`,
    );
    if (Number(n) > 0) {
      throw new Error(`changeTable: ${Number(n)} row(s) of ${table} break ${name} (missing ${parent} rows)`);
    }
  }
}
