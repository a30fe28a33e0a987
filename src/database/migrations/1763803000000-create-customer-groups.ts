import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { timestampColumns } from '../timestamps.js';

/** Customer groups and their members (DESIGN.md §16): price lists and promotions can be limited to them. */
export class CreateCustomerGroups1763803000000 implements MigrationInterface {
  name = 'CreateCustomerGroups1763803000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'customer_groups',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'name', type: 'varchar', length: '100' },
          ...timestampColumns(queryRunner, { softDelete: false }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'customer_group_members',
        columns: [
          { name: 'customer_group_id', type: 'integer', isPrimary: true },
          { name: 'user_id', type: 'integer', isPrimary: true },
        ],
        // A shopper's groups are read by user on every priced request.
        indices: [{ name: 'IDX_customer_group_members_user', columnNames: ['user_id', 'customer_group_id'] }],
        foreignKeys: [
          {
            name: 'FK_customer_group_members_group',
            columnNames: ['customer_group_id'],
            referencedTableName: 'customer_groups',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
          {
            name: 'FK_customer_group_members_user',
            columnNames: ['user_id'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('customer_group_members');
    await queryRunner.dropTable('customer_groups');
  }
}
