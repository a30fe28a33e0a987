import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { OrdersModule } from '../orders/orders.module.js';
import { Payment, PaymentRefund } from './payment.entity.js';
import { ManualProvider, PAYMENT_PROVIDERS, type PaymentProvider } from './payment-provider.js';
import { PaymentsController } from './payments.controller.js';
import { PaymentsService } from './payments.service.js';
import { StripeProvider } from './stripe-provider.js';

@Module({
  imports: [TypeOrmModule.forFeature([Payment, PaymentRefund]), OrdersModule],
  controllers: [PaymentsController],
  providers: [
    PaymentsService,
    {
      // Every provider this instance offers; PAYMENT_PROVIDERS maps payment methods to their names.
      provide: PAYMENT_PROVIDERS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig): PaymentProvider[] => {
        const { stripe } = config.payments;
        return [
          new ManualProvider(),
          ...(stripe === null
            ? []
            : [new StripeProvider(stripe.secretKey, stripe.webhookSecret, stripe.apiUrl)]),
        ];
      },
    },
  ],
})
export class PaymentsModule {}
