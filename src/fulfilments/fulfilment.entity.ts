import {
  Column,
  Entity,
  JoinColumn,
  ManyToOne,
  OneToMany,
  PrimaryGeneratedColumn,
  type Relation,
} from 'typeorm';
import { Timestamped } from '../database/timestamped.js';

/** A shipment of some of an order's units, with its carrier and tracking (DESIGN.md §16). */
@Entity('fulfilments')
export class Fulfilment extends Timestamped {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'order_id', type: 'integer' })
  orderId: number;

  @Column({ type: 'varchar', length: 100, nullable: true })
  carrier: string | null;

  @Column({ name: 'tracking_number', type: 'varchar', length: 100, nullable: true })
  trackingNumber: string | null;

  @Column({ name: 'tracking_url', type: 'varchar', length: 2000, nullable: true })
  trackingUrl: string | null;

  @Column({ name: 'notify_customer', type: 'boolean', default: true })
  notifyCustomer: boolean;

  @Column({ name: 'shipped_at', type: 'datetime', precision: 3 })
  shippedAt: Date;

  @Column({ name: 'delivered_at', type: 'datetime', precision: 3, nullable: true })
  deliveredAt: Date | null;

  /** Cancelled before delivery: its units count as unfulfilled again. */
  @Column({ name: 'cancelled_at', type: 'datetime', precision: 3, nullable: true })
  cancelledAt: Date | null;

  /** The staff accounts that created, delivered and cancelled it. */
  @Column({ name: 'created_by', type: 'integer', nullable: true })
  createdBy: number | null;

  @Column({ name: 'delivered_by', type: 'integer', nullable: true })
  deliveredBy: number | null;

  @Column({ name: 'cancelled_by', type: 'integer', nullable: true })
  cancelledBy: number | null;

  @OneToMany(() => FulfilmentItem, (item) => item.fulfilment)
  items: Relation<FulfilmentItem[]>;
}

/** How many units of one order item a fulfilment carries. */
@Entity('fulfilment_items')
export class FulfilmentItem {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'fulfilment_id', type: 'integer' })
  fulfilmentId: number;

  @ManyToOne(() => Fulfilment, (fulfilment) => fulfilment.items, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'fulfilment_id' })
  fulfilment?: Relation<Fulfilment>;

  @Column({ name: 'order_item_id', type: 'integer' })
  orderItemId: number;

  @Column({ type: 'integer' })
  quantity: number;
}
