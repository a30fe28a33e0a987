import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { AuthModule } from './auth/auth.module.js';
import { CookieSessionInterceptor } from './auth/cookie-sessions.js';
import { CartsModule } from './carts/carts.module.js';
import { CategoriesModule } from './categories/categories.module.js';
import { JwtAuthGuard, RolesGuard } from './auth/guards.js';
import { AllExceptionsFilter } from './common/all-exceptions.filter.js';
import { AuthRateLimitGuard } from './common/rate-limit.js';
import { RateLimitModule } from './common/rate-limit.module.js';
import { ResponseEnvelopeInterceptor } from './common/response-envelope.interceptor.js';
import { BodylessRouteGuard, RequestValidationPipe } from './common/validation.js';
import type { AppConfig } from './config/app-config.js';
import { ConfigModule } from './config/config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { ReplicaRoutingInterceptor } from './database/replica-reads.js';
import { EventsModule } from './events/events.module.js';
import { HealthModule } from './health/health.module.js';
import { JobsModule } from './jobs/jobs.module.js';
import { LifecycleModule } from './lifecycle/lifecycle.module.js';
import { MailModule } from './mail/mail.module.js';
import { ObservabilityModule } from './observability/observability.module.js';
import { OrdersModule } from './orders/orders.module.js';
import { OrderTimelineModule } from './order-timeline/order-timeline.module.js';
import { PaymentsModule } from './payments/payments.module.js';
import { ProductsModule } from './products/products.module.js';
import { RealtimeModule } from './realtime/realtime.module.js';
import { RedisModule } from './redis/redis.module.js';
import { SessionsModule } from './sessions/sessions.module.js';
import { UsersModule } from './users/users.module.js';
import { UploadModule } from './upload/upload.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';
import { AddressesModule } from './addresses/addresses.module.js';
import { ShippingOptionsModule } from './shipping-options/shipping-options.module.js';
import { RegionsModule } from './regions/regions.module.js';
import { TaxesModule } from './taxes/taxes.module.js';
import { PricingModule } from './pricing/pricing.module.js';
import { CustomerGroupsModule } from './customer-groups/customer-groups.module.js';
import { PriceListsModule } from './price-lists/price-lists.module.js';
import { GiftCardsModule } from './gift-cards/gift-cards.module.js';
import { PromotionsModule } from './promotions/promotions.module.js';
import { FulfilmentsModule } from './fulfilments/fulfilments.module.js';
import { ReturnsModule } from './returns/returns.module.js';
import { SearchModule } from './search/search.module.js';

@Module({})
export class AppModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.register(config),
        LifecycleModule,
        DatabaseModule,
        ObservabilityModule,
        EventsModule,
        RedisModule,
        JobsModule,
        RateLimitModule,
        HealthModule,
        // Express tries the routes in the order they were registered, module by module: the hottest first.
        ProductsModule,
        CartsModule,
        OrdersModule,
        AuthModule,
        RegionsModule,
        TaxesModule,
        CustomerGroupsModule,
        PriceListsModule,
        GiftCardsModule,
        PromotionsModule,
        PricingModule,
        SessionsModule,
        UploadModule,
        UsersModule,
        CategoriesModule,
        PaymentsModule,
        FulfilmentsModule,
        ReturnsModule,
        OrderTimelineModule,
        RealtimeModule,
        MailModule,
        WebhooksModule,
        AddressesModule,
        ShippingOptionsModule,
        SearchModule,
      ],
      providers: [
        // The general rate limit is a middleware (see createApp). Guards run in this order: the auth routes'
        // rate limit, then authentication, then roles, then the refusal of a body a route does not take.
        { provide: APP_GUARD, useClass: AuthRateLimitGuard },
        { provide: APP_GUARD, useClass: JwtAuthGuard },
        { provide: APP_GUARD, useClass: RolesGuard },
        { provide: APP_GUARD, useClass: BodylessRouteGuard },
        { provide: APP_INTERCEPTOR, useClass: ResponseEnvelopeInterceptor },
        // Inside the envelope: moves a cookie-mode answer's secrets into cookies.
        { provide: APP_INTERCEPTOR, useClass: CookieSessionInterceptor },
        // Inside the envelope: runs @ReadFromReplica() handlers on a read replica, tracks who wrote. Without
        // replicas it would pass every request through unchanged, so it is left out.
        ...(config.databaseReplicas.urls.length > 0
          ? [{ provide: APP_INTERCEPTOR, useClass: ReplicaRoutingInterceptor }]
          : []),
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        { provide: APP_PIPE, useValue: new RequestValidationPipe(config.pageSizeMax) },
      ],
    };
  }
}
