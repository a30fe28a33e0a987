import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { datetimeColumn } from '../timestamps.js';

export class CreateSessions1763800300000 implements MigrationInterface {
  name = 'CreateSessions1763800300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'sessions',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'user_id', type: 'integer' },
          // SHA-256 (hex) of the secret part of the session's current refresh token.
          { name: 'refresh_token_hash', type: 'varchar', length: '64' },
          datetimeColumn(queryRunner, 'created_at', { nullable: false }),
          datetimeColumn(queryRunner, 'last_used_at', { nullable: false }),
          datetimeColumn(queryRunner, 'expires_at', { nullable: false }),
          datetimeColumn(queryRunner, 'revoked_at', { nullable: true }),
          { name: 'user_agent', type: 'varchar', length: '255', default: "''" },
          { name: 'ip', type: 'varchar', length: '45', default: "''" },
        ],
        foreignKeys: [
          {
            name: 'FK_sessions_user',
            columnNames: ['user_id'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
        indices: [
          { name: 'IDX_sessions_user', columnNames: ['user_id'] },
          // The periodic purge deletes by expiry.
          { name: 'IDX_sessions_expires_at', columnNames: ['expires_at'] },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('sessions');
  }
}
