import type { EntityManager, EntityMetadata, EntityTarget, ObjectLiteral } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';

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

/** Rows per statement of insertRows: a few columns each stay well under SQLite's 32 766 bound parameters. */
const INSERT_BATCH = 1000;
const rowInserts = new Map<string, string>();

/**
 * Inserts rows (each its values in `columns` order) into `table` in multi-row INSERTs of INSERT_BATCH rows, each
 * statement written once per table and row count; with `ignoreDuplicates`, rows whose unique key is taken are
 * left out (INSERT IGNORE, SQLite's INSERT OR IGNORE).
 */
export async function insertRows(
  manager: EntityManager,
  table: string,
  columns: string[],
  rows: unknown[][],
  options: { ignoreDuplicates?: boolean } = {},
): Promise<void> {
  const insert = !options.ignoreDuplicates
    ? 'INSERT'
    : manager.connection.options.type === 'mysql'
      ? 'INSERT IGNORE'
      : 'INSERT OR IGNORE';
  for (let start = 0; start < rows.length; start += INSERT_BATCH) {
    const batch = rows.slice(start, start + INSERT_BATCH);
    const key = `${insert} ${table} ${batch.length}`;
    let sql = rowInserts.get(key);
    if (sql === undefined) {
      sql =
        `${insert} INTO ${table} (${columns.join(', ')}) VALUES ` +
        new Array<string>(batch.length).fill(`(${placeholders(columns.length)})`).join(', ');
      rowInserts.set(key, sql);
    }
    await manager.query(sql, batch.flat());
  }
}

/** An entity's INSERT, written once per entity (and per row count) from its metadata. */
interface EntityInsert {
  columns: ColumnMetadata[];
  statements: string[];
}
const entityInserts = new WeakMap<EntityMetadata, EntityInsert>();

/**
 * Inserts one row of an entity in the manager's transaction and gives its auto-increment id. The statement names
 * every column of the entity but its generated key, from TypeORM's metadata, so a column added to the entity is
 * written without touching the call; each value is converted as TypeORM's own insert does (transformers, dates
 * in UTC with milliseconds). Unlike `manager.insert`, the statement is built once per entity rather than per call,
 * and nothing is read back: for the hot paths (an order). Every column needs a value (undefined throws): no
 * database defaults, no subscribers.
 */
export function insertEntity<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  entity: Partial<T>,
): Promise<number> {
  const { sql, parameters } = entityInsertOf(manager, target, [entity]);
  return insertRow(manager, sql, parameters);
}

/** `insertEntity` for several rows of one entity, in one multi-row INSERT. */
export async function insertEntities<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  entities: Array<Partial<T>>,
): Promise<void> {
  const { sql, parameters } = entityInsertOf(manager, target, entities);
  await manager.query(sql, parameters);
}

function entityInsertOf<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  entities: Array<Partial<T>>,
): { sql: string; parameters: unknown[] } {
  const { driver } = manager.connection;
  const metadata = manager.connection.getMetadata(target);
  let insert = entityInserts.get(metadata);
  if (insert === undefined) {
    const columns = metadata.columns.filter(
      (column) => column.isInsert && !column.isGenerated && !column.isVirtual && !column.isVirtualProperty,
    );
    insert = { columns, statements: [] };
    entityInserts.set(metadata, insert);
  }
  const { columns, statements } = insert;
  statements[entities.length] ??=
    `INSERT INTO ${driver.escape(metadata.tableName)} ` +
    `(${columns.map((column) => driver.escape(column.databaseName)).join(', ')}) VALUES ` +
    new Array<string>(entities.length).fill(`(${placeholders(columns.length)})`).join(', ');
  const parameters: unknown[] = [];
  for (const entity of entities) {
    for (const column of columns) {
      const value: unknown = column.getEntityValue(entity);
      if (value === undefined)
        throw new Error(`${metadata.name}.${column.propertyName} has no value to insert`);
      parameters.push(driver.preparePersistentValue(value, column));
    }
  }
  return { sql: statements[entities.length], parameters };
}

/** An entity's SELECT of its selectable columns, written once per entity and `WHERE … ORDER BY …` clause. */
interface EntitySelect {
  columns: ColumnMetadata[];
  statements: Map<string, string>;
}
const entitySelects = new WeakMap<EntityMetadata, EntitySelect>();

/**
 * The rows of an entity matching a fixed clause (`order_id = ? ORDER BY id`), as entities: the counterpart of
 * `insertEntities` for hot reads. Every selectable column of the entity is read, and each value converted as
 * TypeORM's own `find` does (transformers, dates), but the statement is built once rather than by the query
 * builder on every call. No relations, no subscribers.
 */
export async function findEntities<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  clause: string,
  parameters: unknown[],
): Promise<T[]> {
  const { driver } = manager.connection;
  const metadata = manager.connection.getMetadata(target);
  let select = entitySelects.get(metadata);
  if (select === undefined) {
    const columns = metadata.columns.filter((column) => column.isSelect && !column.isVirtualProperty);
    select = { columns, statements: new Map() };
    entitySelects.set(metadata, select);
  }
  const { columns, statements } = select;
  let sql = statements.get(clause);
  if (sql === undefined) {
    sql =
      `SELECT ${columns.map((column) => driver.escape(column.databaseName)).join(', ')} ` +
      `FROM ${driver.escape(metadata.tableName)} WHERE ${clause}`;
    statements.set(clause, sql);
  }
  const rows: Array<Record<string, unknown>> = await manager.query(sql, parameters);
  return rows.map((row) => {
    const entity = metadata.create() as T;
    for (const column of columns) {
      column.setEntityValue(entity, driver.prepareHydratedValue(row[column.databaseName], column));
    }
    return entity;
  });
}
