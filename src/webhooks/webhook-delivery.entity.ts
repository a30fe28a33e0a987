import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { Timestamped } from '../database/timestamped.js';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One event sent to one endpoint: its body and where its attempts stand. */
@Entity('webhook_deliveries')
export class WebhookDelivery extends Timestamped {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'webhook_id', type: 'integer' })
  webhookId: number;

  @Column({ name: 'event_id', type: 'varchar', length: 64 })
  eventId: string;

  @Column({ name: 'event_type', type: 'varchar', length: 100 })
  eventType: string;

  @Column({ type: 'text', select: false })
  payload: string;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  status: DeliveryStatus;

  /** Attempts started (an attempt is counted when it starts, so one cut short by a crash counts too). */
  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'last_status_code', type: 'integer', nullable: true })
  lastStatusCode: number | null;

  @Column({ name: 'last_error', type: 'varchar', length: 500, nullable: true })
  lastError: string | null;

  /** When the next attempt is due (pending only). */
  @Column({ name: 'next_attempt_at', type: 'datetime', precision: 3, nullable: true })
  nextAttemptAt: Date | null;
}
