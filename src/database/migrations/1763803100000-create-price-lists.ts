import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { changeTable } from '../table-changes.js';
import { datetimeColumn, timestampColumns } from '../timestamps.js';

/**
 * Price lists (DESIGN.md §16): sale or override prices per product or variant and currency, limited to dates and
 * customer groups; an order item keeps its price before any list (`original_unit_price_cents`, NULL for the
 * items placed before).
 */
export class CreatePriceLists1763803100000 implements MigrationInterface {
  name = 'CreatePriceLists1763803100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'price_lists',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'name', type: 'varchar', length: '100' },
          { name: 'description', type: 'varchar', length: '500', isNullable: true },
          { name: 'type', type: 'varchar', length: '16' },
          { name: 'status', type: 'varchar', length: '16' },
          datetimeColumn(queryRunner, 'starts_at', { nullable: true }),
          datetimeColumn(queryRunner, 'ends_at', { nullable: true }),
          ...timestampColumns(queryRunner, { softDelete: false }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'price_list_customer_groups',
        columns: [
          { name: 'price_list_id', type: 'integer', isPrimary: true },
          { name: 'customer_group_id', type: 'integer', isPrimary: true },
        ],
        indices: [{ name: 'IDX_price_list_customer_groups_group', columnNames: ['customer_group_id'] }],
        foreignKeys: [
          {
            name: 'FK_price_list_customer_groups_list',
            columnNames: ['price_list_id'],
            referencedTableName: 'price_lists',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
          {
            // No cascade: a group's deletion must not open its lists to everyone (it is refused instead).
            name: 'FK_price_list_customer_groups_group',
            columnNames: ['customer_group_id'],
            referencedTableName: 'customer_groups',
            referencedColumnNames: ['id'],
          },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'price_list_prices',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'price_list_id', type: 'integer' },
          { name: 'product_id', type: 'integer', isNullable: true },
          { name: 'variant_id', type: 'integer', isNullable: true },
          { name: 'currency_code', type: 'varchar', length: '3' },
          { name: 'amount_minor', type: 'bigint' },
        ],
        // A document's lines find their list prices by product or variant and currency.
        indices: [
          { name: 'IDX_price_list_prices_list', columnNames: ['price_list_id'] },
          { name: 'IDX_price_list_prices_product', columnNames: ['product_id', 'currency_code'] },
          { name: 'IDX_price_list_prices_variant', columnNames: ['variant_id', 'currency_code'] },
        ],
        foreignKeys: [
          {
            name: 'FK_price_list_prices_list',
            columnNames: ['price_list_id'],
            referencedTableName: 'price_lists',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
          {
            name: 'FK_price_list_prices_product',
            columnNames: ['product_id'],
            referencedTableName: 'products',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
          {
            name: 'FK_price_list_prices_variant',
            columnNames: ['variant_id'],
            referencedTableName: 'product_variants',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );
    await changeTable(queryRunner, 'order_items', {
      addColumns: [{ name: 'original_unit_price_cents', type: 'integer', isNullable: true }],
    });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await changeTable(queryRunner, 'order_items', { dropColumns: ['original_unit_price_cents'] });
    await queryRunner.dropTable('price_list_prices');
    await queryRunner.dropTable('price_list_customer_groups');
    await queryRunner.dropTable('price_lists');
  }
}
