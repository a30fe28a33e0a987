import {
  CallHandler,
  ExecutionContext,
  HttpException,
  HttpStatus,
  Inject,
  Injectable,
  NestInterceptor,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Request, Response } from 'express';
import { Gauge } from 'prom-client';
import { finalize, from, mergeMap, Observable } from 'rxjs';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { Metrics } from '../observability/metrics.js';

/** Seconds a refused search is told to wait: searches are bounded, so a turn frees up within about that. */
const RETRY_AFTER_SECONDS = 1;

/**
 * The product searches of this instance: at most SEARCH_CONCURRENCY run at once (one at a time on SQLite, where
 * they run in the one thread of SqliteReader), SEARCH_QUEUE more wait for a turn in arrival order, and any
 * further one is refused.
 */
@Injectable()
export class SearchSlots {
  private readonly limit: number;
  private readonly queueLength: number;
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @InjectDataSource() dataSource: DataSource,
    private readonly metrics: Metrics,
  ) {
    this.limit = dataSource.options.type === 'mysql' ? config.search.concurrency : 1;
    this.queueLength = config.search.queue;
    const running = () => this.running;
    const queued = () => this.waiting.length;
    new Gauge({
      name: 'commerce_product_searches',
      help: 'Product searches of this instance running (state=running, at most SEARCH_CONCURRENCY; 1 on SQLite) and waiting for a turn (state=queued, at most SEARCH_QUEUE)',
      labelNames: ['state'] as const,
      registers: [metrics.registry],
      collect() {
        this.set({ state: 'running' }, running());
        this.set({ state: 'queued' }, queued());
      },
    });
  }

  /** Resolves with the function that gives the turn back; null when the queue is full (the search is refused). */
  take(): Promise<() => void> | null {
    if (this.running < this.limit) {
      this.running++;
      return Promise.resolve(this.release());
    }
    if (this.waiting.length >= this.queueLength) {
      this.metrics.rateLimitRefusals.inc({ limit: 'search' });
      return null;
    }
    return new Promise((resolve) => this.waiting.push(() => resolve(this.release())));
  }

  /** The giver-back of one turn, which acts once: the next waiting search gets the turn, else it is free. */
  private release(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next === undefined) this.running--;
      else next();
    };
  }
}

/** Runs a product list with a non-empty `search` in a turn of SearchSlots; 429 with Retry-After when none is left. */
@Injectable()
export class SearchSlotInterceptor implements NestInterceptor {
  constructor(private readonly slots: SearchSlots) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const search = context.switchToHttp().getRequest<Request>().query.search;
    if (typeof search !== 'string' || search.trim() === '') return next.handle();
    const turn = this.slots.take();
    if (turn === null) {
      context.switchToHttp().getResponse<Response>().setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
      throw new HttpException(
        `Too many searches at once: retry in ${RETRY_AFTER_SECONDS} s`,
        HttpStatus.TOO_MANY_REQUESTS,
      );
    }
    return from(turn).pipe(mergeMap((release) => next.handle().pipe(finalize(release))));
  }
}
