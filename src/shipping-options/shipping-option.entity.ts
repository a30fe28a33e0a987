import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { jsonText } from '../database/json-column.js';
import { SoftDeletable } from '../database/timestamped.js';

/** A way of shipping an order, at a fixed price, to some countries or everywhere. */
@Entity('shipping_options')
export class ShippingOption extends SoftDeletable {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  /** Price in cents: exact on every database; the API shows `price_cents / 100`. */
  @Column({ name: 'price_cents', type: 'integer' })
  priceCents: number;

  /** Prices in the other regions' currencies, in minor units: `{"eur": 499}` (the default's is priceCents). */
  @Column({ type: 'text', nullable: true, transformer: jsonText<Record<string, number>>() })
  prices: Record<string, number> | null;

  @Column({ name: 'tax_class', type: 'varchar', length: 32, default: 'standard' })
  taxClass: string;

  /** ISO 3166-1 alpha-2 codes it ships to; empty: everywhere. */
  @Column({ type: 'simple-json' })
  countries: string[];

  @Column({ name: 'is_active', type: 'boolean', default: true })
  isActive: boolean;
}
