import {
  Column,
  Entity,
  JoinColumn,
  ManyToOne,
  OneToMany,
  PrimaryGeneratedColumn,
  type Relation,
} from 'typeorm';
import { bigintNumber } from '../database/json-column.js';
import { Timestamped } from '../database/timestamped.js';

export const RETURN_STATUSES = ['requested', 'received', 'rejected'] as const;
export type ReturnStatus = (typeof RETURN_STATUSES)[number];
export type RefundStatus = 'pending' | 'succeeded' | 'failed';

/** Units of an order the customer sends back; received (and refunded) or rejected by staff (DESIGN.md §16). */
@Entity('returns')
export class Return extends Timestamped {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'order_id', type: 'integer' })
  orderId: number;

  @Column({ type: 'varchar', length: 16 })
  status: ReturnStatus;

  /** The order's currency: every amount of the return is in its minor units. */
  @Column({ name: 'currency_code', type: 'varchar', length: 3 })
  currencyCode: string;

  @Column({ type: 'varchar', length: 1000, nullable: true })
  note: string | null;

  /** What it refunds: the requested units' shares; once received, the received units' (and the shipping). */
  @Column({ name: 'refund_amount_minor', type: 'bigint', transformer: bigintNumber })
  refundAmountMinor: number;

  @Column({ name: 'refund_shipping', type: 'boolean', default: false })
  refundShipping: boolean;

  /** The order, when this return refunds its shipping (unique: once per order). */
  @Column({ name: 'shipping_refund_order_id', type: 'integer', nullable: true })
  shippingRefundOrderId: number | null;

  @Column({ name: 'refund_status', type: 'varchar', length: 16, nullable: true })
  refundStatus: RefundStatus | null;

  /** Names the refund's idempotency key (`return-{id}-{attempt}`): a new attempt only after a refused one. */
  @Column({ name: 'refund_attempt', type: 'integer', default: 0 })
  refundAttempt: number;

  @Column({ name: 'refund_error', type: 'varchar', length: 500, nullable: true })
  refundError: string | null;

  @Column({ name: 'reject_reason', type: 'varchar', length: 500, nullable: true })
  rejectReason: string | null;

  /** The customer who requested it (null: a guest with the order's token); the staff who received or rejected. */
  @Column({ name: 'requested_by', type: 'integer', nullable: true })
  requestedBy: number | null;

  @Column({ name: 'received_by', type: 'integer', nullable: true })
  receivedBy: number | null;

  @Column({ name: 'rejected_by', type: 'integer', nullable: true })
  rejectedBy: number | null;

  @Column({ name: 'received_at', type: 'datetime', precision: 3, nullable: true })
  receivedAt: Date | null;

  @Column({ name: 'rejected_at', type: 'datetime', precision: 3, nullable: true })
  rejectedAt: Date | null;

  @OneToMany(() => ReturnItem, (item) => item.return)
  items: Relation<ReturnItem[]>;
}

/** Units of one order item in a return, and their share of the line's total. */
@Entity('return_items')
export class ReturnItem {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'return_id', type: 'integer' })
  returnId: number;

  @ManyToOne(() => Return, (ret) => ret.items, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'return_id' })
  return?: Relation<Return>;

  @Column({ name: 'order_item_id', type: 'integer' })
  orderItemId: number;

  @Column({ type: 'integer' })
  quantity: number;

  /** Its units are the line's returned units firstUnit + 1 … firstUnit + quantity: their shares are its refund. */
  @Column({ name: 'first_unit', type: 'integer' })
  firstUnit: number;

  @Column({ type: 'varchar', length: 255, nullable: true })
  reason: string | null;

  /** The requested units' shares of the line's total (minor units). */
  @Column({ name: 'refund_minor', type: 'bigint', transformer: bigintNumber })
  refundMinor: number;

  @Column({ name: 'received_quantity', type: 'integer', nullable: true })
  receivedQuantity: number | null;

  @Column({ type: 'boolean', default: false })
  restock: boolean;
}
