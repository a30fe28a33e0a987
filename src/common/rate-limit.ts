import { CanActivate, ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ThrottlerException } from '@nestjs/throttler';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type { NextFunction, Request, Response } from 'express';
import { TokenAuthenticator } from '../auth/token-authenticator.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { Metrics } from '../observability/metrics.js';
import { RedisConnection } from '../redis/redis-connection.js';
import { RedisThrottlerStorage } from './redis-throttler-storage.js';
import { SlidingWindowThrottlerStorage } from './throttler-storage.js';

const ROUTE_RATE_LIMIT = 'routeRateLimit';

/** Puts a route under the stricter `THROTTLE_AUTH_LIMIT` (shared by all such routes) besides the general limit. */
export const AuthRateLimit = () => SetMetadata(ROUTE_RATE_LIMIT, 'auth' satisfies RateLimitBucket);

/**
 * Puts a route that makes the service send an e-mail on request (password reset, verification again) under
 * `THROTTLE_MAIL_LIMIT` (shared by all such routes) besides the general limit.
 */
export const MailRateLimit = () => SetMetadata(ROUTE_RATE_LIMIT, 'mail' satisfies RateLimitBucket);

/**
 * `default`: every request to the service (unknown routes and malformed bodies too); `staff`: instead of
 * `default` for a staff account (role admin); `files`: GET of stored files under /uploads/ and of the admin
 * console's files under /admin, instead of those two; `auth`: the routes marked with @AuthRateLimit(), besides
 * `default`; `mail`: the routes marked with @MailRateLimit(), besides `default`; `websocket-upgrade`: WebSocket
 * handshakes (which never reach the Express middleware), per client IP; `carts`: anonymous cart creation
 * (POST /carts without a bearer token), besides `default`.
 */
export type RateLimitBucket = 'default' | 'staff' | 'files' | 'auth' | 'mail' | 'websocket-upgrade' | 'carts';

/** One counted hit: the bucket's limit and window, and whether this hit is refused (and for how long). */
export interface RateLimitHit {
  limit: number;
  remaining: number;
  resetSeconds: number;
  /** Seconds until the client may try again; 0 when the hit is allowed. */
  retryAfter: number;
}

/** Headers a browser page on another origin may read (CORS `Access-Control-Expose-Headers`). */
export const EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'Idempotent-Replayed',
];

/**
 * Stored files and the admin console's files: a page of a storefront or the console fetches many at once, so
 * they have their own, larger bucket.
 */
const FILES_PATH = /^\/(?:api\/v1\/uploads\/|admin(?:\/|$))/;
/** Not counted: the OpenAPI UI and document (not the API) and the health probes (orchestrators poll them). */
const UNCOUNTED_PATH = /^\/api\/(?:docs(?:[/-]|$)|v1\/health(?:\/|$))/;

/**
 * Counts requests per client and bucket, in Redis when REDIS_URL is set (shared by every instance), otherwise in
 * this process's memory. The general buckets count a signed-in caller per account (`user:<id>`), anyone else per
 * IP as Express sees it (see TRUST_PROXY); the buckets of particular routes count per IP.
 */
@Injectable()
export class RateLimiter {
  private readonly storage: ThrottlerStorage;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    redis: RedisConnection,
    private readonly metrics: Metrics,
    private readonly tokens: TokenAuthenticator,
  ) {
    this.storage =
      redis.client === null
        ? new SlidingWindowThrottlerStorage()
        : new RedisThrottlerStorage(redis.client, redis.keyPrefix);
  }

  /**
   * Counts one request of the client's address in `bucket` and describes that bucket in the `X-RateLimit-*`
   * headers; past the limit, returns the 429 to answer (with `Retry-After` set).
   */
  async hit(
    bucket: RateLimitBucket,
    request: Request,
    response: Response,
  ): Promise<ThrottlerException | null> {
    return this.answer(await this.count(bucket, request.ip ?? ''), response);
  }

  private answer(hit: RateLimitHit, response: Response): ThrottlerException | null {
    response.setHeader('X-RateLimit-Limit', String(hit.limit));
    response.setHeader('X-RateLimit-Remaining', String(hit.remaining));
    response.setHeader('X-RateLimit-Reset', String(hit.resetSeconds));
    if (hit.retryAfter === 0) return null;
    response.setHeader('Retry-After', String(hit.retryAfter));
    return new ThrottlerException(this.refusalDetails(hit));
  }

  /** Counts one hit of `client` (an IP, or `user:<id>`) in `bucket`; a refused hit is counted in the metrics. */
  async count(bucket: RateLimitBucket, client: string): Promise<RateLimitHit> {
    const { ttlMs } = this.config.throttle;
    const limit = this.limitOf(bucket);
    const record = await this.storage.increment(`throttle:${bucket}:${client}`, ttlMs, limit, ttlMs, bucket);
    const hit = {
      limit,
      remaining: Math.max(0, limit - record.totalHits),
      resetSeconds: record.timeToExpire,
      retryAfter: record.isBlocked ? Math.max(1, record.timeToBlockExpire) : 0,
    };
    if (record.isBlocked) this.metrics.rateLimitRefusals.inc({ limit: bucket });
    return hit;
  }

  refusalDetails(hit: RateLimitHit): string {
    const windowSeconds = Math.round(this.config.throttle.ttlMs / 1000);
    return `Too many requests: at most ${hit.limit} per ${windowSeconds} s, retry in ${hit.retryAfter} s`;
  }

  private limitOf(bucket: RateLimitBucket): number {
    const { limit, staffLimit, authLimit, filesLimit, mailLimit } = this.config.throttle;
    const limits: Record<RateLimitBucket, number> = {
      default: limit,
      staff: staffLimit,
      files: filesLimit,
      auth: authLimit,
      mail: mailLimit,
      'websocket-upgrade': this.config.ws.upgradeLimit,
      carts: this.config.throttle.cartLimit,
    };
    return limits[bucket];
  }

  /**
   * Express middleware, mounted before the body parser and the router, so that every request counts:
   * unknown routes and bodies that fail to parse too. It runs before authentication, so it checks the bearer
   * token's signature and expiry itself (no database read): a valid one counts in its account's bucket, a
   * forged or expired one like no token, in the address's.
   */
  middleware() {
    return (request: Request, response: Response, next: NextFunction): void => {
      if (UNCOUNTED_PATH.test(request.path)) return next();
      const caller = this.tokens.verifiedCaller(request.headers.authorization);
      const files = request.method === 'GET' && FILES_PATH.test(request.path);
      const bucket = files ? 'files' : caller?.role === 'admin' ? 'staff' : 'default';
      const client = caller === null ? (request.ip ?? '') : `user:${caller.id}`;
      this.count(bucket, client).then((hit) => next(this.answer(hit, response) ?? undefined), next);
    };
  }
}

/** The bucket of a route marked with @AuthRateLimit() or @MailRateLimit(); its headers replace the general ones. */
@Injectable()
export class AuthRateLimitGuard implements CanActivate {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const bucket = this.reflector.getAllAndOverride<RateLimitBucket | undefined>(ROUTE_RATE_LIMIT, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (bucket === undefined) return true;
    const http = context.switchToHttp();
    const refusal = await this.limiter.hit(bucket, http.getRequest<Request>(), http.getResponse<Response>());
    if (refusal !== null) throw refusal;
    return true;
  }
}
