'use client';

import { CommerceApiError, type Schemas } from '@commerce/sdk';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import Link from 'next/link';
import { client } from '@/lib/api-browser';

export type Cart = Schemas['CartResponseDto'];

/**
 * Which cart this browser is filling: its id only. The cart's secret is the service's HttpOnly cookie; the id
 * alone opens nothing.
 */
const CART_ID_KEY = 'storefront.cart';

interface CartState {
  cart: Cart | null;
  /** False until this browser's cart has been read. */
  ready: boolean;
  /** Adds a product (by its variant when it has variants), starting a cart in the shopper's region if needed. */
  add(
    item: { product_id: number } | { variant_id: number },
    quantity: number,
    regionId?: number,
  ): Promise<Cart>;
  setQuantity(itemId: number, quantity: number): Promise<void>;
  remove(itemId: number): Promise<void>;
  /** Replaces the cart as an answer of the API gave it (a region move, an address, a shipping option). */
  replace(cart: Cart): void;
  /** Forgets the cart (checked out, or no longer this browser's). */
  forget(): void;
  /** Makes another cart this browser's (the one a claim answered). */
  adopt(cart: Cart): void;
}

const CartContext = createContext<CartState | null>(null);

export function useCart(): CartState {
  const state = useContext(CartContext);
  if (state === null) throw new Error('useCart outside CartProvider');
  return state;
}

export function storedCartId(): string | null {
  return localStorage.getItem(CART_ID_KEY);
}

export function CartProvider({ children }: { children: ReactNode }) {
  const [cart, setCart] = useState<Cart | null>(null);
  const [ready, setReady] = useState(false);

  const adopt = useCallback((next: Cart) => {
    localStorage.setItem(CART_ID_KEY, next.id);
    setCart(next);
  }, []);
  const forget = useCallback(() => {
    localStorage.removeItem(CART_ID_KEY);
    setCart(null);
  }, []);

  useEffect(() => {
    const id = storedCartId();
    if (id === null) {
      setReady(true);
      return;
    }
    client
      .data(client.api.GET('/carts/{id}', { params: { path: { id } } }))
      .then((found) => (found.status === 'open' ? setCart(found) : forget()))
      .catch((error: unknown) => {
        // Checked out elsewhere, removed after CART_TTL, or claimed into a customer's cart.
        if (error instanceof CommerceApiError && error.status === 404) forget();
        else throw error;
      })
      .finally(() => setReady(true));
  }, [forget]);

  const state = useMemo<CartState>(
    () => ({
      cart,
      ready,
      async add(item, quantity, regionId) {
        let id = cart?.id ?? storedCartId();
        if (id === null) {
          const created = await client.data(
            client.api.POST('/carts', { body: regionId === undefined ? {} : { region_id: regionId } }),
          );
          id = created.id;
        }
        const next = await client.data(
          client.api.POST('/carts/{id}/items', { params: { path: { id } }, body: { ...item, quantity } }),
        );
        adopt(next);
        return next;
      },
      async setQuantity(itemId, quantity) {
        if (cart === null) return;
        adopt(
          await client.data(
            client.api.PUT('/carts/{id}/items/{itemId}', {
              params: { path: { id: cart.id, itemId } },
              body: { quantity },
            }),
          ),
        );
      },
      async remove(itemId) {
        if (cart === null) return;
        adopt(
          await client.data(
            client.api.DELETE('/carts/{id}/items/{itemId}', { params: { path: { id: cart.id, itemId } } }),
          ),
        );
      },
      replace: adopt,
      forget,
      adopt,
    }),
    [cart, ready, adopt, forget],
  );

  return <CartContext.Provider value={state}>{children}</CartContext.Provider>;
}

/** The header's link to the cart, with its number of units. */
export function CartLink() {
  const { cart } = useCart();
  const units = cart?.items.reduce((sum, item) => sum + item.quantity, 0) ?? 0;
  return (
    <Link href="/cart" aria-label={`Cart, ${units} ${units === 1 ? 'item' : 'items'}`}>
      Cart ({units})
    </Link>
  );
}
