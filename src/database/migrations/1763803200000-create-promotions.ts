import { MigrationInterface, QueryRunner, Table, type TableColumnOptions } from 'typeorm';
import { changeTable } from '../table-changes.js';
import { datetimeColumn, timestampColumns } from '../timestamps.js';

const id: TableColumnOptions = {
  name: 'id',
  type: 'integer',
  isPrimary: true,
  isGenerated: true,
  generationStrategy: 'increment',
};
const decimal = (name: string): TableColumnOptions => ({
  name,
  type: 'decimal',
  precision: 14,
  scale: 4,
  isNullable: true,
});
/** A list of ids as JSON text (`[3,7]`); NULL for none. */
const ids = (name: string): TableColumnOptions => ({ name, type: 'text', isNullable: true });

/**
 * Promotions (DESIGN.md §16): discount codes and automatic promotions, the codes a cart holds, and one usage row
 * per order and promotion (what cancelling gives back, once). Order adjustments name their promotion.
 */
export class CreatePromotions1763803200000 implements MigrationInterface {
  name = 'CreatePromotions1763803200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'promotions',
        columns: [
          id,
          { name: 'code', type: 'varchar', length: '64', isNullable: true },
          // The code in lower case: its unique index makes codes unique ignoring case (NULLs never collide).
          { name: 'code_key', type: 'varchar', length: '64', isNullable: true },
          { name: 'description', type: 'varchar', length: '255', default: "''" },
          { name: 'type', type: 'varchar', length: '16' },
          decimal('value'),
          { name: 'currency_code', type: 'varchar', length: '3', isNullable: true },
          { name: 'target', type: 'varchar', length: '8', default: "'items'" },
          decimal('min_subtotal'),
          ids('product_ids'),
          ids('category_ids'),
          ids('customer_group_ids'),
          { name: 'first_order_only', type: 'boolean', default: false },
          { name: 'buy_quantity', type: 'integer', isNullable: true },
          { name: 'get_quantity', type: 'integer', isNullable: true },
          decimal('get_percentage'),
          datetimeColumn(queryRunner, 'starts_at', { nullable: true }),
          datetimeColumn(queryRunner, 'ends_at', { nullable: true }),
          { name: 'usage_limit', type: 'integer', isNullable: true },
          { name: 'usage_limit_per_customer', type: 'integer', isNullable: true },
          { name: 'combinable', type: 'boolean', default: true },
          { name: 'is_active', type: 'boolean', default: true },
          { name: 'used_count', type: 'integer', default: '0' },
          ...timestampColumns(queryRunner, { softDelete: false }),
        ],
        indices: [
          { name: 'UQ_promotions_code_key', columnNames: ['code_key'], isUnique: true },
          // Every priced cart reads the active automatic promotions.
          { name: 'IDX_promotions_automatic', columnNames: ['is_active', 'code_key'] },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'cart_discount_codes',
        columns: [
          { name: 'cart_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'promotion_id', type: 'integer', isPrimary: true },
          ...timestampColumns(queryRunner, { softDelete: false }).slice(0, 1),
        ],
        indices: [{ name: 'IDX_cart_discount_codes_promotion', columnNames: ['promotion_id'] }],
        foreignKeys: [
          {
            name: 'FK_cart_discount_codes_cart',
            columnNames: ['cart_id'],
            referencedTableName: 'carts',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
          {
            name: 'FK_cart_discount_codes_promotion',
            columnNames: ['promotion_id'],
            referencedTableName: 'promotions',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'promotion_usages',
        columns: [
          id,
          { name: 'promotion_id', type: 'integer' },
          { name: 'order_id', type: 'integer' },
          // Whose use it is: the account (a guest's with that e-mail included) and the normalised e-mail.
          { name: 'user_id', type: 'integer', isNullable: true },
          { name: 'email', type: 'varchar', length: '254', isNullable: true },
          datetimeColumn(queryRunner, 'released_at', { nullable: true }),
          ...timestampColumns(queryRunner, { softDelete: false }).slice(0, 1),
        ],
        indices: [
          { name: 'UQ_promotion_usages_order', columnNames: ['order_id', 'promotion_id'], isUnique: true },
          { name: 'IDX_promotion_usages_user', columnNames: ['promotion_id', 'user_id'] },
          { name: 'IDX_promotion_usages_email', columnNames: ['promotion_id', 'email'] },
        ],
        foreignKeys: [
          {
            name: 'FK_promotion_usages_promotion',
            columnNames: ['promotion_id'],
            referencedTableName: 'promotions',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
          {
            name: 'FK_promotion_usages_order',
            columnNames: ['order_id'],
            referencedTableName: 'orders',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );
    // The promotion an adjustment came from and its description, kept when the promotion changes or goes.
    await changeTable(queryRunner, 'order_adjustments', {
      addColumns: [
        { name: 'promotion_id', type: 'integer', isNullable: true },
        { name: 'description', type: 'varchar', length: '255', isNullable: true },
      ],
    });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await changeTable(queryRunner, 'order_adjustments', { dropColumns: ['promotion_id', 'description'] });
    await queryRunner.dropTable('promotion_usages');
    await queryRunner.dropTable('cart_discount_codes');
    await queryRunner.dropTable('promotions');
  }
}
