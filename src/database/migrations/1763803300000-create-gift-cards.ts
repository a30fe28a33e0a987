import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { datetimeColumn, timestampColumns } from '../timestamps.js';

/**
 * Gift cards (DESIGN.md §16): a tender with a balance in one currency, the cards applied to carts, and each
 * card's ledger of what orders took (`debit`) and what cancellations and refunds gave back (`credit`).
 */
export class CreateGiftCards1763803300000 implements MigrationInterface {
  name = 'CreateGiftCards1763803300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'gift_cards',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          // SHA-256 of the code (hex): the code itself is shown once, when the card is made.
          { name: 'code_hash', type: 'varchar', length: '64', isUnique: true },
          { name: 'code_last4', type: 'varchar', length: '4' },
          { name: 'currency_code', type: 'varchar', length: '3' },
          { name: 'initial_balance_minor', type: 'bigint' },
          { name: 'balance_minor', type: 'bigint' },
          datetimeColumn(queryRunner, 'expires_at', { nullable: true }),
          { name: 'is_active', type: 'boolean', default: true },
          ...timestampColumns(queryRunner, { softDelete: false }),
        ],
        // The conditional update of a checkout never lets a balance go negative; this is the database's word on it.
        checks: [{ name: 'CHK_gift_cards_balance', expression: 'balance_minor >= 0' }],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'cart_gift_cards',
        columns: [
          { name: 'cart_id', type: 'varchar', length: '36', isPrimary: true },
          { name: 'gift_card_id', type: 'integer', isPrimary: true },
          ...timestampColumns(queryRunner, { softDelete: false }),
        ],
        foreignKeys: [
          {
            name: 'FK_cart_gift_cards_cart',
            columnNames: ['cart_id'],
            referencedTableName: 'carts',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
          {
            name: 'FK_cart_gift_cards_gift_card',
            columnNames: ['gift_card_id'],
            referencedTableName: 'gift_cards',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'gift_card_transactions',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'gift_card_id', type: 'integer' },
          { name: 'order_id', type: 'integer' },
          // debit: an order took it; credit: a cancellation or a refund gave it back.
          { name: 'kind', type: 'varchar', length: '8' },
          { name: 'amount_minor', type: 'bigint' },
          // A refund's credit names its refund: settled again, it is written once per card.
          { name: 'payment_refund_id', type: 'integer', isNullable: true },
          ...timestampColumns(queryRunner, { softDelete: false }),
        ],
        indices: [
          { name: 'IDX_gift_card_transactions_order', columnNames: ['order_id', 'gift_card_id'] },
          {
            name: 'UQ_gift_card_transactions_refund',
            columnNames: ['payment_refund_id', 'gift_card_id'],
            isUnique: true,
          },
        ],
        foreignKeys: [
          {
            name: 'FK_gift_card_transactions_gift_card',
            columnNames: ['gift_card_id'],
            referencedTableName: 'gift_cards',
            referencedColumnNames: ['id'],
          },
          {
            name: 'FK_gift_card_transactions_order',
            columnNames: ['order_id'],
            referencedTableName: 'orders',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('gift_card_transactions');
    await queryRunner.dropTable('cart_gift_cards');
    await queryRunner.dropTable('gift_cards');
  }
}
