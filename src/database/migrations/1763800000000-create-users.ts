import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { caseInsensitive, timestampColumns } from '../timestamps.js';

export class CreateUsers1763800000000 implements MigrationInterface {
  name = 'CreateUsers1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const nocase = caseInsensitive(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'users',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'username', type: 'varchar', length: '32', collation: nocase },
          { name: 'email', type: 'varchar', length: '254', collation: nocase },
          { name: 'password_hash', type: 'varchar', length: '255' },
          { name: 'first_name', type: 'varchar', length: '50', default: "''" },
          { name: 'last_name', type: 'varchar', length: '50', default: "''" },
          { name: 'phone', type: 'varchar', length: '20', default: "''" },
          { name: 'address', type: 'varchar', length: '255', default: "''" },
          { name: 'role', type: 'varchar', length: '16', default: "'user'" },
          { name: 'is_active', type: 'boolean', default: true },
          ...timestampColumns(queryRunner, { softDelete: true }),
        ],
        indices: [
          { name: 'UQ_users_username', columnNames: ['username'], isUnique: true },
          { name: 'UQ_users_email', columnNames: ['email'], isUnique: true },
          { name: 'IDX_users_created_at', columnNames: ['created_at'] },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('users');
  }
}
