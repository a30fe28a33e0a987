import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { isUniqueViolation } from '../database/errors.js';
import { changedRows, insertRow, placeholders } from '../database/raw-query.js';
import { dateFromRow, sqlDatetime } from '../database/timestamps.js';
import { TransactionRunner } from '../database/transaction-runner.js';
import type { DomainEvent } from '../events/domain-events.js';
import { EventBus } from '../events/event-bus.js';
import { JobQueue } from '../jobs/job-queue.js';
import { Metrics } from '../observability/metrics.js';
import { EVENT_TYPES } from './event-types.js';
import {
  ACTIVE_WEBHOOKS,
  CLAIM_ATTEMPT,
  DELIVERY_TO_SEND,
  DELIVERY_STATE,
  EXPIRED_DELIVERIES,
  INSERT_DELIVERY,
  OVERDUE_DELIVERIES,
  RECORD_FAILURE,
  RECORD_RETRY,
  RECORD_SUCCESS,
  REOPEN_DELIVERY,
} from './webhook-statements.js';
import {
  checkedAddresses,
  post,
  RefusedUrlError,
  signature,
  systemResolver,
  type SendResult,
} from './webhook-sender.js';

declare module '../jobs/job-queue.js' {
  interface Jobs {
    /** Attempt number `attempt` of a webhook delivery. */
    'webhook.deliver': { deliveryId: number; attempt: number };
  }
}

/** An attempt not finished this long after its timeout (its process died) is taken up again by the sweep. */
const LEASE_MARGIN_MS = 15_000;
const SWEEP_INTERVAL_MS = 15_000;

function jobId(deliveryId: number, attempt: number): string {
  return `webhook-${deliveryId}-${attempt}`;
}

/** Whether an endpoint subscribed to `events` receives an event of `type`. */
export function subscribesTo(events: string[], type: string): boolean {
  return events.includes('*') || events.includes(type);
}

/**
 * Deliveries of events to webhooks: one row per endpoint and event, then one queue job per attempt. An attempt
 * is claimed by a conditional update of its row (`attempts` from n-1 to n), so two jobs for the same attempt
 * (a redispatched event, a sweep, a manual retry) send it once; the row says what comes next: success, the next
 * attempt after the retry schedule's wait, or failure when the schedule is used up.
 */
@Injectable()
export class WebhookDeliveries implements OnModuleInit {
  private readonly logger = new Logger(WebhookDeliveries.name);

  constructor(
    private readonly bus: EventBus,
    private readonly queue: JobQueue,
    private readonly transactions: TransactionRunner,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    this.bus.subscribe('*', (event) => this.createDeliveries(event));
    this.queue.handle('webhook.deliver', ({ deliveryId, attempt }) => this.attempt(deliveryId, attempt), {
      concurrency: 10,
    });
    this.queue.schedule('webhook.sweep', SWEEP_INTERVAL_MS, () => this.sweep());
  }

  /** A delivery for each active webhook subscribed to the event, and its first attempt queued. */
  async createDeliveries(event: DomainEvent): Promise<void> {
    if (!EVENT_TYPES.includes(event.type)) return;
    const webhooks = (await this.dataSource.query(ACTIVE_WEBHOOKS, [true])) as Array<{
      id: number;
      events: string;
    }>;
    const payload = JSON.stringify({
      id: event.id,
      type: event.type,
      created_at: event.created_at,
      data: event.data,
    });
    for (const webhook of webhooks) {
      if (!subscribesTo(JSON.parse(webhook.events) as string[], event.type)) continue;
      let delivery: { id: number; attempts: number; status: string };
      try {
        const id = await this.transactions.run('create webhook delivery', (tx) =>
          insertRow(tx, INSERT_DELIVERY, [
            webhook.id,
            event.id,
            event.type,
            payload,
            sqlDatetime(new Date()),
          ]),
        );
        delivery = { id, attempts: 0, status: 'pending' };
      } catch (error) {
        // The event came again (at-least-once): its delivery exists. Unless its first attempt has not started
        // (the job may have been lost with the process that queued it), its own jobs and the sweep carry it on:
        // queueing an attempt here would skip the retry schedule's wait or run beside an attempt in progress.
        if (!isUniqueViolation(error)) throw error;
        delivery = (await this.dataSource.query(DELIVERY_STATE, [webhook.id, event.id]))[0];
      }
      if (delivery.status !== 'pending' || Number(delivery.attempts) > 0) continue;
      await this.queue.add(
        'webhook.deliver',
        { deliveryId: Number(delivery.id), attempt: 1 },
        { jobId: jobId(delivery.id, 1) },
      );
    }
  }

  /** Queues one more attempt of a delivery now, whatever its status (the admin's retry). */
  async retryNow(deliveryId: number, attempts: number): Promise<void> {
    await this.transactions.run('retry webhook delivery', (tx) =>
      changedRows(tx, REOPEN_DELIVERY, [sqlDatetime(new Date()), sqlDatetime(new Date()), deliveryId]),
    );
    // Its own job id: a scheduled job of the same attempt may be waiting; whichever runs first claims it.
    await this.queue.add(
      'webhook.deliver',
      { deliveryId, attempt: attempts + 1 },
      { jobId: `${jobId(deliveryId, attempts + 1)}-retry-${Date.now()}` },
    );
  }

