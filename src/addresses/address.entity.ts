import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { Timestamped } from '../database/timestamped.js';

/** A structured postal address of a user's address book. */
@Entity('addresses')
export class Address extends Timestamped {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  /** The recipient. */
  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 200 })
  line1: string;

  @Column({ type: 'varchar', length: 200, default: '' })
  line2: string;

  @Column({ type: 'varchar', length: 100 })
  city: string;

  @Column({ type: 'varchar', length: 100, default: '' })
  region: string;

  @Column({ name: 'postal_code', type: 'varchar', length: 20, default: '' })
  postalCode: string;

  /** ISO 3166-1 alpha-2, upper case. */
  @Column({ type: 'varchar', length: 2 })
  country: string;

  @Column({ type: 'varchar', length: 40, default: '' })
  phone: string;

  /** At most one per user: the writes that set it clear the others under the user's row lock. */
  @Column({ name: 'is_default', type: 'boolean', default: false })
  isDefault: boolean;
}
