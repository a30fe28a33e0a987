import {
  type CallHandler,
  type ExecutionContext,
  HttpException,
  Inject,
  Injectable,
  Logger,
  type NestInterceptor,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Request } from 'express';
import { createHash } from 'node:crypto';
import { catchError, finalize, from, mergeMap, Observable, throwError } from 'rxjs';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { Metrics } from '../observability/metrics.js';
import { RedisConnection } from '../redis/redis-connection.js';
import { PRIMARY, ReplicaPools } from './replica-pools.js';

export const READ_FROM_REPLICA = 'readFromReplica';

/**
 * A catalogue or list read that may be answered by a read replica (DATABASE_REPLICA_URLS): every statement of
 * the request then goes to one replica, unless the caller wrote within DATABASE_REPLICA_STICKY_MS. Only for GET
 * routes that read nothing a caller expects to see right after writing it (not carts, checkout, own orders).
 */
export const ReadFromReplica = () => SetMetadata(READ_FROM_REPLICA, true);

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Who calls, as far as stickiness goes: the bearer token's user, the cart token, the guest order token. */
function callerKeys(request: Request): string[] {
  const keys: string[] = [];
  const user = request.user as { id?: number } | undefined;
  if (user?.id !== undefined) keys.push(`user:${user.id}`);
  for (const header of ['x-cart-token', 'x-order-token']) {
    const value = request.headers[header];
    if (typeof value === 'string' && value !== '') keys.push(`${header}:${value}`);
  }
  // Hashed: tokens are secrets and never stored as such.
  return keys.map((key) => createHash('sha256').update(key).digest('base64url'));
}

/**
 * Read replicas: which ones are taken for reads (checked every DATABASE_REPLICA_CHECK_INTERVAL_MS), which
 * callers read from the primary for a while after writing, and the scope a replica read runs in. Inactive
 * without DATABASE_REPLICA_URLS.
 */
