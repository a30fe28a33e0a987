import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { changeTable } from '../table-changes.js';
import { datetimeColumn } from '../timestamps.js';

/**
 * `users.email_verified` and the one-time tokens of password reset and e-mail verification. Accounts that exist
 * before this migration count as verified (they were created when nothing was verified: requiring it later
 * must not lock them out); new registrations start unverified.
 */
export class CreateAccountTokens1763801300000 implements MigrationInterface {
  name = 'CreateAccountTokens1763801300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // A plain ADD COLUMN on both databases (TypeORM's addColumn would rebuild the table on SQLite).
    const sqlite = queryRunner.connection.driver.options.type === 'better-sqlite3';
    await queryRunner.query(
      `ALTER TABLE users ADD COLUMN email_verified ${sqlite ? 'boolean' : 'tinyint'} NOT NULL DEFAULT 1`,
    );
    await queryRunner.createTable(
      new Table({
        name: 'account_tokens',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'user_id', type: 'integer' },
          // password_reset | email_verification
          { name: 'purpose', type: 'varchar', length: '32' },
          // SHA-256 (hex) of the token the e-mail carries; the token itself is never stored.
          { name: 'token_hash', type: 'varchar', length: '64' },
          datetimeColumn(queryRunner, 'expires_at', { nullable: false }),
          datetimeColumn(queryRunner, 'created_at', { nullable: false }),
        ],
        foreignKeys: [
          {
            name: 'FK_account_tokens_user',
            columnNames: ['user_id'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
        indices: [
          { name: 'UQ_account_tokens_hash', columnNames: ['token_hash'], isUnique: true },
          { name: 'IDX_account_tokens_user_purpose', columnNames: ['user_id', 'purpose'] },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('account_tokens');
    // In place: TypeORM's dropColumn rebuilds `users` on SQLite, which fails once other tables reference it.
    await changeTable(queryRunner, 'users', { dropColumns: ['email_verified'] });
  }
}
