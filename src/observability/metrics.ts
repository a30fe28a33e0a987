import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { PRIMARY, ReplicaPools } from '../database/replica-pools.js';
import { dateFromRow } from '../database/timestamps.js';
import { TransactionRunner } from '../database/transaction-runner.js';

/** The size of a queue in mysql2's pool (a Denque). */
interface Queue {
  length: number;
}

/** What the gauges read from mysql2's pool: its own fields, stable since mysql2 1.x, not a public API. */
interface MysqlPool {
  _allConnections: Queue;
  _freeConnections: Queue;
  _connectionQueue: Queue;
}

export interface JobCount {
  name: string;
  state: 'waiting' | 'delayed' | 'active' | 'failed';
  count: number;
}

/** The route label of requests that matched no route (unknown paths, bodies refused before routing). */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Every Prometheus series of one service instance, in its own registry (several instances may share a
 * process in tests). The table of series and their meaning is in docs/operations.md.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();

  readonly requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request reaching Express to the end of the response, by route template',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly requestsInFlight = new Gauge({
    name: 'http_requests_in_flight',
    help: 'HTTP requests received and not yet answered',
    registers: [this.registry],
  });

  readonly ordersCreated = new Counter({
    name: 'commerce_orders_created_total',
    help: 'Orders placed (committed); idempotent replays are not counted again',
    registers: [this.registry],
  });

  readonly ordersRefusedForStock = new Counter({
    name: 'commerce_orders_refused_stock_total',
    help: 'Orders refused because a product had less stock than requested',
    registers: [this.registry],
  });

  readonly ordersCancelled = new Counter({
    name: 'commerce_orders_cancelled_total',
    help: 'Orders moved to cancelled (by their owner or an admin); their stock went back',
    registers: [this.registry],
  });

  readonly paymentAmountMismatches = new Counter({
    name: 'commerce_payment_amount_mismatches_total',
    help: "Provider payments whose amount or currency differed from the order's: not marked paid, flagged",
    registers: [this.registry],
  });

  readonly paymentsPaidAfterCancel = new Counter({
    name: 'commerce_payments_paid_after_cancel_total',
    help: 'Provider payments that took money for a cancelled or expired order: flagged and refunded',
    registers: [this.registry],
  });

  readonly promotionUses = new Counter({
    name: 'commerce_promotion_uses_total',
    help: 'Promotion uses taken by placed orders (counted after the commit), by promotion type',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });

  readonly promotionRefusals = new Counter({
    name: 'commerce_promotion_refusals_total',
    help: 'Discount codes refused when put on a cart or at checkout, by rule',
    labelNames: ['rule'] as const,
    registers: [this.registry],
  });

  readonly ordersExpired = new Counter({
    name: 'commerce_orders_expired_total',
    help: 'Pending unpaid orders cancelled after ORDER_PENDING_TTL; their stock went back',
    registers: [this.registry],
  });

  readonly websocketConnections = new Gauge({
    name: 'commerce_websocket_connections',
    help: 'Authenticated WebSocket connections open on this instance',
    registers: [this.registry],
  });

  readonly websocketRefusals = new Counter({
    name: 'commerce_websocket_refusals_total',
    help: 'WebSocket connections refused after authentication because a connection limit was reached',
    labelNames: ['limit'] as const,
    registers: [this.registry],
  });

  readonly websocketClosures = new Counter({
    name: 'commerce_websocket_closures_total',
    help: 'WebSocket connections closed by the server for abuse (frame flood: 1008; unread output: cut)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly rateLimitRefusals = new Counter({
    name: 'commerce_rate_limit_refusals_total',
    help: 'Requests answered 429 by a rate limit (HTTP buckets default, staff, files, auth, mail and carts; WebSocket handshakes, frames and chat)',
    labelNames: ['limit'] as const,
    registers: [this.registry],
  });

  readonly redisConnected = new Gauge({
    name: 'commerce_redis_connected',
    help: 'Whether each Redis connection is ready (1) or not (0); absent without REDIS_URL',
    labelNames: ['connection'] as const,
    registers: [this.registry],
  });

  readonly productTotals = new Counter({
    name: 'commerce_product_list_totals_total',
    help: 'Product list totals (meta.total) that needed a count: reused from an earlier count of the same filter while the catalogue did not change (hit) or counted (miss)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  readonly transactionRetries = new Counter({
    name: 'commerce_transaction_retries_total',
    help: 'Transactions run again after a lock conflict (deadlock, lock-wait timeout), by purpose of the work',
    labelNames: ['purpose'] as const,
    registers: [this.registry],
  });

  readonly webhookDeliveries = new Counter({
    name: 'commerce_webhook_deliveries_total',
    help: 'Webhook delivery attempts by result: succeeded (2xx), retrying (failed, another attempt is scheduled), failed (failed, retry schedule used up)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  readonly webhookDeliveryDuration = new Histogram({
    name: 'commerce_webhook_delivery_duration_seconds',
    help: 'Time of one webhook delivery attempt (address check, request and the whole answer), by result',
    labelNames: ['result'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  readonly eventsDispatched = new Counter({
    name: 'commerce_events_dispatched_total',
    help: 'Domain events whose handlers all succeeded on this instance, by event type (a redispatch counts again)',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });

  readonly eventDispatchFailures = new Counter({
    name: 'commerce_event_dispatch_failures_total',
    help: 'Event handlers that threw on this instance, by event type; the event is dispatched again later',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });

  /** Set by the job queue: how many jobs each job name has in each state, read at scrape time. */
  countJobs: (() => Promise<JobCount[]>) | undefined;

  readonly jobs = new Gauge({
    name: 'commerce_jobs',
    help: 'Jobs by job name and state: waiting (due), delayed (due later or backing off before a retry), active, failed (kept for JOBS_RETENTION)',
    labelNames: ['name', 'state'] as const,
    registers: [this.registry],
    collect: async () => {
      const counts = (await this.countJobs?.()) ?? [];
      this.jobs.reset();
      for (const { name, state, count } of counts) this.jobs.set({ name, state }, count);
    },
  });

  readonly jobFailures = new Counter({
    name: 'commerce_job_failures_total',
    help: 'Job runs that threw, by job name; final="true" when no attempt was left and the job failed',
    labelNames: ['name', 'final'] as const,
    registers: [this.registry],
  });

  readonly jobDuration = new Histogram({
    name: 'commerce_job_duration_seconds',
    help: 'Time a job or a scheduled tick ran, by job name and result (succeeded, failed)',
    labelNames: ['name', 'result'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });

  readonly replicaFallbacks = new Counter({
    name: 'commerce_db_replica_fallbacks_total',
    help: 'Reads that failed on a read replica and were answered by the primary (the replica is taken out)',
    registers: [this.registry],
  });

  private readonly samplePool: () => void;

  constructor(@InjectDataSource() dataSource: DataSource, transactions: TransactionRunner) {
    collectDefaultMetrics({ register: this.registry });
    transactions.onLockRetry(({ purpose }) => this.transactionRetries.inc({ purpose }));
    // Gauges named like counters, which `promtool check metrics` rejects; their per-type series remain.
    for (const name of [
      'nodejs_active_handles_total',
      'nodejs_active_requests_total',
      'nodejs_active_resources_total',
    ]) {
      this.registry.removeSingleMetric(name);
    }
    // The outbox, shared by every instance, read at scrape time (the index on dispatched_at serves both).
    new Gauge({
      name: 'commerce_outbox_pending_events',
      help: 'Events in the outbox not yet dispatched (all instances)',
      registers: [this.registry],
      async collect() {
        const rows = await scrapeQuery<{ pending: number | string }>(
          dataSource,
          'SELECT COUNT(*) AS pending FROM outbox_events WHERE dispatched_at IS NULL',
        );
        if (rows !== null) this.set(Number(rows[0].pending));
      },
    });
    new Gauge({
      name: 'commerce_outbox_oldest_pending_age_seconds',
      help: 'Age of the oldest event in the outbox not yet dispatched; 0 when there is none',
      registers: [this.registry],
      async collect() {
        const rows = await scrapeQuery<{ oldest: Date | string | null }>(
          dataSource,
          'SELECT MIN(created_at) AS oldest FROM outbox_events WHERE dispatched_at IS NULL',
        );
        const oldest = rows?.[0].oldest;
        if (oldest === null) this.set(0);
        else if (oldest !== undefined)
          this.set(Math.max(0, (Date.now() - dateFromRow(oldest).getTime()) / 1000));
      },
    });
    // Read at scrape time only: nothing is counted per query.
    // With read replicas, the primary's pool of the cluster (ReplicaPools).
    const driver = dataSource.driver as unknown as { pool?: MysqlPool; poolCluster?: unknown };
    const pool = () =>
      driver.poolCluster instanceof ReplicaPools
        ? (driver.poolCluster.pool(PRIMARY) as unknown as MysqlPool)
        : driver.pool;
    const replicas = () => (driver.poolCluster instanceof ReplicaPools ? driver.poolCluster.replicas : null);
    const replicaLabel = (id: string) => id.replace(/^SLAVE/, '');
    new Gauge({
      name: 'commerce_db_replica_up',
      help: 'Read replicas by their position in DATABASE_REPLICA_URLS (from 0): 1 taken for reads, 0 taken out',
      labelNames: ['replica'] as const,
      registers: [this.registry],
      collect() {
        for (const [id, state] of replicas() ?? []) this.set({ replica: replicaLabel(id) }, state.in ? 1 : 0);
      },
    });
    new Gauge({
      name: 'commerce_db_replica_lag_seconds',
      help: "Read replicas' lag as they last reported it (absent while not known)",
      labelNames: ['replica'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [id, state] of replicas() ?? []) {
          if (state.lagMs !== null) this.set({ replica: replicaLabel(id) }, state.lagMs / 1000);
        }
      },
    });
    const inUse = new Gauge({
      name: 'commerce_db_pool_connections_in_use',
      help: 'MySQL: pool connections lent to a query or transaction. SQLite: 1 while a write transaction runs',
      registers: [this.registry],
    });
    const waiting = new Gauge({
      name: 'commerce_db_pool_requests_waiting',
      help: 'MySQL: requests waiting for a pool connection. SQLite: write transactions queued behind the running one',
      registers: [this.registry],
    });
    this.samplePool = () => {
      const mysql = pool();
      inUse.set(
        mysql === undefined
          ? Math.min(transactions.pending, 1)
          : mysql._allConnections.length - mysql._freeConnections.length,
      );
      waiting.set(
        mysql === undefined ? Math.max(transactions.pending - 1, 0) : mysql._connectionQueue.length,
      );
    };
  }

  /**
   * The registry in Prometheus text format. The pool is sampled first: the scrape's own queries (outbox, jobs)
   * would otherwise be counted as connections in use.
   */
  scrape(): Promise<string> {
    this.samplePool();
    return this.registry.metrics();
  }
}

/** A query of a scrape; null (the gauge keeps its last value) when the database does not answer. */
async function scrapeQuery<T>(dataSource: DataSource, sql: string): Promise<T[] | null> {
  try {
    return (await dataSource.query(sql)) as T[];
  } catch {
    return null;
  }
}
