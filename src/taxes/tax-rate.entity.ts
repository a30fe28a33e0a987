import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { Timestamped } from '../database/timestamped.js';
import { decimalNumber } from '../database/json-column.js';

/** A tax rate for a tax class in a country, or in one of its subdivisions. */
@Entity('tax_rates')
export class TaxRateRow extends Timestamped {
  @PrimaryGeneratedColumn()
  id: number;

  /** ISO 3166-1 alpha-2, upper case. */
  @Column({ type: 'varchar', length: 2 })
  country: string;

  /** The second part of an ISO 3166-2 code ("CA" of US-CA); '' for the whole country (the API says null). */
  @Column({ type: 'varchar', length: 3, default: '' })
  subdivision: string;

  @Column({ name: 'tax_class', type: 'varchar', length: 32 })
  taxClass: string;

  /** Percent, up to 4 decimals. */
  @Column({ type: 'decimal', precision: 9, scale: 4, transformer: decimalNumber })
  rate: number;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'varchar', length: 32 })
  code: string;
}