  /** Runs attempt `attempt` of a delivery, unless another job has run it or the delivery is no longer pending. */
  async attempt(deliveryId: number, attempt: number): Promise<void> {
    const now = Date.now();
    const lease = new Date(now + this.config.webhooks.timeoutMs + LEASE_MARGIN_MS);
    const claimed = await this.transactions.run('claim webhook attempt', (tx) =>
      changedRows(tx, CLAIM_ATTEMPT, [
        attempt,
        sqlDatetime(lease),
        sqlDatetime(new Date(now)),
        deliveryId,
        attempt - 1,
      ]),
    );
    if (claimed === 0) return;
    const [delivery] = (await this.dataSource.query(DELIVERY_TO_SEND, [deliveryId])) as Array<{
      event_id: string;
      payload: string;
      url: string;
      secret: string;
      active: boolean | number;
    }>;
    if (delivery === undefined) return; // the webhook was deleted meanwhile, and its deliveries with it
    const started = performance.now();
    // An inactive webhook's pending deliveries fail without a request (a manual retry after reactivation sends).
    const result = delivery.active
      ? await this.send(delivery)
      : { error: 'the webhook is inactive', final: true };
    const outcome = await this.record(deliveryId, attempt, result);
    this.metrics.webhookDeliveries.inc({ result: outcome });
    this.metrics.webhookDeliveryDuration.observe({ result: outcome }, (performance.now() - started) / 1000);
  }

  private async send(delivery: {
    event_id: string;
    payload: string;
    url: string;
    secret: string;
  }): Promise<SendResult> {
    const url = new URL(delivery.url);
    try {
      const addresses = await checkedAddresses(
        url,
        systemResolver,
        this.config.webhooks.allowPrivateNetworks,
      );
      const timestamp = Math.floor(Date.now() / 1000);
      const headers = {
        'webhook-id': delivery.event_id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signature(delivery.secret, delivery.event_id, timestamp, delivery.payload),
      };
      return await post(url, addresses, headers, delivery.payload, this.config.webhooks.timeoutMs);
    } catch (error) {
      if (error instanceof RefusedUrlError) return { error: error.message };
      throw error;
    }
  }

  /** Writes the attempt's result (if no later attempt has started) and queues the next one when there is one. */
  private async record(
    deliveryId: number,
    attempt: number,
    result: SendResult & { final?: boolean },
  ): Promise<'succeeded' | 'retrying' | 'failed'> {
    const now = new Date();
    const code = result.statusCode ?? null;
    const error = result.error?.slice(0, 500) ?? null;
    const schedule = this.config.webhooks.retryScheduleSeconds;
    if (result.error === undefined) {
      await this.transactions.run('record webhook attempt', (tx) =>
        changedRows(tx, RECORD_SUCCESS, [code, sqlDatetime(now), deliveryId, attempt]),
      );
      return 'succeeded';
    }
    if (attempt > schedule.length || result.final === true) {
      await this.transactions.run('record webhook attempt', (tx) =>
        changedRows(tx, RECORD_FAILURE, [code, error, sqlDatetime(now), deliveryId, attempt]),
      );
      this.logger.warn({ msg: 'Webhook delivery failed for good', deliveryId, attempts: attempt, error });
      return 'failed';
    }
    const delayMs = schedule[attempt - 1] * 1000;
    const recorded = await this.transactions.run('record webhook attempt', (tx) =>
      changedRows(tx, RECORD_RETRY, [
        code,
        error,
        sqlDatetime(new Date(now.getTime() + delayMs)),
        sqlDatetime(now),
        deliveryId,
        attempt,
      ]),
    );
    if (recorded > 0) {
      await this.queue.add(
        'webhook.deliver',
        { deliveryId, attempt: attempt + 1 },
        { jobId: jobId(deliveryId, attempt + 1), delayMs },
      );
    }
    return 'retrying';
  }

  /** The periodic sweep: overdue deliveries queued again, then settled ones past their retention removed. */
  async sweep(): Promise<void> {
    await this.requeueOverdue();
    await this.removeExpired();
  }

  /**
   * Queues again the pending deliveries whose attempt is long overdue: a job lost with a process that died
   * between creating a delivery and queueing it, or in the middle of an attempt (its lease ran out).
   */
  async requeueOverdue(): Promise<void> {
    const overdue = (await this.dataSource.query(OVERDUE_DELIVERIES, [
      sqlDatetime(new Date(Date.now() - LEASE_MARGIN_MS)),
    ])) as Array<{ id: number; attempts: number; next_attempt_at: Date | string }>;
    for (const delivery of overdue) {
      const attempt = Number(delivery.attempts) + 1;
      this.logger.warn({
        msg: 'Webhook delivery overdue: queued again',
        deliveryId: delivery.id,
        due: dateFromRow(delivery.next_attempt_at).toISOString(),
      });
      await this.queue.add(
        'webhook.deliver',
        { deliveryId: Number(delivery.id), attempt },
        { jobId: `${jobId(delivery.id, attempt)}-overdue-${Date.now()}` },
      );
    }
  }

  private async removeExpired(): Promise<void> {
    const retentionSeconds = this.config.webhooks.deliveryRetentionSeconds;
    if (retentionSeconds === 0) return;
    const before = sqlDatetime(new Date(Date.now() - retentionSeconds * 1000));
    for (;;) {
      const expired = (await this.dataSource.query(EXPIRED_DELIVERIES, [before])) as Array<{ id: number }>;
      if (expired.length === 0) return;
      await this.transactions.run('remove old webhook deliveries', (tx) =>
        changedRows(
          tx,
          `DELETE FROM webhook_deliveries WHERE id IN (${placeholders(expired.length)})`,
          expired.map((row) => row.id),
        ),
      );
      if (expired.length < 1000) return;
    }
  }
}
