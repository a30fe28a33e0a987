import { MigrationInterface, QueryRunner } from 'typeorm';

interface DatetimeColumn {
  table: string;
  column: string;
  nullable: 'YES' | 'NO';
  defaultValue: string | null;
}

/**
 * Every timestamp column keeps milliseconds. On MySQL/MariaDB, a DATETIME or TIMESTAMP column declared
 * without fractional seconds (precision 0) is widened to DATETIME(3), keeping its nullability and turning a
 * CURRENT_TIMESTAMP default into CURRENT_TIMESTAMP(3); widening keeps every stored value. SQLite stores
 * timestamps as text, so its columns hold what is written: the entities write milliseconds.
 */
export class MillisecondTimestamps1763800500000 implements MigrationInterface {
  name = 'MillisecondTimestamps1763800500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.driver.options.type !== 'mysql') return;
    const columns: DatetimeColumn[] = await queryRunner.query(
      `SELECT TABLE_NAME AS \`table\`, COLUMN_NAME AS \`column\`, IS_NULLABLE AS nullable,
              COLUMN_DEFAULT AS defaultValue
         FROM information_schema.COLUMNS
        WHERE TABLE_SCHEMA = DATABASE() AND DATA_TYPE IN ('datetime', 'timestamp')
          AND DATETIME_PRECISION < 3 AND TABLE_NAME <> 'migrations'`,
    );
    for (const { table, column, nullable, defaultValue } of columns) {
      const isNow = defaultValue !== null && /^current_timestamp/i.test(defaultValue);
      const definition = [
        'DATETIME(3)',
        nullable === 'NO' ? 'NOT NULL' : 'NULL',
        isNow ? 'DEFAULT CURRENT_TIMESTAMP(3)' : '',
      ].join(' ');
      await queryRunner.query(`ALTER TABLE \`${table}\` MODIFY \`${column}\` ${definition.trim()}`);
    }
  }

  async down(): Promise<void> {
    // Narrowing would drop the milliseconds that were stored since; nothing to undo.
  }
}
