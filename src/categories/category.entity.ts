import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { SoftDeletable } from '../database/timestamped.js';

@Entity('categories')
export class Category extends SoftDeletable {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 120 })
  slug: string;

  /** `slug` while the category is live, null once deleted; unique ignoring case (the index decides races). */
  @Column({ name: 'live_slug', type: 'varchar', length: 120, nullable: true, select: false })
  liveSlug: string | null;

  @Column({ name: 'parent_id', type: 'integer', nullable: true })
  parentId: number | null;

  @Column({ type: 'text' })
  description: string;

  @Column({ type: 'integer', default: 0 })
  position: number;

  @Column({ name: 'is_active', type: 'boolean', default: true })
  isActive: boolean;
}
