import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { SoftDeletable } from '../database/timestamped.js';

@Entity('products')
export class Product extends SoftDeletable {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'text' })
  description: string;

  /** Price in cents: exact on every database; the API shows `price_cents / 100`. */
  @Column({ name: 'price_cents', type: 'integer' })
  priceCents: number;

  @Column({ type: 'integer' })
  stock: number;

  @Column({ name: 'category_id', type: 'integer' })
  categoryId: number;

  @Column({ type: 'varchar', length: 255, default: '' })
  image: string;

  @Column({ name: 'is_active', type: 'boolean', default: true })
  isActive: boolean;

  /** Unique among live products (lowercase, so also ignoring case); null once the product is deleted. */
  @Column({ type: 'varchar', length: 200, nullable: true })
  slug: string | null;

  /** What else a search matches (variant SKUs and titles): see `searchTextOf`. Never returned. */
  @Column({ name: 'search_text', type: 'text', nullable: true, select: false })
  searchText?: string | null;
}
