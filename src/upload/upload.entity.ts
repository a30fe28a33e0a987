import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/** A stored upload, written in the same unit of work as its object (see UploadService). */
@Entity('uploads')
export class Upload {
  /** The storage key and the `filename` clients see: `YYYY/MM/<random>.<ext>`. */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  path: string;

  @Column({ name: 'owner_id', type: 'integer' })
  ownerId: number;

  @Column({
    type: 'bigint',
    transformer: { to: (value: number) => value, from: (value: unknown) => Number(value) },
  })
  size: number;

  @Column({ name: 'content_type', type: 'varchar', length: 100 })
  contentType: string;

  @CreateDateColumn({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt: Date;
}
