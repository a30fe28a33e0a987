import { Global, Module } from '@nestjs/common';
import { RateLimiter } from './rate-limit.js';

/** One rate limiter for the HTTP middleware, the auth routes' guard and the WebSocket handshake. */
@Global()
@Module({ providers: [RateLimiter], exports: [RateLimiter] })
export class RateLimitModule {}
