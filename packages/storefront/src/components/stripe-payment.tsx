'use client';

import type { Stripe, StripeElements } from '@stripe/stripe-js';
import { useEffect, useRef, useState, type FormEvent } from 'react';

/**
 * Stripe's Payment Element for the order's PaymentIntent. Stripe.js is loaded from Stripe here, in the browser,
 * only when a card payment is made; the card never reaches the shop. The order page then shows the payment as
 * the service records it from Stripe's webhook (the browser's own "succeeded" is not trusted).
 */
export function StripePayment({
  publishableKey,
  orderId,
  clientSecret,
  returnPath = `/order/${orderId}`,
}: {
  publishableKey: string;
  orderId: number;
  clientSecret: string;
  /** Where Stripe sends the shopper back after the card was confirmed (default: the order's confirmation). */
  returnPath?: string;
}) {
  const mount = useRef<HTMLDivElement>(null);
  const [stripe, setStripe] = useState<{ stripe: Stripe; elements: StripeElements } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let cancelled = false;
    import('@stripe/stripe-js')
      .then(({ loadStripe }) => loadStripe(publishableKey))
      .then((loaded) => {
        if (cancelled || loaded === null || mount.current === null) return;
        const elements = loaded.elements({ clientSecret });
        elements.create('payment').mount(mount.current);
        setStripe({ stripe: loaded, elements });
      })
      .catch(() => setError('The card form could not be loaded. Reload the page to try again.'));
    return () => {
      cancelled = true;
    };
  }, [publishableKey, clientSecret]);

  async function pay(event: FormEvent) {
    event.preventDefault();
    if (stripe === null) return;
    setBusy(true);
    setError(null);
    const result = await stripe.stripe.confirmPayment({
      elements: stripe.elements,
      confirmParams: { return_url: `${window.location.origin}${returnPath}` },
    });
    // Only reached when the payment was not confirmed (a successful one leaves for return_url).
    setError(result.error.message ?? 'The payment was declined.');
    setBusy(false);
  }

  return (
    <form onSubmit={(event) => void pay(event)} aria-labelledby="card-heading">
      <h2 id="card-heading">Pay by card</h2>
      <div ref={mount} />
      {error !== null && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <button type="submit" disabled={stripe === null || busy}>
        Pay now
      </button>
    </form>
  );
}
