import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { decimalNumber, jsonText } from '../database/json-column.js';
import { Timestamped } from '../database/timestamped.js';
import type { PromotionTarget, PromotionType } from './promotion-rules.js';

/** A discount code (`code`) or an automatic promotion (`code` null), with its conditions and usage. */
@Entity('promotions')
export class Promotion extends Timestamped {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 64, nullable: true })
  code: string | null;

  /** The code in lower case: unique, so codes are unique ignoring case. */
  @Column({ name: 'code_key', type: 'varchar', length: 64, nullable: true })
  codeKey: string | null;

  @Column({ type: 'varchar', length: 255, default: '' })
  description: string;

  @Column({ type: 'varchar', length: 16 })
  type: PromotionType;

  /** Percent (percentage), or an amount in major units of `currencyCode` (fixed); null for the other types. */
  @Column({ type: 'decimal', precision: 14, scale: 4, nullable: true, transformer: decimalNumber })
  value: number | null;

  @Column({ name: 'currency_code', type: 'varchar', length: 3, nullable: true })
  currencyCode: string | null;

  @Column({ type: 'varchar', length: 8, default: 'items' })
  target: PromotionTarget;

  /** In major units of the document's currency. */
  @Column({
    name: 'min_subtotal',
    type: 'decimal',
    precision: 14,
    scale: 4,
    nullable: true,
    transformer: decimalNumber,
  })
  minSubtotal: number | null;

  @Column({ name: 'product_ids', type: 'text', nullable: true, transformer: jsonText<number[]>() })
  productIds: number[] | null;

  @Column({ name: 'category_ids', type: 'text', nullable: true, transformer: jsonText<number[]>() })
  categoryIds: number[] | null;

  @Column({ name: 'customer_group_ids', type: 'text', nullable: true, transformer: jsonText<number[]>() })
  customerGroupIds: number[] | null;

  @Column({ name: 'first_order_only', type: 'boolean', default: false })
  firstOrderOnly: boolean;

  @Column({ name: 'buy_quantity', type: 'integer', nullable: true })
  buyQuantity: number | null;

  @Column({ name: 'get_quantity', type: 'integer', nullable: true })
  getQuantity: number | null;

  @Column({
    name: 'get_percentage',
    type: 'decimal',
    precision: 14,
    scale: 4,
    nullable: true,
    transformer: decimalNumber,
  })
  getPercentage: number | null;

  @Column({ name: 'starts_at', type: 'datetime', precision: 3, nullable: true })
  startsAt: Date | null;

  @Column({ name: 'ends_at', type: 'datetime', precision: 3, nullable: true })
  endsAt: Date | null;

  @Column({ name: 'usage_limit', type: 'integer', nullable: true })
  usageLimit: number | null;

  @Column({ name: 'usage_limit_per_customer', type: 'integer', nullable: true })
  usageLimitPerCustomer: number | null;

  @Column({ type: 'boolean', default: true })
  combinable: boolean;

  @Column({ name: 'is_active', type: 'boolean', default: true })
  isActive: boolean;

  /** Uses taken by placed orders and not given back; changed only by conditional updates. */
  @Column({ name: 'used_count', type: 'integer', default: 0 })
  usedCount: number;
}

/** A code a cart holds. */
@Entity('cart_discount_codes')
export class CartDiscountCode {
  @PrimaryColumn({ name: 'cart_id', type: 'varchar', length: 36 })
  cartId: string;

  @PrimaryColumn({ name: 'promotion_id', type: 'integer' })
  promotionId: number;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt: Date;
}

/** An order's use of a promotion: whose it is, and when a cancellation gave it back. */
@Entity('promotion_usages')
export class PromotionUsage {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'promotion_id', type: 'integer' })
  promotionId: number;

  @Column({ name: 'order_id', type: 'integer' })
  orderId: number;

  @Column({ name: 'user_id', type: 'integer', nullable: true })
  userId: number | null;

  @Column({ type: 'varchar', length: 254, nullable: true })
  email: string | null;

  @Column({ name: 'released_at', type: 'datetime', precision: 3, nullable: true })
  releasedAt: Date | null;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt: Date;
}
