import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { changedRows, placeholders } from '../database/raw-query.js';
import { dateFromRow, sqlDatetime } from '../database/timestamps.js';
import { afterCommit, TransactionRunner, type Tx } from '../database/transaction-runner.js';
import { JobQueue } from '../jobs/job-queue.js';
import { Metrics } from '../observability/metrics.js';
import type { DomainEvent, DomainEvents, DomainEventType } from './domain-events.js';
import { EventBus, type DomainEventHandler } from './event-bus.js';

/** Events one sweep claims at a time. */
const SWEEP_BATCH = 100;
/** Events one purge or mark statement names. */
const PURGE_BATCH = 1000;
/** Dispatched events are marked in one UPDATE per this interval rather than one per event. */
const MARK_INTERVAL_MS = 500;
/** The longest wait before an event whose handlers keep failing is dispatched again. */
const MAX_RETRY_DELAY_SECONDS = 3600;

const INSERT_EVENT =
  'INSERT INTO outbox_events (id, type, data, order_id, created_at, available_at, attempts) ' +
  'VALUES (?, ?, ?, ?, ?, ?, 1)';
const DUE =
  'SELECT id FROM outbox_events WHERE dispatched_at IS NULL AND available_at <= ? ' +
  `ORDER BY available_at LIMIT ${SWEEP_BATCH}`;
const CLAIMED =
  'SELECT id, type, data, created_at, attempts FROM outbox_events WHERE claim = ? ORDER BY created_at, id';
const RETRY_LATER =
  'UPDATE outbox_events SET available_at = ?, last_error = ? WHERE id = ? AND dispatched_at IS NULL';
const EXPIRED = `SELECT id FROM outbox_events WHERE dispatched_at < ? LIMIT ${PURGE_BATCH}`;

/** Takes the due events among `count` ids for one sweep: the conditional UPDATE decides between instances. */
const claimOf = (count: number) =>
  'UPDATE outbox_events SET claim = ?, attempts = attempts + 1, available_at = ? ' +
  `WHERE id IN (${placeholders(count)}) AND dispatched_at IS NULL AND available_at <= ?`;
const markDispatchedOf = (count: number) =>
  `UPDATE outbox_events SET dispatched_at = ? WHERE id IN (${placeholders(count)})`;
const deleteOf = (count: number) => `DELETE FROM outbox_events WHERE id IN (${placeholders(count)})`;

/**
 * The order an event is about, stored in the indexed `order_id` column so that an order's events are read without
 * scanning the outbox: its payload's `order.id` (every order event carries the order as the API shows it).
 */
function orderIdOf(data: unknown): number | null {
  const id = (data as { order?: { id?: unknown } } | null)?.order?.id;
  return typeof id === 'number' ? id : null;
}

interface OutboxRow {
  id: string;
  type: string;
  data: string;
  created_at: Date | string;
  attempts: number | string;
}

/** An event taken for dispatch, with the number of its dispatch (1 for the publisher's). */
interface Claimed {
  event: DomainEvent;
  attempt: number;
}

interface Subscription {
  type: DomainEventType | '*';
  handler: DomainEventHandler<DomainEventType>;
}

/**
 * The event bus over the `outbox_events` table.
 *
 * - `publish` inserts the event in the caller's transaction, already claimed by this instance for
 *   OUTBOX_REDISPATCH_AFTER; once the outermost transaction commits, this instance dispatches it at once.
 * - Every OUTBOX_SWEEP_INTERVAL a sweep (a scheduled job, `events.sweep`) claims events whose claim has run out
 *   without a dispatch (the process died after the commit, or a handler failed) by a conditional UPDATE, so
 *   that each is taken by one instance even if sweeps overlap, and dispatches them; it also deletes events
 *   dispatched more than OUTBOX_RETENTION ago.
 * - Dispatch runs the handlers in the order they subscribed, one event after the other in commit order. When a
 *   handler throws, the others still run, the failure is logged and counted, and the whole event is dispatched
 *   again after OUTBOX_REDISPATCH_AFTER, doubling per attempt up to an hour: at least once, so handlers
 *   tolerate a repeat.
 */
