import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { jsonText } from '../database/json-column.js';
import { SoftDeletable } from '../database/timestamped.js';

/** Minor units per lower-case ISO 4217 currency code. */
export type CurrencyPrices = Record<string, number>;

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

  /** Prices in the other regions' currencies, in minor units: `{"eur": 1999}` (the default's is priceCents). */
  @Column({ type: 'text', nullable: true, transformer: jsonText<CurrencyPrices>() })
  prices: CurrencyPrices | null;

  @Column({ name: 'tax_class', type: 'varchar', length: 32, default: 'standard' })
  taxClass: string;

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
