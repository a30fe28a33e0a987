import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { HealthCheckService, HealthIndicatorService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import type { HealthIndicatorResult } from '@nestjs/terminus';
import { ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { Public } from '../common/public.decorator.js';
import { ShutdownSequence } from '../lifecycle/shutdown-sequence.js';
import { RedisConnection } from '../redis/redis-connection.js';

/** Every dependency check answers within this bound, whatever state the dependency is in. */
export const HEALTH_CHECK_TIMEOUT_MS = 1000;

export class LiveDto {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
}

export class HealthDto extends LiveDto {
  @ApiProperty({ enum: ['up'], example: 'up' }) database: 'up';
}

export class ReadyDto extends HealthDto {
  @ApiProperty({ enum: ['up', 'disabled'], example: 'up', description: '`disabled` without REDIS_URL' })
  redis: 'up' | 'disabled';
}

/** Orchestrator probes: never rate limited, no token. Failures are 500 envelopes naming the cause. */
@ApiTags('health')
@Public()
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
  @ApiOperation({
    summary: 'Liveness and database reachability (the database answers within 1 s)',
    description: 'An unreachable database is a 500 with details `Database is unreachable`.',
  })
  @ApiEnvelope(HealthDto, { description: 'The service is up and its database answers' })
  @ApiErrors()
  async check(): Promise<HealthDto> {
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
  @ApiEnvelope(LiveDto, { description: 'The process is up' })
  @ApiErrors()
  live(): LiveDto {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({
    summary: 'Readiness: not shutting down, the database and (with REDIS_URL) Redis answer within 1 s each',
    description:
      'Not ready is a 500 whose details name what failed, e.g. `Not ready: draining` or ' +
      '`Not ready: database (timeout of 1000ms exceeded)`.',
  })
  @ApiEnvelope(ReadyDto, { description: 'Ready to take traffic' })
  @ApiErrors()
  async ready(): Promise<ReadyDto> {
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
