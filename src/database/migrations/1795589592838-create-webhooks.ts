import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { addCheck } from '../check-constraints.js';
import { timestampColumns } from '../timestamps.js';

export class CreateWebhooks1795589592838 implements MigrationInterface {
  name = 'CreateWebhooks1795589592838';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'webhooks',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'name', type: 'varchar', length: '200' },
          { name: 'quantity', type: 'integer', default: 0 },
          ...timestampColumns(queryRunner, { softDelete: false }),
        ],
      }),
    );
    // Not `checks` of the Table: TypeORM creates those on SQLite only.
    await addCheck(queryRunner, 'webhooks', 'CHK_webhooks_quantity', 'quantity >= 0');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('webhooks');
  }
}
