import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { datetimeColumn } from '../timestamps.js';

/**
 * The refresh tokens each session has issued and rotated since, so that only a replay of one of them counts as
 * theft: a secret the session never issued changes nothing.
 */
export class RecordRotatedRefreshTokens1763800950000 implements MigrationInterface {
  name = 'RecordRotatedRefreshTokens1763800950000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'session_rotated_tokens',
        columns: [
          { name: 'session_id', type: 'varchar', length: '36', isPrimary: true },
          // SHA-256 (hex) of the secret part of a refresh token the session has rotated.
          { name: 'token_hash', type: 'varchar', length: '64', isPrimary: true },
          datetimeColumn(queryRunner, 'rotated_at', { nullable: false }),
        ],
        foreignKeys: [
          {
            name: 'FK_session_rotated_tokens_session',
            columnNames: ['session_id'],
            referencedTableName: 'sessions',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
        // The periodic purge deletes by age.
        indices: [{ name: 'IDX_session_rotated_tokens_rotated_at', columnNames: ['rotated_at'] }],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('session_rotated_tokens');
  }
}
