import { GiftCardLedger } from '../gift-cards/gift-card-ledger.js';
import {
  InvalidWebhookError,
  PaymentProvider,
  type ProviderEvent,
  type ProviderPayment,
} from './payment-provider.js';

/**
 * What gift cards paid at checkout: the payment is written `paid` by the placing transaction, never created here;
 * a refund puts the amount back on the order's cards (once per refund).
 */
export class GiftCardProvider extends PaymentProvider {
  readonly name = 'gift_card' as const;
  readonly remote = false;

  constructor(private readonly giftCards: GiftCardLedger) {
    super();
  }

  create(): Promise<ProviderPayment> {
    return Promise.reject(new Error('gift card payments are taken at checkout'));
  }

  retrieve(): Promise<ProviderPayment> {
    return Promise.reject(new Error('gift card payments have nothing to read back'));
  }

  cancel(): Promise<void> {
    return Promise.resolve();
  }

  async refund(
    _ref: string | null,
    request: { amountCents: number; refundId: number; orderId: number },
  ): Promise<string | null> {
    await this.giftCards.refundToCards(request.orderId, request.amountCents, request.refundId);
    return null;
  }

  parseWebhook(): ProviderEvent | null {
    throw new InvalidWebhookError('gift card payments have no webhooks');
  }
}
