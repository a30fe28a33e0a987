import { useSyncExternalStore } from 'react';
import { client } from './client';

// The shop's one currency, as `GET /payment-methods` states it (`currency`, lower-case ISO 4217). Kept in this
// browser too, so that a reload shows amounts in it before the answer comes.
const key = 'commerce.admin.currency';
const listeners = new Set<() => void>();

function remember(currency: string): void {
  if (localStorage.getItem(key) === currency) return;
  localStorage.setItem(key, currency);
  listeners.forEach((listener) => listener());
}

/** Reads the shop's currency from the API (once signed in); amounts show as plain numbers until it is known. */
export async function loadCurrency(): Promise<void> {
  const { currency } = await client.data(client.api.GET('/payment-methods'));
  remember(currency);
}

export function useCurrency(): string | null {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => localStorage.getItem(key),
  );
}
