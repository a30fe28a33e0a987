import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { HealthIndicatorResult } from '@nestjs/terminus';
import { SkipThrottle } from '@nestjs/throttler';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../common/public.decorator.js';
import { ShutdownSequence } from '../lifecycle/shutdown-sequence.js';
import { RedisConnection } from '../redis/redis-connection.js';

/** Every dependency check answers within this bound, whatever state the dependency is in. */
export const HEALTH_CHECK_TIMEOUT_MS = 1000;

const failureExample = (details: string) => ({
  description: 'Not ready; `details` names what failed (500: the API has no 503)',
  schema: { example: { code: 500, message: 'Internal Server Error', data: { details } } },
});

/** Orchestrator probes: never rate limited, no token. Failures are 500 envelopes naming the cause. */
@ApiTags('health')
@Public()
@SkipThrottle({ default: true, auth: true })
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly redis: RedisConnection,
    private readonly shutdown: ShutdownSequence,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Liveness and database reachability (the database answers within 1 s)' })
  @ApiOkResponse({
    description: 'The service is up and its database answers',
    schema: { example: { code: 200, message: 'OK', data: { status: 'ok', database: 'up' } } },
  })
  @ApiResponse({ status: 500, ...failureExample('Database is unreachable') })
  async check(): Promise<{ status: 'ok'; database: 'up' }> {
    try {
      await this.health.check([() => this.pingDatabase()]);
    } catch {
      // Answered as 500 by the filter (the API's code set has no 503).
      throw new ServiceUnavailableException('Database is unreachable');
    }
    return { status: 'ok', database: 'up' };
  }

  @Get('live')
  @ApiOperation({ summary: 'Liveness: the process is up and its event loop answers (no dependency checked)' })
  @ApiOkResponse({ schema: { example: { code: 200, message: 'OK', data: { status: 'ok' } } } })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({
    summary: 'Readiness: not shutting down, the database and (with REDIS_URL) Redis answer within 1 s each',
  })
  @ApiOkResponse({
    description: 'Ready to take traffic; `redis` is `disabled` without REDIS_URL',
    schema: {
      example: { code: 200, message: 'OK', data: { status: 'ok', database: 'up', redis: 'up' } },
    },
  })
  @ApiResponse({ status: 500, ...failureExample('Not ready: database (timeout of 1000ms exceeded)') })
  async ready(): Promise<{ status: 'ok'; database: 'up'; redis: 'up' | 'disabled' }> {
    if (this.shutdown.draining) throw new ServiceUnavailableException('Not ready: draining');
    const redis = this.redis.client;
    try {
      await this.health.check([
        () => this.pingDatabase(),
        ...(redis === null
          ? []
          : [
              () =>
                this.indicators
                  .check('redis')
                  .attempt(async () => void (await redis.ping()))
                  .withTimeout(HEALTH_CHECK_TIMEOUT_MS),
            ]),
      ]);
    } catch (error) {
      throw new ServiceUnavailableException(`Not ready: ${failedChecks(error)}`);
    }
    return { status: 'ok', database: 'up', redis: redis === null ? 'disabled' : 'up' };
  }

  private pingDatabase() {
    return this.database.pingCheck('database', { timeout: HEALTH_CHECK_TIMEOUT_MS });
  }
}

/** "database (timeout of 1000ms exceeded); redis (Connection is closed.)" from terminus's failure. */
function failedChecks(error: unknown): string {
  const failed = (error as { response?: { error?: HealthIndicatorResult } }).response?.error ?? {};
  const parts = Object.entries(failed).map(([name, detail]) => `${name} (${String(detail.message)})`);
  return parts.length > 0 ? parts.join('; ') : 'health check failed';
}
