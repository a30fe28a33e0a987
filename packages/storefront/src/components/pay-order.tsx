'use client';

import { useState } from 'react';
import { client } from '@/lib/api-browser';
import { problems } from '@/lib/errors';
import { StripePayment } from './stripe-payment';

const STRIPE_KEY = process.env.NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY ?? '';

/**
 * Pays an order from its payment link (a draft order staff prepared): the link's token is the order's secret, sent
 * as X-Order-Token, so no sign-in is needed. A manual method records the payment to come; a card opens Stripe's
 * Payment Element.
 */
export function PayOrder({ orderId, token, method }: { orderId: number; token: string; method: string }) {
  const [recorded, setRecorded] = useState<string | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [stripe, setStripe] = useState<string | null>(null);
  const here = `/orders/${orderId}?token=${encodeURIComponent(token)}`;

  if (stripe !== null) {
    return (
      <StripePayment publishableKey={STRIPE_KEY} orderId={orderId} clientSecret={stripe} returnPath={here} />
    );
  }
  if (recorded !== null) {
    return (
      <p role="status">Payment by {recorded} noted: the order is marked paid as soon as the money arrives.</p>
    );
  }
  async function pay() {
    setBusy(true);
    setErrors([]);
    try {
      const payment = await client.data(
        client.api.POST('/orders/{id}/payments', {
          params: { path: { id: orderId }, header: { 'X-Order-Token': token } },
        }),
      );
      if (payment.provider === 'stripe' && payment.client_secret !== null) setStripe(payment.client_secret);
      else setRecorded(method.replaceAll('_', ' '));
    } catch (error) {
      setErrors(problems(error));
    } finally {
      setBusy(false);
    }
  }
  return (
    <>
      {errors.length > 0 && (
        <div role="alert" className="error">
          {errors.map((text) => (
            <p key={text}>{text}</p>
          ))}
        </div>
      )}
      <button type="button" onClick={() => void pay()} disabled={busy}>
        {busy ? 'Paying…' : 'Pay this order'}
      </button>
    </>
  );
}
