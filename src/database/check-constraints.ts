import { QueryRunner, TableCheck } from 'typeorm';

// TypeORM's table API (`checks` of `new Table`, `createCheckConstraint`) creates CHECK constraints on SQLite
// but silently does nothing on MySQL/MariaDB. Migrations add them with these instead, which create a real,
// enforced constraint on both (MariaDB enforces CHECK since 10.2, MySQL since 8.0.16).

function isMysql(queryRunner: QueryRunner): boolean {
  return queryRunner.connection.driver.options.type === 'mysql';
}

/**
 * Adds the CHECK constraint `name` (e.g. CHK_products_stock) to `table`. SQLite cannot alter a table's
 * constraints, so TypeORM rebuilds the table there (copy, drop, rename: keep it to small or new tables).
 * Fails if existing rows break the rule: correct them first, a migration never changes them silently.
 */
export async function addCheck(
  queryRunner: QueryRunner,
  table: string,
  name: string,
  expression: string,
): Promise<void> {
  if (isMysql(queryRunner)) {
    await queryRunner.query(`ALTER TABLE \`${table}\` ADD CONSTRAINT \`${name}\` CHECK (${expression})`);
    return;
  }
  await queryRunner.createCheckConstraint(table, new TableCheck({ name, expression }));
}

/** Drops the CHECK constraint `name` of `table` (the `down` of addCheck). */
export async function dropCheck(queryRunner: QueryRunner, table: string, name: string): Promise<void> {
  if (isMysql(queryRunner)) {
    await queryRunner.query(`ALTER TABLE \`${table}\` DROP CONSTRAINT \`${name}\``);
    return;
  }
  await queryRunner.dropCheckConstraint(table, name);
}
