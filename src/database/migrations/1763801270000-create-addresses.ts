import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { timestampColumns } from '../timestamps.js';

/** The users' address books. */
export class CreateAddresses1763801270000 implements MigrationInterface {
  name = 'CreateAddresses1763801270000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'addresses',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'user_id', type: 'integer' },
          { name: 'name', type: 'varchar', length: '200' },
          { name: 'line1', type: 'varchar', length: '200' },
          { name: 'line2', type: 'varchar', length: '200', default: "''" },
          { name: 'city', type: 'varchar', length: '100' },
          { name: 'region', type: 'varchar', length: '100', default: "''" },
          { name: 'postal_code', type: 'varchar', length: '20', default: "''" },
          { name: 'country', type: 'varchar', length: '2' },
          { name: 'phone', type: 'varchar', length: '40', default: "''" },
          { name: 'is_default', type: 'boolean', default: false },
          ...timestampColumns(queryRunner, { softDelete: false }),
        ],
        foreignKeys: [
          {
            name: 'FK_addresses_user',
            columnNames: ['user_id'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
        // A user's addresses in id order.
        indices: [{ name: 'IDX_addresses_user', columnNames: ['user_id', 'id'] }],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('addresses');
  }
}
