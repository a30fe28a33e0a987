import { DynamicModule, Module, ValidationPipe } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE, Reflector } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { ThrottlerModule } from '@nestjs/throttler';
import { AuthModule } from './auth/auth.module.js';
import { JwtAuthGuard, RolesGuard } from './auth/guards.js';
import { AllExceptionsFilter } from './common/all-exceptions.filter.js';
import { RateLimitGuard, throttlerOptions } from './common/rate-limit.js';
import { ResponseEnvelopeInterceptor } from './common/response-envelope.interceptor.js';
import type { AppConfig } from './config/app-config.js';
import { APP_CONFIG, ConfigModule } from './config/config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { HealthModule } from './health/health.module.js';
import { LifecycleModule } from './lifecycle/lifecycle.module.js';
import { OrdersModule } from './orders/orders.module.js';
import { ProductsModule } from './products/products.module.js';
import { RealtimeModule } from './realtime/realtime.module.js';
import { RedisConnection } from './redis/redis-connection.js';
import { RedisModule } from './redis/redis.module.js';
import { SessionsModule } from './sessions/sessions.module.js';
import { UsersModule } from './users/users.module.js';
import { UploadModule } from './upload/upload.module.js';

@Module({})
export class AppModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.register(config),
        LifecycleModule,
        DatabaseModule,
        EventEmitterModule.forRoot(),
        RedisModule,
        ThrottlerModule.forRootAsync({
          inject: [APP_CONFIG, Reflector, RedisConnection],
          useFactory: throttlerOptions,
        }),
        HealthModule,
        AuthModule,
        SessionsModule,
        UploadModule,
        UsersModule,
        ProductsModule,
        OrdersModule,
        RealtimeModule,
      ],
      providers: [
        // Guards run in this order: rate limit, then authentication, then roles.
        { provide: APP_GUARD, useClass: RateLimitGuard },
        { provide: APP_GUARD, useClass: JwtAuthGuard },
        { provide: APP_GUARD, useClass: RolesGuard },
        { provide: APP_INTERCEPTOR, useClass: ResponseEnvelopeInterceptor },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        {
          provide: APP_PIPE,
          useValue: new ValidationPipe({
            whitelist: true,
            forbidNonWhitelisted: true,
            transform: true,
            transformOptions: { enableImplicitConversion: false },
          }),
        },
      ],
    };
  }
}
