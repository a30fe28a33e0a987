import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { changeTable } from '../table-changes.js';
import { timestampColumns } from '../timestamps.js';

/**
 * Server-side carts and their lines, and what an order placed from a cart keeps: orders without a user (guest
 * orders, `user_id` NULL) with their e-mail, the shipping cost, the structured address, the hash of the guest's
 * order token and the cart they came from (unique: one order per cart).
 */
export class CreateCarts1763802500000 implements MigrationInterface {
  name = 'CreateCarts1763802500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'carts',
        columns: [
          { name: 'id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'user_id', type: 'integer', isNullable: true },
          // SHA-256 of an anonymous cart's token (hex); NULL once the cart belongs to a user.
          { name: 'token_hash', type: 'varchar', length: '64', isNullable: true },
          { name: 'status', type: 'varchar', length: '16', default: "'open'" },
          { name: 'email', type: 'varchar', length: '254', isNullable: true },
          { name: 'shipping_address', type: 'text', isNullable: true },
          { name: 'shipping_option_id', type: 'integer', isNullable: true },
          ...timestampColumns(queryRunner, { softDelete: false }),
        ],
        foreignKeys: [
          {
            name: 'FK_carts_user',
            columnNames: ['user_id'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
        indices: [
          { name: 'IDX_carts_user_status', columnNames: ['user_id', 'status', 'updated_at'] },
          { name: 'IDX_carts_updated', columnNames: ['updated_at'] },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'cart_items',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'cart_id', type: 'varchar', length: '36' },
          // The product, also for a variant's line (its product).
          { name: 'product_id', type: 'integer' },
          { name: 'variant_id', type: 'integer', isNullable: true },
          { name: 'quantity', type: 'integer' },
          // The unit price when the line was added (or last raised), to tell the shopper it changed since.
          { name: 'added_price_cents', type: 'integer' },
          ...timestampColumns(queryRunner, { softDelete: false }),
        ],
        foreignKeys: [
          {
            name: 'FK_cart_items_cart',
            columnNames: ['cart_id'],
            referencedTableName: 'carts',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
          {
            name: 'FK_cart_items_product',
            columnNames: ['product_id'],
            referencedTableName: 'products',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
          {
            name: 'FK_cart_items_variant',
            columnNames: ['variant_id'],
            referencedTableName: 'product_variants',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
        indices: [
          // One line per variant; product lines (variant NULL) are kept one per product by the service, which
          // changes a cart's lines under its row lock.
          {
            name: 'UQ_cart_items_cart_product_variant',
            columnNames: ['cart_id', 'product_id', 'variant_id'],
            isUnique: true,
          },
          { name: 'IDX_cart_items_product', columnNames: ['product_id'] },
        ],
      }),
    );
    await changeTable(queryRunner, 'orders', {
      nullColumns: ['user_id'],
      addColumns: [
        { name: 'email', type: 'varchar', length: '254', isNullable: true },
        { name: 'shipping_total_cents', type: 'bigint', default: '0' },
        { name: 'shipping_address_details', type: 'text', isNullable: true },
        { name: 'order_token_hash', type: 'varchar', length: '64', isNullable: true },
        { name: 'cart_id', type: 'varchar', length: '36', isNullable: true },
      ],
    });
    await queryRunner.createIndex(
      'orders',
      new TableIndex({ name: 'UQ_orders_cart', columnNames: ['cart_id'], isUnique: true }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('orders', 'UQ_orders_cart');
    // Guest orders have no user to give back: they go before user_id is NOT NULL again.
    await queryRunner.query(
      'DELETE FROM order_items WHERE order_id IN (SELECT id FROM orders WHERE user_id IS NULL)',
    );
    await queryRunner.query('DELETE FROM orders WHERE user_id IS NULL');
    await changeTable(queryRunner, 'orders', {
      dropColumns: [
        'email',
        'shipping_total_cents',
        'shipping_address_details',
        'order_token_hash',
        'cart_id',
      ],
      notNullColumns: ['user_id'],
    });
    await queryRunner.dropTable('cart_items');
    await queryRunner.dropTable('carts');
  }
}
