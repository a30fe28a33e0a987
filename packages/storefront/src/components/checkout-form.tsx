'use client';

import type { Schemas } from '@commerce/sdk';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { client } from '@/lib/api-browser';
import { problems } from '@/lib/errors';
import { money } from '@/lib/format';
import { AddressFields, addressFromForm } from './address-fields';
import { useCart } from './cart';
import { EmptyCart, Totals } from './cart-view';
import { StripePayment } from './stripe-payment';

type ShippingOption = Schemas['ShippingOptionResponseDto'];
type Address = Schemas['AddressResponseDto'];

export interface CheckoutProps {
  /** The signed-in customer's e-mail, or null for a guest (who gives one). */
  customerEmail: string | null;
  addresses: Address[];
  methods: Schemas['PaymentMethodsResponseDto'];
  countries: string[];
}

const STRIPE_KEY = process.env.NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY ?? '';

export const methodName = (method: string) =>
  method.charAt(0).toUpperCase() + method.slice(1).replaceAll('_', ' ');

/** Checkout: contact and address, then the shipping options for that address, then the payment. */
export function CheckoutForm({ customerEmail, addresses, methods, countries }: CheckoutProps) {
  const router = useRouter();
  const { cart, ready, replace, forget } = useCart();
  const [options, setOptions] = useState<ShippingOption[] | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [savedAddress, setSavedAddress] = useState<number | ''>(
    addresses.find((a) => a.is_default)?.id ?? '',
  );
  // The option chosen shows at once; the cart's totals follow when the API has priced it.
  const [shipping, setShipping] = useState<number | null>(null);
  const [stripe, setStripe] = useState<{ orderId: number; clientSecret: string } | null>(null);
  // Stripe's methods only where Stripe.js can be loaded (a publishable key); the manual ones always.
  const offered = methods.payment_methods.filter(
    (method) => methods.providers[method] !== 'stripe' || STRIPE_KEY !== '',
  );

  if (stripe !== null) return <StripePayment publishableKey={STRIPE_KEY} {...stripe} />;
  if (!ready) return <p>Loading your cart…</p>;
  if (cart === null || cart.items.length === 0) return <EmptyCart />;
  const cartId = cart.id;

  async function attempt(work: () => Promise<void>) {
    setBusy(true);
    setErrors([]);
    try {
      await work();
    } catch (error) {
      setErrors(problems(error));
    } finally {
      setBusy(false);
    }
  }

  function saveAddress(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    void attempt(async () => {
      const email = String(form.get('email') ?? '').trim();
      const body =
        savedAddress === ''
          ? { shipping_address: addressFromForm(form) }
          : { shipping_address_id: savedAddress };
      const updated = await client.data(
        client.api.PUT('/carts/{id}', {
          params: { path: { id: cartId } },
          body: customerEmail === null ? { ...body, email } : body,
        }),
      );
      replace(updated);
      const { data } = await client.page(
        client.api.GET('/carts/{id}/shipping-options', { params: { path: { id: cartId } } }),
      );
      setOptions(data);
    });
  }

  function chooseShipping(id: number) {
    setShipping(id);
    void attempt(async () => {
      replace(
        await client.data(
          client.api.PUT('/carts/{id}', {
            params: { path: { id: cartId } },
            body: { shipping_option_id: id },
          }),
        ),
      );
    });
  }

  function placeOrder(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const method = String(new FormData(event.currentTarget).get('payment_method') ?? '');
    void attempt(async () => {
      const order = await client.data(
        client.api.POST('/carts/{id}/checkout', {
          params: { path: { id: cartId } },
          body: { payment_method: method },
        }),
      );
      forget();
      const payment = await client.data(
        client.api.POST('/orders/{id}/payments', { params: { path: { id: order.id } } }),
      );
      if (payment.provider === 'stripe' && payment.client_secret !== null) {
        setStripe({ orderId: order.id, clientSecret: payment.client_secret });
      } else {
        router.push(`/order/${order.id}`);
      }
    });
  }

  const m = (amount: number) => money(amount, cart.currency_code);
  return (
    <div className="checkout">
      {errors.length > 0 && (
        <div role="alert" className="error">
          <p>Please check:</p>
          <ul>
            {errors.map((text) => (
              <li key={text}>{text}</li>
            ))}
          </ul>
        </div>
      )}
      <form onSubmit={saveAddress} aria-labelledby="address-heading">
        <h2 id="address-heading">1. Contact and shipping address</h2>
        {customerEmail === null ? (
          <div className="field">
            <label htmlFor="email">E-mail</label>
            <input
              id="email"
              name="email"
              type="email"
              autoComplete="email"
              required
              defaultValue={cart.email ?? ''}
            />
          </div>
        ) : (
          <p>Confirmation goes to {customerEmail}.</p>
        )}
        {addresses.length > 0 && (
          <div className="field">
            <label htmlFor="saved-address">Saved address</label>
            <select
              id="saved-address"
              value={savedAddress}
              onChange={(event) =>
                setSavedAddress(event.target.value === '' ? '' : Number(event.target.value))
              }
            >
              <option value="">A new address</option>
              {addresses.map((address) => (
                <option key={address.id} value={address.id}>
                  {address.name}, {address.line1}, {address.city}, {address.country}
                </option>
              ))}
            </select>
          </div>
        )}
        {savedAddress === '' && (
          <AddressFields initial={cart.shipping_address ?? undefined} countries={countries} />
        )}
        <button type="submit" disabled={busy}>
          Continue to shipping
        </button>
      </form>

      {options !== null && (
        <section aria-labelledby="shipping-heading">
          <h2 id="shipping-heading">2. Shipping</h2>
          {options.length === 0 ? (
            <p>No shipping option is needed for this address.</p>
          ) : (
            <fieldset>
              <legend>Shipping option</legend>
              {options.map((option) => {
                const price = option.prices.find(({ currency_code }) => currency_code === cart.currency_code);
                return (
                  <label key={option.id} className="choice">
                    <input
                      type="radio"
                      name="shipping_option"
                      value={option.id}
                      checked={(shipping ?? cart.shipping_option?.id) === option.id}
                      onChange={() => chooseShipping(option.id)}
                    />{' '}
                    {option.name}
                    {price !== undefined && ` (${m(price.amount)})`}
                  </label>
                );
              })}
            </fieldset>
          )}
        </section>
      )}

      {options !== null && (options.length === 0 || cart.shipping_option !== null) && (
        <form onSubmit={placeOrder} aria-labelledby="payment-heading">
          <h2 id="payment-heading">3. Payment</h2>
          <fieldset>
            <legend>Payment method</legend>
            {offered.map((method, index) => (
              <label key={method} className="choice">
                <input
                  type="radio"
                  name="payment_method"
                  value={method}
                  defaultChecked={index === 0}
                  required
                />{' '}
                {methodName(method)}
                {methods.providers[method] === 'stripe' ? ' (card, paid now)' : ' (pay later as instructed)'}
              </label>
            ))}
          </fieldset>
          <Totals cart={cart} />
          <button type="submit" disabled={busy}>
            Place order ({m(cart.total)})
          </button>
        </form>
      )}
    </div>
  );
}
