import { Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from 'typeorm';
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

  /** The product's price when the order was placed, in cents. */
  @Column({ name: 'unit_price_cents', type: 'integer' })
  unitPriceCents: number;

  @Column({ type: 'integer' })
  quantity: number;

  /** The variant ordered; null for a product without variants. SKU and title as they were when ordered. */
  @Column({ name: 'variant_id', type: 'integer', nullable: true })
  variantId: number | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  sku: string | null;

  @Column({ name: 'variant_title', type: 'varchar', length: 200, nullable: true })
  variantTitle: string | null;
}
