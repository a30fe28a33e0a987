import type { PaymentStatus } from './payment-status.js';

/** A payment as its provider reports it. */
export interface ProviderPayment {
  /** The provider's id of the payment (a PaymentIntent id), or null for providers without one. */
  ref: string | null;
  status: PaymentStatus;
  /** What the provider says it takes, in minor units: compared with the order before anything is marked paid. */
  amountCents: number;
  currency: string;
  /** For the customer's browser (Stripe.js), or null. */
  clientSecret: string | null;
  /** Refunded so far, in minor units. */
  refundedCents: number;
}

/** A verified provider webhook event that concerns a payment. */
export interface ProviderEvent {
  id: string;
  type: string;
  /** Our payment id from the event's metadata, or null when the event names none. */
  paymentId: number | null;
  payment: ProviderPayment;
}

/** A webhook whose signature does not verify, or whose signature is outside the time tolerance. */
export class InvalidWebhookError extends Error {
  constructor(
    message: string,
    /** The 400's rule: `signature` (does not verify the body), `expired` or `future` (outside the tolerance). */
    readonly rule: 'signature' | 'expired' | 'future' = 'signature',
  ) {
    super(message);
  }
}

/** A correctly signed webhook whose body is not an event the provider sends (400 naming `body`). */
export class MalformedWebhookError extends Error {}

/** The provider could not be reached or failed on its side: the call may or may not have happened there. */
export class ProviderUnavailableError extends Error {}

/**
 * The payment providers this instance can use, registered in PaymentsModule (docs/extending.md#payment-providers).
 */
export const PAYMENT_PROVIDERS = Symbol('PAYMENT_PROVIDERS');

/** What the payments module asks of a payment provider. Every call is safe to repeat with the same key. */
export abstract class PaymentProvider {
  abstract readonly name: 'manual' | 'stripe' | 'gift_card';
  /** Whether the provider holds the payment's state (read back by reconciliation, cancelled there). */
  abstract readonly remote: boolean;

  abstract create(request: {
    paymentId: number;
    orderId: number;
    amountCents: number;
    currency: string;
    idempotencyKey: string;
  }): Promise<ProviderPayment>;

  abstract retrieve(ref: string): Promise<ProviderPayment>;

  abstract cancel(ref: string, idempotencyKey: string): Promise<void>;

  /**
   * Refunds part of a payment; returns the provider's refund id, or null. Throws ProviderUnavailableError when
   * the outcome is unknown (the refund stays pending and is settled later with the same key), any other error
   * when the provider refused it.
   */
  abstract refund(
    ref: string | null,
    request: { amountCents: number; refundId: number; idempotencyKey: string; orderId: number },
  ): Promise<string | null>;

  /**
   * Verifies a webhook's signature over its raw body and reads it; throws InvalidWebhookError when it is not
   * authentic. Returns null for an authentic event of no interest.
   */
  abstract parseWebhook(
    rawBody: Buffer,
    headers: Record<string, string | string[] | undefined>,
  ): ProviderEvent | null;
}

/** Bank transfer, cash on delivery: nothing moves until an admin records that the money arrived. */
export class ManualProvider extends PaymentProvider {
  readonly name = 'manual' as const;
  readonly remote = false;

  create(request: { amountCents: number; currency: string }): Promise<ProviderPayment> {
    return Promise.resolve({
      ref: null,
      status: 'pending',
      amountCents: request.amountCents,
      currency: request.currency,
      clientSecret: null,
      refundedCents: 0,
    });
  }

  retrieve(): Promise<ProviderPayment> {
    return Promise.reject(new Error('manual payments have nothing to read back'));
  }

  cancel(): Promise<void> {
    return Promise.resolve();
  }

  /** The admin pays the money back by hand; the refund is recorded. */
  refund(): Promise<string | null> {
    return Promise.resolve(null);
  }

  parseWebhook(): ProviderEvent | null {
    throw new InvalidWebhookError('manual payments have no webhooks');
  }
}
