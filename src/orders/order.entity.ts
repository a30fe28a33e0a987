import { Column, Entity, OneToMany, PrimaryGeneratedColumn, type Relation } from 'typeorm';
import { Timestamped } from '../database/timestamped.js';
import type { AccountSummary } from '../users/user-accounts.js';
import { OrderItem } from './order-item.entity.js';
import type { OrderStatus, PaymentStatus } from './order-status.js';

@Entity('orders')
export class Order extends Timestamped {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'order_number', type: 'varchar', length: 32 })
  orderNumber: string;

  @Column({ name: 'user_id', type: 'integer' })
  userId: number;

  /** Exact sum of unit price x quantity, in cents. */
  @Column({
    name: 'total_cents',
    type: 'bigint',
    transformer: { to: (v: number) => v, from: (v: string | number) => Number(v) },
  })
  totalCents: number;

  @Column({ type: 'varchar', length: 16 })
  status: OrderStatus;

  @Column({ name: 'payment_status', type: 'varchar', length: 20 })
  paymentStatus: PaymentStatus;

  @Column({ name: 'shipping_address', type: 'varchar', length: 255 })
  shippingAddress: string;

  @Column({ name: 'payment_method', type: 'varchar', length: 32 })
  paymentMethod: string;

  @Column({ name: 'idempotency_key', type: 'varchar', length: 128, nullable: true, select: false })
  idempotencyKey: string | null;

  /** SHA-256 of the normalised request, to tell a replay from a different request under the same key. */
  @Column({ name: 'request_hash', type: 'varchar', length: 64, nullable: true, select: false })
  requestHash: string | null;

  @OneToMany(() => OrderItem, (item) => item.order)
  items: Relation<OrderItem[]>;

  /** The owner, when a query joins it in (`leftJoinAndMapOne`); not a column. */
  user?: AccountSummary;
}
