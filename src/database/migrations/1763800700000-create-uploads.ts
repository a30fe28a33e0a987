import { MigrationInterface, QueryRunner, Table, TableIndex } from 'typeorm';
import { datetimeColumn } from '../timestamps.js';

/**
 * One row per stored upload: who owns it, for deletion and the daily quota, and when it was stored, for the
 * removal of files no product uses. Files stored before this table have no row (docs/api.md#upload).
 */
export class CreateUploads1763800700000 implements MigrationInterface {
  name = 'CreateUploads1763800700000';

  private readonly productImageIndex = new TableIndex({
    name: 'IDX_products_image',
    columnNames: ['image'],
  });

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'uploads',
        columns: [
          // The storage key, `YYYY/MM/<32 hex digits>.<ext>`: the `filename` of POST /upload.
          { name: 'path', type: 'varchar', length: '64', isPrimary: true },
          { name: 'owner_id', type: 'integer' },
          { name: 'size', type: 'bigint' },
          { name: 'content_type', type: 'varchar', length: '100' },
          datetimeColumn(queryRunner, 'created_at', { nullable: false }),
        ],
        foreignKeys: [
          {
            name: 'FK_uploads_owner',
            columnNames: ['owner_id'],
            referencedTableName: 'users',
            referencedColumnNames: ['id'],
            // Users are soft-deleted; removing one for good must not leave stored files without a row.
            onDelete: 'RESTRICT',
          },
        ],
        indices: [
          // The quota: an owner's uploads of the last 24 hours.
          { name: 'IDX_uploads_owner_created', columnNames: ['owner_id', 'created_at'] },
          // The orphan removal: uploads older than UPLOAD_ORPHAN_TTL.
          { name: 'IDX_uploads_created_at', columnNames: ['created_at'] },
        ],
      }),
    );
    // "Is this file a product's image?" for the orphan removal and for deletes.
    await queryRunner.createIndex('products', this.productImageIndex);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('products', this.productImageIndex);
    await queryRunner.dropTable('uploads');
  }
}
