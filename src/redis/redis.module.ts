import { Global, Module } from '@nestjs/common';
import { RedisConnection } from './redis-connection.js';

/** Shared Redis connections for rate-limit counters and WebSocket fan-out (inactive without REDIS_URL). */
@Global()
@Module({ providers: [RedisConnection], exports: [RedisConnection] })
export class RedisModule {}
