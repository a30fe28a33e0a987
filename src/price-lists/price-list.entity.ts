import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { bigintNumber } from '../database/json-column.js';
import { Timestamped } from '../database/timestamped.js';

export const PRICE_LIST_TYPES = ['sale', 'override'] as const;
export type PriceListType = (typeof PRICE_LIST_TYPES)[number];
export const PRICE_LIST_STATUSES = ['active', 'draft'] as const;
export type PriceListStatus = (typeof PRICE_LIST_STATUSES)[number];

/** Sale or override prices, from `startsAt` up to `endsAt`, for everyone or for some customer groups. */
@Entity('price_lists')
export class PriceList extends Timestamped {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;

  @Column({ type: 'varchar', length: 16 })
  type: PriceListType;

  @Column({ type: 'varchar', length: 16 })
  status: PriceListStatus;

  @Column({ name: 'starts_at', type: 'datetime', precision: 3, nullable: true })
  startsAt: Date | null;

  @Column({ name: 'ends_at', type: 'datetime', precision: 3, nullable: true })
  endsAt: Date | null;
}

/** A group a list is limited to; a list without any is for everyone. */
@Entity('price_list_customer_groups')
export class PriceListCustomerGroup {
  @PrimaryColumn({ name: 'price_list_id', type: 'integer' })
  priceListId: number;

  @PrimaryColumn({ name: 'customer_group_id', type: 'integer' })
  customerGroupId: number;
}

/** A list's price of a product (`variantId` null) or of a variant (`productId` null), in minor units. */
@Entity('price_list_prices')
export class PriceListPrice {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'price_list_id', type: 'integer' })
  priceListId: number;

  @Column({ name: 'product_id', type: 'integer', nullable: true })
  productId: number | null;

  @Column({ name: 'variant_id', type: 'integer', nullable: true })
  variantId: number | null;

  @Column({ name: 'currency_code', type: 'varchar', length: 3 })
  currencyCode: string;

  @Column({ name: 'amount_minor', type: 'bigint', transformer: bigintNumber })
  amountMinor: number;
}
