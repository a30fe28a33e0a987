import { MigrationInterface, QueryRunner, Table, TableIndex, type TableColumnOptions } from 'typeorm';
import { changeTable } from '../table-changes.js';
import { timestampColumns } from '../timestamps.js';

const id: TableColumnOptions = {
  name: 'id',
  type: 'integer',
  isPrimary: true,
  isGenerated: true,
  generationStrategy: 'increment',
};
/** Amounts in minor units of the document's currency. */
const minor = (name: string): TableColumnOptions => ({ name, type: 'bigint', default: '0' });
const taxClass: TableColumnOptions = {
  name: 'tax_class',
  type: 'varchar',
  length: '32',
  default: "'standard'",
};
/** Other currencies' prices as JSON `{"eur": 1999}` in minor units; the default currency's is `price_cents`. */
const prices: TableColumnOptions = { name: 'prices', type: 'text', isNullable: true };

/**
 * Regions with their currency and countries, tax rates, prices per currency and tax classes, and what an order
 * keeps of its calculation (DESIGN.md §16): its totals, each line's discount, tax and total, and the tax lines
 * and adjustments of its lines and shipping. The default region is made from CURRENCY; orders placed before
 * keep their amounts (subtotal = total - shipping, no tax).
 */
export class CreateRegionsAndTaxes1763802900000 implements MigrationInterface {
  name = 'CreateRegionsAndTaxes1763802900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const currency = (process.env.CURRENCY ?? 'usd').toLowerCase();
    await queryRunner.createTable(
      new Table({
        name: 'regions',
        columns: [
          id,
          { name: 'name', type: 'varchar', length: '100' },
          { name: 'currency_code', type: 'varchar', length: '3' },
          { name: 'prices_include_tax', type: 'boolean', default: false },
          { name: 'is_default', type: 'boolean', default: false },
          ...timestampColumns(queryRunner, { softDelete: false }),
        ],
      }),
    );
    // A country belongs to at most one region: its primary key.
    await queryRunner.createTable(
      new Table({
        name: 'region_countries',
        columns: [
          { name: 'country', type: 'varchar', length: '2', isPrimary: true },
          { name: 'region_id', type: 'integer' },
          { name: 'position', type: 'integer' },
        ],
        indices: [{ name: 'IDX_region_countries_region', columnNames: ['region_id', 'position'] }],
        foreignKeys: [
          {
            name: 'FK_region_countries_region',
            columnNames: ['region_id'],
            referencedTableName: 'regions',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );
    await queryRunner.query(
      'INSERT INTO regions (name, currency_code, prices_include_tax, is_default) VALUES (?, ?, ?, ?)',
      ['Default', currency, false, true],
    );
    await queryRunner.createTable(
      new Table({
        name: 'tax_rates',
        columns: [
          id,
          { name: 'country', type: 'varchar', length: '2' },
          // '' for a country-wide rate, so that the unique index sees it (NULLs never collide).
          { name: 'subdivision', type: 'varchar', length: '3', default: "''" },
          { name: 'tax_class', type: 'varchar', length: '32' },
          { name: 'rate', type: 'decimal', precision: 9, scale: 4 },
          { name: 'name', type: 'varchar', length: '100' },
          { name: 'code', type: 'varchar', length: '32' },
          ...timestampColumns(queryRunner, { softDelete: false }),
        ],
        indices: [
          {
            name: 'UQ_tax_rates_place_class',
            columnNames: ['country', 'subdivision', 'tax_class'],
            isUnique: true,
          },
        ],
      }),
    );
    await changeTable(queryRunner, 'products', { addColumns: [prices, taxClass] });
    await changeTable(queryRunner, 'product_variants', { addColumns: [prices] });
    await changeTable(queryRunner, 'shipping_options', { addColumns: [prices, taxClass] });
    await changeTable(queryRunner, 'carts', {
      addColumns: [{ name: 'region_id', type: 'integer', isNullable: true }],
    });
    await changeTable(queryRunner, 'orders', {
      addColumns: [
        {
          name: 'currency_code',
          type: 'varchar',
          length: '3',
          default: `'${currency.replace(/[^a-z]/g, '')}'`,
        },
        { name: 'region_id', type: 'integer', isNullable: true },
        { name: 'prices_include_tax', type: 'boolean', default: false },
        minor('subtotal_minor'),
        minor('discount_total_minor'),
        minor('tax_total_minor'),
        minor('shipping_tax_total_minor'),
        minor('gift_card_total_minor'),
        { name: 'tax_calculation_id', type: 'varchar', length: '255', isNullable: true },
        { name: 'tax_transaction_id', type: 'varchar', length: '255', isNullable: true },
      ],
    });
    await queryRunner.query('UPDATE orders SET subtotal_minor = total_cents - shipping_total_cents');
    await changeTable(queryRunner, 'order_items', {
      addColumns: [taxClass, minor('discount_total_minor'), minor('tax_total_minor'), minor('total_minor')],
    });
    await queryRunner.query('UPDATE order_items SET total_minor = unit_price_cents * quantity');
    // A line's (order_item_id) or, with NULL, the shipping's: what the calculator gave, kept for refunds.
    for (const table of ['order_tax_lines', 'order_adjustments']) {
      const tax = table === 'order_tax_lines';
      await queryRunner.createTable(
        new Table({
          name: table,
          columns: [
            id,
            { name: 'order_id', type: 'integer' },
            { name: 'order_item_id', type: 'integer', isNullable: true },
            { name: 'code', type: 'varchar', length: '64' },
            ...(tax
              ? [
                  { name: 'name', type: 'varchar', length: '100' },
                  { name: 'rate', type: 'decimal', precision: 9, scale: 4 },
                ]
              : [{ name: 'source', type: 'varchar', length: '64' }]),
            { name: 'amount_minor', type: 'bigint' },
          ],
          foreignKeys: [
            {
              name: `FK_${table}_order`,
              columnNames: ['order_id'],
              referencedTableName: 'orders',
              referencedColumnNames: ['id'],
              onDelete: 'CASCADE',
            },
          ],
        }),
      );
      await queryRunner.createIndex(
        table,
        new TableIndex({ name: `IDX_${table}_order`, columnNames: ['order_id', 'order_item_id'] }),
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('order_adjustments');
    await queryRunner.dropTable('order_tax_lines');
    await changeTable(queryRunner, 'order_items', {
      dropColumns: ['tax_class', 'discount_total_minor', 'tax_total_minor', 'total_minor'],
    });
    await changeTable(queryRunner, 'orders', {
      dropColumns: [
        'currency_code',
        'region_id',
        'prices_include_tax',
        'subtotal_minor',
        'discount_total_minor',
        'tax_total_minor',
        'shipping_tax_total_minor',
        'gift_card_total_minor',
        'tax_calculation_id',
        'tax_transaction_id',
      ],
    });
    await changeTable(queryRunner, 'carts', { dropColumns: ['region_id'] });
    await changeTable(queryRunner, 'shipping_options', { dropColumns: ['prices', 'tax_class'] });
    await changeTable(queryRunner, 'product_variants', { dropColumns: ['prices'] });
    await changeTable(queryRunner, 'products', { dropColumns: ['prices', 'tax_class'] });
    await queryRunner.dropTable('tax_rates');
    await queryRunner.dropTable('region_countries');
    await queryRunner.dropTable('regions');
  }
}
