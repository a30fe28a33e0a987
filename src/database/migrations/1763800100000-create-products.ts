import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { timestampColumns } from '../timestamps.js';

export class CreateProducts1763800100000 implements MigrationInterface {
  name = 'CreateProducts1763800100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'products',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'name', type: 'varchar', length: '200' },
          { name: 'description', type: 'text' },
          { name: 'price_cents', type: 'integer' },
          { name: 'stock', type: 'integer' },
          { name: 'category_id', type: 'integer' },
          { name: 'image', type: 'varchar', length: '255', default: "''" },
          { name: 'is_active', type: 'boolean', default: true },
          ...timestampColumns(queryRunner, { softDelete: true }),
        ],
        checks: [
          { name: 'CHK_products_stock', expression: 'stock >= 0' },
          { name: 'CHK_products_price', expression: 'price_cents > 0' },
        ],
        indices: [
          // Lists filter on visibility (and usually a category) and page in id order; these make both
          // the page and its COUNT(*) index-only.
          { name: 'IDX_products_category_visible', columnNames: ['category_id', 'is_active', 'deleted_at'] },
          { name: 'IDX_products_visible', columnNames: ['is_active', 'deleted_at'] },
          { name: 'IDX_products_price', columnNames: ['price_cents'] },
          { name: 'IDX_products_created_at', columnNames: ['created_at'] },
          { name: 'IDX_products_name', columnNames: ['name'] },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('products');
  }
}
