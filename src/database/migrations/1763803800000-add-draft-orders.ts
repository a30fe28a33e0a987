import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';
import { changeTable } from '../table-changes.js';

/**
 * Draft orders (DESIGN.md §16): a cart staff build for a customer names the staff member (`carts.draft_by_user_id`,
 * null for a shopper's cart), and its order keeps who placed it (`orders.placed_by_user_id`, null when the customer
 * did). Open drafts are listed by the index on both columns.
 */
export class AddDraftOrders1763803800000 implements MigrationInterface {
  name = 'AddDraftOrders1763803800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await changeTable(queryRunner, 'carts', {
      addColumns: [{ name: 'draft_by_user_id', type: 'integer', isNullable: true }],
    });
    await queryRunner.createIndex(
      'carts',
      new TableIndex({ name: 'IDX_carts_draft', columnNames: ['draft_by_user_id', 'status'] }),
    );
    await changeTable(queryRunner, 'orders', {
      addColumns: [{ name: 'placed_by_user_id', type: 'integer', isNullable: true }],
    });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await changeTable(queryRunner, 'orders', { dropColumns: ['placed_by_user_id'] });
    await queryRunner.dropIndex('carts', 'IDX_carts_draft');
    await changeTable(queryRunner, 'carts', { dropColumns: ['draft_by_user_id'] });
  }
}
