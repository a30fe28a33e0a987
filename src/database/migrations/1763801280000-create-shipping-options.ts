import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { addCheck } from '../check-constraints.js';
import { timestampColumns } from '../timestamps.js';

/** Shipping options: a price in cents and the countries they ship to (a JSON array; empty: everywhere). */
export class CreateShippingOptions1763801280000 implements MigrationInterface {
  name = 'CreateShippingOptions1763801280000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'shipping_options',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'name', type: 'varchar', length: '200' },
          { name: 'price_cents', type: 'integer' },
          { name: 'countries', type: 'text' },
          { name: 'is_active', type: 'boolean', default: true },
          ...timestampColumns(queryRunner, { softDelete: true }),
        ],
      }),
    );
    // Not `checks` of the Table: TypeORM creates those on SQLite only.
    await addCheck(queryRunner, 'shipping_options', 'CHK_shipping_options_price', 'price_cents >= 0');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('shipping_options');
  }
}