@Injectable()
export class OutboxEventBus extends EventBus implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('EventBus');
  private readonly subscriptions: Subscription[] = [];
  /** The events each open transaction has published, dispatched together after its commit. */
  private readonly published = new WeakMap<Tx, Claimed[]>();
  /** Dispatches run one after the other: events reach handlers in the order their transactions committed. */
  private dispatching: Promise<void> = Promise.resolve();
  /** Dispatched events not yet marked in the table. */
  private toMark: string[] = [];
  private markTimer: NodeJS.Timeout | undefined;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly transactions: TransactionRunner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
    private readonly jobs: JobQueue,
  ) {
    super();
  }

  async publish<T extends DomainEventType>(tx: Tx, type: T, data: DomainEvents[T]): Promise<void> {
    let events = this.published.get(tx);
    if (events === undefined) {
      const committed: Claimed[] = [];
      afterCommit(tx, () => void this.dispatchInOrder(committed));
      this.published.set(tx, committed);
      events = committed;
    }
    const now = new Date();
    const json = JSON.stringify(data);
    const event: DomainEvent = {
      id: randomUUID(),
      type,
      created_at: now.toISOString(),
      data: JSON.parse(json),
    };
    await tx.query(INSERT_EVENT, [
      event.id,
      type,
      json,
      orderIdOf(data),
      sqlDatetime(now),
      sqlDatetime(this.claimEnd(now)),
    ]);
    events.push({ event, attempt: 1 });
  }

  async eventsOfOrder<T extends DomainEventType>(orderId: number, types: T[]): Promise<DomainEvent<T>[]> {
    if (types.length === 0) return [];
    const rows: OutboxRow[] = await this.dataSource.query(
      'SELECT id, type, data, created_at, attempts FROM outbox_events ' +
        `WHERE order_id = ? AND type IN (${placeholders(types.length)}) ORDER BY created_at, id`,
      [orderId, ...types],
    );
    return rows.map((row) => ({
      id: row.id,
      type: row.type as T,
      created_at: dateFromRow(row.created_at).toISOString(),
      data: JSON.parse(row.data) as DomainEvents[T],
    }));
  }

  subscribe<T extends DomainEventType>(type: T | '*', handler: DomainEventHandler<T>): void {
    this.subscriptions.push({ type, handler: handler as DomainEventHandler<DomainEventType> });
  }

  onModuleInit(): void {
    this.jobs.schedule('events.sweep', this.config.outbox.sweepIntervalSeconds * 1000, () => this.sweep());
  }

  /** Lets the dispatch under way finish and marks what it dispatched, before the pool closes. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.dispatching;
    await this.markDispatched();
  }

  /** Re-dispatches the events whose claim has run out, then purges the old dispatched ones. Never throws. */
  async sweep(): Promise<void> {
    try {
      while ((await this.redispatchDue()) === SWEEP_BATCH);
      await this.purge();
    } catch (error) {
      this.logger.warn({
        msg: 'Outbox sweep failed; next sweep will retry',
        error: (error as Error).message,
      });
    }
  }

  /** Claims and dispatches one batch of due events; returns how many were due. */
  private async redispatchDue(): Promise<number> {
    const now = new Date();
    const due: Array<{ id: string }> = await this.dataSource.query(DUE, [sqlDatetime(now)]);
    if (due.length === 0) return 0;
    const claim = randomUUID();
    await this.transactions.run('claim events', (tx) =>
      changedRows(tx, claimOf(due.length), [
        claim,
        sqlDatetime(this.claimEnd(now)),
        ...due.map((row) => row.id),
        sqlDatetime(now),
      ]),
    );
    const rows: OutboxRow[] = await this.dataSource.query(CLAIMED, [claim]);
    await this.dispatchInOrder(
      rows.map((row) => ({
        event: {
          id: row.id,
          type: row.type as DomainEventType,
          created_at: dateFromRow(row.created_at).toISOString(),
          data: JSON.parse(row.data) as DomainEvent['data'],
        },
        attempt: Number(row.attempts),
      })),
    );
    return due.length;
  }

  private async purge(): Promise<void> {
    const cutoff = sqlDatetime(new Date(Date.now() - this.config.outbox.retentionSeconds * 1000));
    for (;;) {
      const expired: Array<{ id: string }> = await this.dataSource.query(EXPIRED, [cutoff]);
      if (expired.length === 0) return;
      await this.transactions.run('purge events', (tx) =>
        changedRows(
          tx,
          deleteOf(expired.length),
          expired.map((row) => row.id),
        ),
      );
      if (expired.length < PURGE_BATCH) return;
    }
  }

  private dispatchInOrder(events: Claimed[]): Promise<void> {
    this.dispatching = this.dispatching.then(() => this.dispatch(events));
    return this.dispatching;
  }

  private async dispatch(events: Claimed[]): Promise<void> {
    for (const { event, attempt } of events) {
      const failure = await this.runHandlers(event);
      if (failure === undefined) {
        this.metrics.eventsDispatched.inc({ type: event.type });
        this.toMark.push(event.id);
        this.markTimer ??= setTimeout(() => void this.markDispatched(), MARK_INTERVAL_MS).unref();
      } else {
        await this.retryLater(event, attempt, failure);
      }
    }
  }

  /** Runs every handler of the event; gives the first error, if any. */
  private async runHandlers(event: DomainEvent): Promise<Error | undefined> {
    let failure: Error | undefined;
    for (const { type, handler } of this.subscriptions) {
      if (type !== '*' && type !== event.type) continue;
      try {
        await handler(event);
      } catch (error) {
        failure ??= error instanceof Error ? error : new Error(String(error));
        this.metrics.eventDispatchFailures.inc({ type: event.type });
        this.logger.error({
          msg: 'Event handler failed; the event will be dispatched again',
          event_id: event.id,
          type: event.type,
          error: error instanceof Error ? error.stack : String(error),
        });
      }
    }
    return failure;
  }

  private async retryLater(event: DomainEvent, attempt: number, failure: Error): Promise<void> {
    const delaySeconds = Math.min(
      this.config.outbox.redispatchAfterSeconds * 2 ** (attempt - 1),
      MAX_RETRY_DELAY_SECONDS,
    );
    try {
      await this.transactions.run('retry event', (tx) =>
        changedRows(tx, RETRY_LATER, [
          sqlDatetime(new Date(Date.now() + delaySeconds * 1000)),
          failure.message.slice(0, 500),
          event.id,
        ]),
      );
    } catch (error) {
      // The claim runs out anyway: the event is dispatched again after OUTBOX_REDISPATCH_AFTER.
      this.logger.warn({ msg: 'Could not delay a failed event', event_id: event.id, error: String(error) });
    }
  }

  private async markDispatched(): Promise<void> {
    clearTimeout(this.markTimer);
    this.markTimer = undefined;
    while (this.toMark.length > 0) {
      const ids = this.toMark.splice(0, PURGE_BATCH);
      try {
        const now = sqlDatetime(new Date());
        await this.transactions.run('mark events dispatched', (tx) =>
          changedRows(tx, markDispatchedOf(ids.length), [now, ...ids]),
        );
      } catch (error) {
        // Until marked, an event may be dispatched again once its claim runs out: at least once.
        this.logger.warn({
          msg: 'Could not mark events dispatched',
          events: ids.length,
          error: String(error),
        });
        this.toMark.unshift(...ids);
        this.markTimer ??= setTimeout(() => void this.markDispatched(), MARK_INTERVAL_MS).unref();
        return;
      }
    }
  }

  private claimEnd(from: Date): Date {
    return new Date(from.getTime() + this.config.outbox.redispatchAfterSeconds * 1000);
  }
}
