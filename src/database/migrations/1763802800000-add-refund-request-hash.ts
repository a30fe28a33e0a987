import { MigrationInterface, QueryRunner } from 'typeorm';
import { changeTable } from '../table-changes.js';

/** A refund's request, hashed, so that an Idempotency-Key reused with another amount or reason is refused. */
export class AddRefundRequestHash1763802800000 implements MigrationInterface {
  name = 'AddRefundRequestHash1763802800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await changeTable(queryRunner, 'payment_refunds', {
      addColumns: [{ name: 'request_hash', type: 'varchar', length: '64', isNullable: true }],
    });
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await changeTable(queryRunner, 'payment_refunds', { dropColumns: ['request_hash'] });
  }
}
