import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/** Indexes for the back office's order list (its filters and sorts) and for the expiry of pending orders. */
export class IndexOrdersForBackOffice1763800600000 implements MigrationInterface {
  name = 'IndexOrdersForBackOffice1763800600000';

  private readonly indices = [
    // The default list, newest first, and created_from/created_to.
    new TableIndex({ name: 'IDX_orders_created_at', columnNames: ['created_at'] }),
    // status (and payment_status) filters in creation order; the expiry job's pending/pending/older-than.
    new TableIndex({
      name: 'IDX_orders_status_payment_created',
      columnNames: ['status', 'payment_status', 'created_at'],
    }),
    new TableIndex({ name: 'IDX_orders_payment_created', columnNames: ['payment_status', 'created_at'] }),
    new TableIndex({ name: 'IDX_orders_total', columnNames: ['total_cents'] }),
  ];

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndices('orders', this.indices);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const index of this.indices) await queryRunner.dropIndex('orders', index);
  }
}
