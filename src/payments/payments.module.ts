import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { GiftCardLedger } from '../gift-cards/gift-card-ledger.js';
import { GiftCardsModule } from '../gift-cards/gift-cards.module.js';
import { OrdersModule } from '../orders/orders.module.js';
import { GiftCardProvider } from './gift-card-provider.js';
import { Payment, PaymentRefund } from './payment.entity.js';
import { ManualProvider, PAYMENT_PROVIDERS, type PaymentProvider } from './payment-provider.js';
import { PaymentsController } from './payments.controller.js';
import { PaymentsService } from './payments.service.js';
import { OrderRefunds } from './order-refunds.js';
import { fromMinor } from '../pricing/calculator.js';
import { PaymentsTimeline } from './payments-timeline.js';
import { StripeProvider } from './stripe-provider.js';

@Module({
  imports: [TypeOrmModule.forFeature([Payment, PaymentRefund]), OrdersModule, GiftCardsModule],
  controllers: [PaymentsController],
  providers: [
    PaymentsService,
    PaymentsTimeline,
    {
      provide: OrderRefunds,
      inject: [PaymentsService],
      useFactory: (payments: PaymentsService): OrderRefunds => ({
        refund: async (orderId, amountMinor, currency, reason, idempotencyKey, staff) =>
          (
            await payments.refund(
              orderId,
              { amount: fromMinor(amountMinor, currency), reason },
              staff,
              idempotencyKey,
            )
          ).status as 'pending' | 'succeeded' | 'failed',
      }),
    },
    {
      // Every provider this instance offers; PAYMENT_PROVIDERS maps payment methods to their names.
      provide: PAYMENT_PROVIDERS,
      inject: [APP_CONFIG, GiftCardLedger],
      useFactory: (config: AppConfig, giftCards: GiftCardLedger): PaymentProvider[] => {
        const { stripe } = config.payments;
        return [
          new ManualProvider(),
          new GiftCardProvider(giftCards),
          ...(stripe === null
            ? []
            : [new StripeProvider(stripe.secretKey, stripe.webhookSecret, stripe.apiUrl)]),
        ];
      },
    },
  ],
  exports: [OrderRefunds, PaymentsTimeline],
})
export class PaymentsModule {}
