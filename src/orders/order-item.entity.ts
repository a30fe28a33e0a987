import { Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from 'typeorm';
import { bigintNumber, decimalNumber } from '../database/json-column.js';
import { Order } from './order.entity.js';

@Entity('order_items')
export class OrderItem {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'order_id', type: 'integer' })
  orderId: number;

  @ManyToOne(() => Order, (order) => order.items, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'order_id' })
  order: Relation<Order>;

  @Column({ name: 'product_id', type: 'integer' })
  productId: number;

  /** The product's name when the order was placed. */
  @Column({ name: 'product_name', type: 'varchar', length: 200 })
  productName: string;

  /** The unit price when the order was placed, in minor units of the order's currency. */
  @Column({ name: 'unit_price_cents', type: 'integer' })
  unitPriceCents: number;

  /**
   * The product's (or variant's) own unit price when the order was placed, before any price list; null for the
   * items placed before price lists (their price was their own).
   */
  @Column({ name: 'original_unit_price_cents', type: 'integer', nullable: true })
  originalUnitPriceCents: number | null;

  @Column({ type: 'integer' })
  quantity: number;

  /** The variant ordered; null for a product without variants. SKU and title as they were when ordered. */
  @Column({ name: 'variant_id', type: 'integer', nullable: true })
  variantId: number | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  sku: string | null;

  @Column({ name: 'variant_title', type: 'varchar', length: 200, nullable: true })
  variantTitle: string | null;

  @Column({ name: 'tax_class', type: 'varchar', length: 32, default: 'standard' })
  taxClass: string;

  /** The calculator's amounts of the line, in minor units: its discounts, its taxes and what it costs. */
  @Column({ name: 'discount_total_minor', type: 'bigint', default: 0, transformer: bigintNumber })
  discountTotalMinor: number;

  @Column({ name: 'tax_total_minor', type: 'bigint', default: 0, transformer: bigintNumber })
  taxTotalMinor: number;

  @Column({ name: 'total_minor', type: 'bigint', default: 0, transformer: bigintNumber })
  totalMinor: number;

  /** Units carried by live fulfilments (0..quantity, a CHECK); a new item takes the column's default. */
  @Column({ name: 'fulfilled_quantity', type: 'integer', default: 0, insert: false })
  fulfilledQuantity: number;

  /** Units in a return requested or received (0..fulfilledQuantity, a CHECK); a new item takes the default. */
  @Column({ name: 'returned_quantity', type: 'integer', default: 0, insert: false })
  returnedQuantity: number;
}

/** A tax of an order's item, or of its shipping (`orderItemId` null), as the calculator gave it. */
@Entity('order_tax_lines')
export class OrderTaxLine {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'order_id', type: 'integer' })
  orderId: number;

  @ManyToOne(() => Order, (order) => order.taxLines, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'order_id' })
  order?: Relation<Order>;

  @Column({ name: 'order_item_id', type: 'integer', nullable: true })
  orderItemId: number | null;

  @Column({ type: 'varchar', length: 64 })
  code: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'decimal', precision: 9, scale: 4, transformer: decimalNumber })
  rate: number;

  @Column({ name: 'amount_minor', type: 'bigint', transformer: bigintNumber })
  amountMinor: number;
}

/** A discount of an order's item, or of its shipping (`orderItemId` null), and the adjuster it came from. */
@Entity('order_adjustments')
export class OrderAdjustment {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'order_id', type: 'integer' })
  orderId: number;

  @ManyToOne(() => Order, (order) => order.adjustments, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'order_id' })
  order?: Relation<Order>;

  @Column({ name: 'order_item_id', type: 'integer', nullable: true })
  orderItemId: number | null;

  /** What the shopper sees (a promotion's code or name). */
  @Column({ type: 'varchar', length: 64 })
  code: string;

  /** The adjuster that gave it (its `name`). */
  @Column({ type: 'varchar', length: 64 })
  source: string;

  @Column({ name: 'amount_minor', type: 'bigint', transformer: bigintNumber })
  amountMinor: number;

  /** The promotion that gave it (kept when the promotion is changed or deleted), and its description then. */
  @Column({ name: 'promotion_id', type: 'integer', nullable: true })
  promotionId: number | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  description: string | null;
}
