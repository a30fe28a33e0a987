import { Column, Entity, OneToMany, PrimaryGeneratedColumn, type Relation } from 'typeorm';
import { jsonText } from '../database/json-column.js';
import { Timestamped } from '../database/timestamped.js';
import type { AccountSummary } from '../users/user-accounts.js';
import { OrderItem } from './order-item.entity.js';
import type { OrderStatus, PaymentStatus } from './order-status.js';
import type { ShippingAddressDetails } from './order-history.js';

@Entity('orders')
export class Order extends Timestamped {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'order_number', type: 'varchar', length: 32 })
  orderNumber: string;

  /** NULL for a guest's order (placed from an anonymous cart). */
  @Column({ name: 'user_id', type: 'integer', nullable: true })
  userId: number | null;

  /** Where the confirmation goes: the guest's address, or the customer's when placed from a cart. */
  @Column({ type: 'varchar', length: 254, nullable: true })
  email: string | null;

  /** Exact sum of unit price x quantity, in cents. */
  @Column({
    name: 'total_cents',
    type: 'bigint',
    transformer: { to: (v: number) => v, from: (v: string | number) => Number(v) },
  })
  totalCents: number;

  /** The shipping option's price when ordered, included in totalCents. */
  @Column({
    name: 'shipping_total_cents',
    type: 'bigint',
    default: 0,
    transformer: { to: (v: number) => v, from: (v: string | number) => Number(v) },
  })
  shippingTotalCents: number;

  @Column({ type: 'varchar', length: 16 })
  status: OrderStatus;

  @Column({ name: 'payment_status', type: 'varchar', length: 20 })
  paymentStatus: PaymentStatus;

  @Column({ name: 'shipping_address', type: 'varchar', length: 255 })
  shippingAddress: string;

  /** The structured address of an order placed from a cart (JSON); NULL for the free-text address of POST /orders. */
  @Column({
    name: 'shipping_address_details',
    type: 'text',
    nullable: true,
    transformer: jsonText<ShippingAddressDetails>(),
  })
  shippingAddressDetails: ShippingAddressDetails | null;

  @Column({ name: 'payment_method', type: 'varchar', length: 32 })
  paymentMethod: string;

  @Column({ name: 'idempotency_key', type: 'varchar', length: 128, nullable: true, select: false })
  idempotencyKey: string | null;

  /** SHA-256 of the normalised request, to tell a replay from a different request under the same key. */
  @Column({ name: 'request_hash', type: 'varchar', length: 64, nullable: true, select: false })
  requestHash: string | null;

  /** SHA-256 of a guest order's token (hex), which reads the order without an account. */
  @Column({ name: 'order_token_hash', type: 'varchar', length: 64, nullable: true, select: false })
  orderTokenHash: string | null;

  /** The cart the order was placed from: unique, so a cart places one order whatever the retries. */
  @Column({ name: 'cart_id', type: 'varchar', length: 36, nullable: true, select: false })
  cartId: string | null;

  @OneToMany(() => OrderItem, (item) => item.order)
  items: Relation<OrderItem[]>;

  /** The owner, when a query joins it in (`leftJoinAndMapOne`); not a column. */
  user?: AccountSummary;
}
