import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
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

  /** ISO 3166-1 alpha-2 codes it ships to; empty: everywhere. */
  @Column({ type: 'simple-json' })
  countries: string[];

  @Column({ name: 'is_active', type: 'boolean', default: true })
  isActive: boolean;
}