@Injectable()
export class ReplicaReads implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ReadReplicas');
  readonly pools: ReplicaPools | null;
  private readonly settings: AppConfig['databaseReplicas'];
  /** Callers who wrote lately on this instance: key → until when their reads stay on the primary. */
  private readonly writers = new Map<string, number>();
  private readonly checking = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    @InjectDataSource() dataSource: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly redis: RedisConnection,
    private readonly metrics: Metrics,
  ) {
    const cluster = (dataSource.driver as { poolCluster?: unknown }).poolCluster;
    this.pools = cluster instanceof ReplicaPools ? cluster : null;
    this.settings = config.databaseReplicas;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.pools === null) return;
    await this.checkAll();
    const tick = () => {
      if (this.stopped) return;
      this.timer = setTimeout(() => void this.checkAll().finally(tick), this.settings.checkIntervalMs);
    };
    tick();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
  }

  /** Checks every replica at once; one that does not answer within the interval is out. */
  async checkAll(): Promise<void> {
    const now = Date.now();
    for (const [key, until] of this.writers) if (until <= now) this.writers.delete(key);
    await Promise.all([...this.pools!.replicas.keys()].map((id) => this.check(id)));
  }

  private async check(id: string): Promise<void> {
    if (this.checking.has(id)) return; // the previous check still waits: already marked out
    this.checking.add(id);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${this.settings.checkIntervalMs} ms`)),
        this.settings.checkIntervalMs,
      );
    });
    const status = this.replicationStatus(id).finally(() => this.checking.delete(id));
    try {
      const lagMs = await Promise.race([status, deadline]);
      // Reported in whole seconds: out as soon as the true lag could pass the maximum.
      if (lagMs === null) this.setState(id, false, null, 'not replicating (Seconds_Behind_Master is NULL)');
      else if (lagMs + 1000 > this.settings.maxLagMs) this.setState(id, false, lagMs, `lags ${lagMs} ms`);
      else this.setState(id, true, lagMs);
    } catch (error) {
      this.setState(id, false, null, (error as Error).message);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The lag the replica reports, in ms: 0 for a server with no replication status, null when it replicates not. */
  private async replicationStatus(id: string): Promise<number | null> {
    const pool = this.pools!.pool(id).promise();
    let rows: Array<Record<string, unknown>>;
    try {
      [rows] = (await pool.query('SHOW REPLICA STATUS')) as unknown as [Array<Record<string, unknown>>];
    } catch (error) {
      // MySQL before 8.0.22 and MariaDB before 10.5 know only the older name.
      if ((error as { errno?: number }).errno !== 1064) throw error;
      [rows] = (await pool.query('SHOW SLAVE STATUS')) as unknown as [Array<Record<string, unknown>>];
    }
    if (rows.length === 0) return 0;
    const seconds = rows[0].Seconds_Behind_Master ?? rows[0].Seconds_Behind_Source;
    return seconds === null || seconds === undefined ? null : Number(seconds) * 1000;
  }

  private setState(id: string, taken: boolean, lagMs: number | null, why?: string): void {
    const state = this.pools!.replicas.get(id)!;
    if (state.in !== taken) {
      if (taken) this.logger.log({ msg: 'Read replica taken for reads', replica: id, lagMs });
      else this.logger.warn({ msg: 'Read replica taken out', replica: id, reason: why });
    }
    state.in = taken;
    state.lagMs = lagMs;
  }

  /** The caller's reads stay on the primary for DATABASE_REPLICA_STICKY_MS from now (on every instance with Redis). */
  async wrote(keys: string[]): Promise<void> {
    if (keys.length === 0 || this.settings.stickyMs === 0) return;
    const until = Date.now() + this.settings.stickyMs;
    for (const key of keys) this.writers.set(key, until);
    const client = this.redis.client;
    if (client === null) return;
    const batch = client.multi();
    for (const key of keys) batch.set(this.redisKey(key), '1', 'PX', this.settings.stickyMs);
    await batch.exec().catch(() => undefined); // Redis down: this instance still knows
  }

  private async sticky(keys: string[]): Promise<boolean> {
    if (keys.length === 0 || this.settings.stickyMs === 0) return false;
    const now = Date.now();
    if (keys.some((key) => (this.writers.get(key) ?? 0) > now)) return true;
    const client = this.redis.client;
    if (client === null) return false;
    // Redis down: another instance may have taken the write, so the primary answers.
    return client.exists(...keys.map((key) => this.redisKey(key))).then(
      (found) => found > 0,
      () => true,
    );
  }

  private redisKey(key: string): string {
    return `${this.redis.keyPrefix}replica-sticky:${key}`;
  }

  /**
   * Runs a request's handler on a replica taken for reads, unless the caller is sticky or none is taken. A
   * failure other than an HTTP answer (the replica went away, timed out, refused a write) takes the replica out
   * until its next check passes, and the handler runs again on the primary.
   */
  route<T>(request: Request, handle: () => Observable<T>): Observable<T> {
    const pools = this.pools!;
    return from(this.sticky(callerKeys(request))).pipe(
      mergeMap((sticky) => {
        const replica = sticky ? null : pools.pick();
        if (replica === null) return handle();
        const run = runOn(pools, replica, handle);
        return run.result.pipe(
          catchError((error: unknown) => {
            if (error instanceof HttpException || !run.used()) return throwError(() => error);
            this.metrics.replicaFallbacks.inc();
            this.setState(replica, false, null, `a read failed: ${(error as Error).message}`);
            return runOn(pools, PRIMARY, handle).result;
          }),
        );
      }),
    );
  }

  /** Marks the caller of a write sticky before the handler runs and again once it has answered. */
  trackWrite<T>(request: Request, handle: () => Observable<T>): Observable<T> {
    const keys = callerKeys(request);
    if (keys.length === 0) return handle();
    return from(this.wrote(keys)).pipe(
      mergeMap(handle),
      finalize(() => void this.wrote(keys)),
    );
  }
}

/**
 * `handle()` with its statements on `node`. Called and subscribed in the scope: an inner interceptor may call
 * its own `next.handle()` from a promise's callback (SearchSlotInterceptor), which runs in the context of the
 * subscription.
 */
function runOn<T>(pools: ReplicaPools, node: string, handle: () => Observable<T>) {
  let used = () => false;
  const result = new Observable<T>((subscriber) => {
    const run = pools.runOn(node, () => handle().subscribe(subscriber));
    used = run.used;
    return run.result;
  });
  return { result, used: () => used() };
}

/** Applies ReplicaReads to every HTTP request (registered globally by DatabaseModule). */
@Injectable()
export class ReplicaRoutingInterceptor implements NestInterceptor {
  constructor(
    private readonly reads: ReplicaReads,
    private readonly reflector: Reflector,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (this.reads.pools === null || context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<Request>();
    if (!SAFE_METHODS.has(request.method)) return this.reads.trackWrite(request, () => next.handle());
    if (this.reflector.get<boolean>(READ_FROM_REPLICA, context.getHandler()) !== true) return next.handle();
    return this.reads.route(request, () => next.handle());
  }
}
