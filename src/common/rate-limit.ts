import { ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ThrottlerException, ThrottlerGuard, ThrottlerModuleOptions } from '@nestjs/throttler';
import type { ThrottlerLimitDetail, ThrottlerRequest } from '@nestjs/throttler';
import type { Response } from 'express';
import type { AppConfig } from '../config/app-config.js';
import { Metrics } from '../observability/metrics.js';
import type { RedisConnection } from '../redis/redis-connection.js';
import { RedisThrottlerStorage } from './redis-throttler-storage.js';
import { SlidingWindowThrottlerStorage } from './throttler-storage.js';

const AUTH_RATE_LIMIT = 'authRateLimit';

/** Puts a route under the stricter `THROTTLE_AUTH_LIMIT` (shared by all such routes) besides the global limit. */
export const AuthRateLimit = () => SetMetadata(AUTH_RATE_LIMIT, true);

/**
 * Two limits per client (its IP, as Express sees it with TRUST_PROXY): `default` counts every request
 * to the API, `auth` counts the requests to the routes marked with @AuthRateLimit(). With REDIS_URL the
 * counters live in Redis, shared by every instance; otherwise in this process's memory.
 */
export function throttlerOptions(
  config: AppConfig,
  reflector: Reflector,
  redis: RedisConnection,
): ThrottlerModuleOptions {
  const isAuthRoute = (context: ExecutionContext) =>
    reflector.getAllAndOverride<boolean>(AUTH_RATE_LIMIT, [context.getHandler(), context.getClass()]) ===
    true;
  return {
    throttlers: [
      { name: 'default', ttl: config.throttle.ttlMs, limit: config.throttle.limit },
      {
        name: 'auth',
        ttl: config.throttle.ttlMs,
        limit: config.throttle.authLimit,
        skipIf: (context) => !isAuthRoute(context),
      },
    ],
    generateKey: (_context, tracker, throttlerName) => `throttle:${throttlerName}:${tracker}`,
    storage:
      redis.client === null
        ? new SlidingWindowThrottlerStorage()
        : new RedisThrottlerStorage(redis.client, redis.keyPrefix),
  };
}

/** The throttler guard with a plain `Retry-After` header (seconds) whichever limit was hit, and a count of refusals. */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  @Inject(Metrics) private readonly metrics: Metrics;

  protected override async handleRequest(request: ThrottlerRequest): Promise<boolean> {
    try {
      return await super.handleRequest(request);
    } catch (error) {
      if (error instanceof ThrottlerException) {
        this.metrics.rateLimitRefusals.inc({ limit: request.throttler.name ?? 'default' });
      }
      throw error;
    }
  }

  protected override async throwThrottlingException(
    context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const retryAfter = Math.max(1, detail.timeToBlockExpire);
    context.switchToHttp().getResponse<Response>().setHeader('Retry-After', String(retryAfter));
    throw new ThrottlerException(
      `Too many requests: at most ${detail.limit} per ${Math.round(detail.ttl / 1000)} s, retry in ${retryAfter} s`,
    );
  }
}
