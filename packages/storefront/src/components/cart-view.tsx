'use client';

import Link from 'next/link';
import { useState } from 'react';
import { problems } from '@/lib/errors';
import { money } from '@/lib/format';
import { useCart, type Cart } from './cart';

const PROBLEMS: Record<string, string> = {
  price_changed: 'The price has changed since it was added.',
  insufficient_stock: 'Fewer are in stock than this line asks for.',
  unavailable: 'No longer for sale.',
  no_price: 'Not sold in this region.',
};

/** The totals of a cart (or an order, which has the same ones). */
export function Totals({
  cart,
}: {
  cart: Pick<
    Cart,
    | 'subtotal'
    | 'discount_total'
    | 'shipping_total'
    | 'tax_total'
    | 'total'
    | 'currency_code'
    | 'prices_include_tax'
  >;
}) {
  const m = (amount: number) => money(amount, cart.currency_code);
  return (
    <dl className="totals">
      <dt>Subtotal</dt>
      <dd>{m(cart.subtotal)}</dd>
      {cart.discount_total > 0 && (
        <>
          <dt>Discounts</dt>
          <dd>−{m(cart.discount_total)}</dd>
        </>
      )}
      <dt>Shipping</dt>
      <dd>{m(cart.shipping_total)}</dd>
      <dt>{cart.prices_include_tax ? 'Included tax' : 'Tax'}</dt>
      <dd>{m(cart.tax_total)}</dd>
      <dt>Total</dt>
      <dd className="total">{m(cart.total)}</dd>
    </dl>
  );
}

export function EmptyCart() {
  return (
    <p>
      Your cart is empty. <Link href="/search">Find products</Link>
    </p>
  );
}

export function CartView() {
  const { cart, ready, setQuantity, remove } = useCart();
  const [error, setError] = useState<string | null>(null);

  async function run(change: Promise<void>) {
    setError(null);
    try {
      await change;
    } catch (caught) {
      setError(problems(caught).join(' '));
    }
  }

  if (!ready) return <p>Loading your cart…</p>;
  if (cart === null || cart.items.length === 0) return <EmptyCart />;
  const m = (amount: number) => money(amount, cart.currency_code);
  return (
    <>
      <table className="lines">
        <caption className="visually-hidden">Items in your cart</caption>
        <thead>
          <tr>
            <th scope="col">Product</th>
            <th scope="col">Price</th>
            <th scope="col">Quantity</th>
            <th scope="col">Total</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {cart.items.map((item) => {
            const name = `${item.product_name ?? `Product ${item.product_id}`}${item.variant_title === null ? '' : ` (${item.variant_title})`}`;
            return (
              <tr key={item.id}>
                <th scope="row">
                  {name}
                  {item.problems.map((problem) => (
                    <span key={problem.code} className="problem">
                      {PROBLEMS[problem.code] ?? problem.code}
                    </span>
                  ))}
                </th>
                <td>{item.price === null ? '—' : m(item.price)}</td>
                <td>
                  <label className="visually-hidden" htmlFor={`quantity-${item.id}`}>
                    Quantity of {name}
                  </label>
                  <input
                    id={`quantity-${item.id}`}
                    type="number"
                    min={1}
                    max={1000}
                    defaultValue={item.quantity}
                    key={item.quantity}
                    onKeyDown={(event) => {
                      if (event.key === 'Enter') event.currentTarget.blur();
                    }}
                    onBlur={(event) => {
                      const quantity = Math.floor(Number(event.target.value));
                      if (quantity >= 1 && quantity !== item.quantity)
                        void run(setQuantity(item.id, quantity));
                    }}
                  />
                </td>
                <td>{m(item.total)}</td>
                <td>
                  <button type="button" onClick={() => void run(remove(item.id))}>
                    Remove<span className="visually-hidden"> {name}</span>
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {error !== null && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <Totals cart={cart} />
      <p>
        <Link className="button" href="/checkout">
          Checkout
        </Link>
      </p>
    </>
  );
}
