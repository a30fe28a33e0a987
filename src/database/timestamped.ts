import { CreateDateColumn, DeleteDateColumn, UpdateDateColumn } from 'typeorm';

/** `created_at` and `updated_at` with millisecond precision (see timestampColumns in migrations). */
export abstract class Timestamped {
  @CreateDateColumn({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'datetime', precision: 3 })
  updatedAt: Date;
}

/** Timestamps plus `deleted_at`: TypeORM's reads skip soft-deleted rows. */
export abstract class SoftDeletable extends Timestamped {
  @DeleteDateColumn({ name: 'deleted_at', type: 'datetime', precision: 3, nullable: true, select: false })
  deletedAt: Date | null;
}
