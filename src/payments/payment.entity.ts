import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { Timestamped } from '../database/timestamped.js';
import type { PaymentStatus } from './payment-status.js';

const bigintNumber = { to: (v: number) => v, from: (v: string | number) => Number(v) };

@Entity('payments')
export class Payment extends Timestamped {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'order_id', type: 'integer' })
  orderId: number;

  @Column({ name: 'live_order_id', type: 'integer', nullable: true })
  liveOrderId: number | null;

  @Column({ type: 'varchar', length: 16 })
  provider: 'manual' | 'stripe' | 'gift_card';

  @Column({ type: 'varchar', length: 20 })
  status: PaymentStatus;

  @Column({ name: 'amount_cents', type: 'bigint', transformer: bigintNumber })
  amountCents: number;

  @Column({ type: 'varchar', length: 3 })
  currency: string;

  @Column({ name: 'refunded_cents', type: 'bigint', transformer: bigintNumber })
  refundedCents: number;

  @Column({ name: 'provider_ref', type: 'varchar', length: 255, nullable: true })
  providerRef: string | null;

  @Column({ name: 'client_secret', type: 'varchar', length: 255, nullable: true })
  clientSecret: string | null;

  @Column({ type: 'varchar', length: 32, nullable: true })
  flag: string | null;

  /** A manual payment marked paid by hand: the staff account that recorded it, and when (null otherwise). */
  @Column({ name: 'recorded_by', type: 'integer', nullable: true })
  recordedBy: number | null;

  @Column({ name: 'recorded_at', type: 'datetime', precision: 3, nullable: true })
  recordedAt: Date | null;
}

@Entity('payment_refunds')
export class PaymentRefund extends Timestamped {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'payment_id', type: 'integer' })
  paymentId: number;

  @Column({ name: 'amount_cents', type: 'bigint', transformer: bigintNumber })
  amountCents: number;

  @Column({ type: 'varchar', length: 16 })
  status: 'pending' | 'succeeded' | 'failed';

  @Column({ type: 'varchar', length: 500, nullable: true })
  reason: string | null;

  @Column({ name: 'provider_ref', type: 'varchar', length: 255, nullable: true })
  providerRef: string | null;

  /** The staff account that asked for the refund; null for one the service made (paid after cancel). */
  @Column({ name: 'requested_by', type: 'integer', nullable: true })
  requestedBy: number | null;

  @Column({ name: 'idempotency_key', type: 'varchar', length: 128, nullable: true, select: false })
  idempotencyKey: string | null;

  /** With an Idempotency-Key: the request's amount and reason, hashed, to refuse the key's reuse for another. */
  @Column({ name: 'request_hash', type: 'varchar', length: 64, nullable: true, select: false })
  requestHash: string | null;
}
