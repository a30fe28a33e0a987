import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { Timestamped } from '../database/timestamped.js';

/** Where a shop sells in one currency, with or without tax in its prices (DESIGN.md §16). */
@Entity('regions')
export class Region extends Timestamped {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  /** Lower-case ISO 4217. */
  @Column({ name: 'currency_code', type: 'varchar', length: 3 })
  currencyCode: string;

  @Column({ name: 'prices_include_tax', type: 'boolean', default: false })
  pricesIncludeTax: boolean;

  /** Serves every country no other region lists; made from CURRENCY, never deleted. */
  @Column({ name: 'is_default', type: 'boolean', default: false })
  isDefault: boolean;
}

/** A country of a region: a country is in at most one (the primary key), listed in `position` order. */
@Entity('region_countries')
export class RegionCountry {
  @PrimaryColumn({ type: 'varchar', length: 2 })
  country: string;

  @Column({ name: 'region_id', type: 'integer' })
  regionId: number;

  @Column({ type: 'integer' })
  position: number;
}
