import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Redis, RedisOptions } from 'ioredis';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { Metrics } from '../observability/metrics.js';

/** Reconnection delay: 100 ms, 200 ms, … up to 2 s, forever. */
const retryStrategy = (attempt: number) => Math.min(attempt * 100, 2000);

/**
 * The Redis connections of one instance, present only when REDIS_URL is set. Redis is never on the
 * critical path: commands fail fast while it is down (no offline queue, short timeouts) so callers can
 * fall back, ioredis keeps reconnecting in the background, and each loss and return is logged once.
 */
@Injectable()
export class RedisConnection implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Redis');
  private readonly clients: Redis[] = [];
  private closing = false;
  /** For commands (rate-limit counters, publishing); null without REDIS_URL. */
  readonly client: Redis | null;
  readonly keyPrefix: string;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {
    this.keyPrefix = config.redisKeyPrefix;
    this.client =
      config.redisUrl === null
        ? null
        : this.open('commands', {
            enableOfflineQueue: false,
            maxRetriesPerRequest: 1,
            commandTimeout: 500,
          });
  }

  /**
   * A connection for subscriber mode. It does not subscribe again by itself after a reconnection: the
   * caller subscribes on each 'ready' event, so it knows when its subscription is in place.
   */
  createSubscriber(name: string): Redis {
    return this.open(name, { enableOfflineQueue: false, autoResubscribe: false });
  }

  /**
   * The connection of the job queue (BullMQ): while Redis is away its commands wait for the reconnection
   * instead of failing, as BullMQ's workers require; the queue bounds the wait of `add` itself.
   */
  createQueueClient(): Redis {
    return this.open('jobs', { enableOfflineQueue: true, maxRetriesPerRequest: null });
  }

  /** Connects at start-up; an unreachable Redis is logged and retried, it never stops the start. */
  async onModuleInit(): Promise<void> {
    if (this.client === null) return;
    await this.connect(this.client);
  }

  async connect(client: Redis): Promise<boolean> {
    try {
      await client.connect();
      return true;
    } catch {
      return false; // already logged by the error listener; ioredis goes on retrying
    }
  }

  onApplicationShutdown(): void {
    this.closing = true;
    for (const client of this.clients) client.disconnect(false);
  }

  private open(name: string, options: RedisOptions): Redis {
    const client = new Redis(this.config.redisUrl!, {
      ...options,
      lazyConnect: true,
      connectTimeout: 5000,
      retryStrategy,
    });
    // Log transitions only: ioredis emits an error on every failed reconnection attempt.
    let up = false;
    let everUp = false;
    let errorLogged = false;
    const connected = this.metrics.redisConnected.labels(name);
    connected.set(0);
    client.on('ready', () => {
      connected.set(1);
      up = true;
      errorLogged = false;
      this.logger.log({ msg: everUp ? 'Redis reconnected' : 'Redis connected', connection: name });
      everUp = true;
    });
    client.on('close', () => {
      connected.set(0);
      if (!up || this.closing) return;
      up = false;
      this.logger.warn({ msg: 'Redis connection lost, reconnecting', connection: name });
    });
    client.on('error', (error: Error) => {
      if (errorLogged) return;
      errorLogged = true;
      this.logger.warn({ msg: 'Redis unavailable', connection: name, error: error.message });
    });
    this.clients.push(client);
    return client;
  }
}
