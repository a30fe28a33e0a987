import { Global, Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { RateLimiter } from './rate-limit.js';

/**
 * One rate limiter for the HTTP middleware, the auth routes' guard and the WebSocket handshake. The auth module
 * tells it whose a bearer token is.
 */
@Global()
@Module({ imports: [AuthModule], providers: [RateLimiter], exports: [RateLimiter] })
export class RateLimitModule {}
