import Stripe from 'stripe';
import {
  InvalidWebhookError,
  PaymentProvider,
  type ProviderEvent,
  type ProviderPayment,
} from './payment-provider.js';
import type { PaymentStatus } from './payment-status.js';

/** Stripe's signature tolerance: an event signed longer ago than this is refused as a replay. */
const SIGNATURE_TOLERANCE_SECONDS = 300;

/** Card payments through Stripe PaymentIntents (the official SDK). */
export class StripeProvider extends PaymentProvider {
  readonly name = 'stripe' as const;
  private readonly stripe: Stripe;

  constructor(
    secretKey: string,
    private readonly webhookSecret: string,
    apiUrl: string | null,
  ) {
    super();
    const url = apiUrl === null ? null : new URL(apiUrl);
    this.stripe = new Stripe(secretKey, {
      maxNetworkRetries: 2,
      ...(url === null
        ? {}
        : {
            host: url.hostname,
            protocol: url.protocol.slice(0, -1) as 'http' | 'https',
            port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
          }),
    });
  }

  async create(request: {
    paymentId: number;
    orderId: number;
    amountCents: number;
    currency: string;
    idempotencyKey: string;
  }): Promise<ProviderPayment> {
    const intent = await this.stripe.paymentIntents.create(
      {
        amount: request.amountCents,
        currency: request.currency,
        automatic_payment_methods: { enabled: true },
        metadata: { order_id: String(request.orderId), payment_id: String(request.paymentId) },
      },
      { idempotencyKey: request.idempotencyKey },
    );
    return fromIntent(intent);
  }

  async retrieve(ref: string): Promise<ProviderPayment> {
    return fromIntent(await this.stripe.paymentIntents.retrieve(ref, { expand: ['latest_charge'] }));
  }

  async cancel(ref: string, idempotencyKey: string): Promise<void> {
    await this.stripe.paymentIntents.cancel(ref, {}, { idempotencyKey });
  }

  async refund(
    ref: string | null,
    request: { amountCents: number; refundId: number; idempotencyKey: string },
  ): Promise<string | null> {
    const refund = await this.stripe.refunds.create(
      {
        payment_intent: ref!,
        amount: request.amountCents,
        metadata: { refund_id: String(request.refundId) },
      },
      { idempotencyKey: request.idempotencyKey },
    );
    return refund.id;
  }

  parseWebhook(
    rawBody: Buffer,
    headers: Record<string, string | string[] | undefined>,
  ): ProviderEvent | null {
    const signature = headers['stripe-signature'];
    if (typeof signature !== 'string') throw new InvalidWebhookError('Stripe-Signature header is missing');
    let event: Stripe.Event;
    try {
      event = this.stripe.webhooks.constructEvent(
        rawBody,
        signature,
        this.webhookSecret,
        SIGNATURE_TOLERANCE_SECONDS,
      );
    } catch (error) {
      throw new InvalidWebhookError((error as Error).message);
    }
    switch (event.type) {
      case 'payment_intent.succeeded':
      case 'payment_intent.payment_failed':
      case 'payment_intent.canceled':
      case 'payment_intent.processing':
      case 'payment_intent.requires_action':
      case 'payment_intent.amount_capturable_updated': {
        const intent = event.data.object;
        return {
          id: event.id,
          type: event.type,
          paymentId: paymentIdOf(intent.metadata),
          payment: fromIntent(intent),
        };
      }
      case 'charge.refunded': {
        const charge = event.data.object;
        return {
          id: event.id,
          type: event.type,
          paymentId: paymentIdOf(charge.metadata),
          payment: {
            ref:
              typeof charge.payment_intent === 'string'
                ? charge.payment_intent
                : (charge.payment_intent?.id ?? null),
            status: charge.amount_refunded >= charge.amount ? 'refunded' : 'partially_refunded',
            amountCents: charge.amount,
            currency: charge.currency,
            clientSecret: null,
            refundedCents: charge.amount_refunded,
          },
        };
      }
      default:
        return null;
    }
  }
}

function paymentIdOf(metadata: Stripe.Metadata | null): number | null {
  const id = Number(metadata?.payment_id);
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

function fromIntent(intent: Stripe.PaymentIntent): ProviderPayment {
  const charge = typeof intent.latest_charge === 'object' ? intent.latest_charge : null;
  const refundedCents = charge?.amount_refunded ?? 0;
  let status = statusOf(intent);
  if (status === 'paid' && refundedCents > 0) {
    status = refundedCents >= intent.amount_received ? 'refunded' : 'partially_refunded';
  }
  return {
    ref: intent.id,
    status,
    // What was taken once it succeeded; what is asked for before.
    amountCents: intent.status === 'succeeded' ? intent.amount_received : intent.amount,
    currency: intent.currency,
    clientSecret: intent.client_secret,
    refundedCents,
  };
}

function statusOf(intent: Stripe.PaymentIntent): PaymentStatus {
  switch (intent.status) {
    case 'succeeded':
      return 'paid';
    case 'canceled':
      return 'cancelled';
    case 'requires_capture':
      return 'authorized';
    case 'requires_action':
    case 'processing':
      return 'requires_action';
    case 'requires_payment_method':
      // After a declined attempt the intent waits for another payment method.
      return intent.last_payment_error ? 'failed' : 'pending';
    default:
      return 'pending';
  }
}
