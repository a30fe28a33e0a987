import Stripe from 'stripe';
import { createStripeClient } from '../common/stripe-client.js';
import {
  InvalidWebhookError,
  MalformedWebhookError,
  PaymentProvider,
  ProviderUnavailableError,
  type ProviderEvent,
  type ProviderPayment,
} from './payment-provider.js';
import type { PaymentStatus } from './payment-status.js';

/**
 * Stripe's signature tolerance: an event signed longer ago than this is refused as a replay, and one dated further
 * ahead (a clock far off, or a forged timestamp) too.
 */
const SIGNATURE_TOLERANCE_SECONDS = 300;
/** The longest event id the service stores (payment_provider_events.id); Stripe's are about 30 characters. */
const MAX_EVENT_ID_LENGTH = 255;

/** Card payments through Stripe PaymentIntents (the official SDK). */
export class StripeProvider extends PaymentProvider {
  readonly name = 'stripe' as const;
  readonly remote = true;
  private readonly stripe: Stripe;

  constructor(
    secretKey: string,
    private readonly webhookSecret: string,
    apiUrl: string | null,
  ) {
    super();
    this.stripe = createStripeClient(secretKey, apiUrl, { maxNetworkRetries: 2 });
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
    try {
      const refund = await this.stripe.refunds.create(
        {
          payment_intent: ref!,
          amount: request.amountCents,
          metadata: { refund_id: String(request.refundId) },
        },
        { idempotencyKey: request.idempotencyKey },
      );
      return refund.id;
    } catch (error) {
      // Unreachable, or failing on Stripe's side (after the SDK's own retries): the refund may exist there.
      if (
        error instanceof Stripe.errors.StripeConnectionError ||
        error instanceof Stripe.errors.StripeAPIError ||
        (error instanceof Stripe.errors.StripeError && (error.statusCode ?? 0) >= 500)
      ) {
        throw new ProviderUnavailableError(error.message);
      }
      throw error;
    }
  }

  parseWebhook(
    rawBody: Buffer,
    headers: Record<string, string | string[] | undefined>,
  ): ProviderEvent | null {
    const signature = headers['stripe-signature'];
    if (typeof signature !== 'string') throw new InvalidWebhookError('Stripe-Signature header is missing');
    let event: Stripe.Event;
    try {
      // Tolerance 0: the SDK checks only the signature; the time window is checked below, in both directions.
      event = this.stripe.webhooks.constructEvent(rawBody, signature, this.webhookSecret, 0);
    } catch (error) {
      if (error instanceof Stripe.errors.StripeSignatureVerificationError) {
        throw new InvalidWebhookError('Stripe-Signature does not verify the body');
      }
      throw new MalformedWebhookError('body is not JSON');
    }
    const signedAt = Number(/(?:^|,)t=(\d+)/.exec(signature)?.[1]);
    const age = Math.floor(Date.now() / 1000) - signedAt;
    if (age > SIGNATURE_TOLERANCE_SECONDS) {
      throw new InvalidWebhookError(
        `Stripe-Signature was made ${age} s ago, more than the ${SIGNATURE_TOLERANCE_SECONDS} s tolerance`,
        'expired',
      );
    }
    if (-age > SIGNATURE_TOLERANCE_SECONDS) {
      throw new InvalidWebhookError(
        `Stripe-Signature is dated ${-age} s ahead, more than the ${SIGNATURE_TOLERANCE_SECONDS} s tolerance`,
        'future',
      );
    }
    checkEvent(event);
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

/** The parts of an event the service reads, with their types; throws MalformedWebhookError naming the first wrong. */
function checkEvent(event: unknown): asserts event is Stripe.Event {
  if (!isObject(event)) throw new MalformedWebhookError('body must be a JSON object (an event)');
  if (typeof event.id !== 'string' || event.id.length === 0 || event.id.length > MAX_EVENT_ID_LENGTH) {
    throw new MalformedWebhookError(`body.id must be a string of 1-${MAX_EVENT_ID_LENGTH} characters`);
  }
  if (typeof event.type !== 'string') throw new MalformedWebhookError('body.type must be a string');
  const kind = event.type.startsWith('payment_intent.')
    ? 'intent'
    : event.type === 'charge.refunded'
      ? 'charge'
      : null;
  if (kind === null) return;
  const object = isObject(event.data) ? event.data.object : undefined;
  if (!isObject(object)) throw new MalformedWebhookError('body.data.object must be an object');
  const wrong = (
    kind === 'intent'
      ? [
          ['id', 'string'],
          ['status', 'string'],
          ['amount', 'number'],
          ['currency', 'string'],
        ]
      : [
          ['amount', 'number'],
          ['amount_refunded', 'number'],
          ['currency', 'string'],
        ]
  ).find(([key, type]) => typeof object[key] !== type);
  if (wrong !== undefined) {
    throw new MalformedWebhookError(`body.data.object.${wrong[0]} must be a ${wrong[1]}`);
  }
  if (object.metadata !== undefined && object.metadata !== null && !isObject(object.metadata)) {
    throw new MalformedWebhookError('body.data.object.metadata must be an object');
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
