import type { components } from './schema.js';

/** The signed-in user as the login answers it (without phone and address). */
export type SessionUser = components['schemas']['UserResponseDto'];

/**
 * Everything the client keeps between calls (and, with a persistent store, between page loads): the session's
 * tokens and user, and the secrets of guest carts and orders by their id.
 */
export interface Tokens {
  /** The access token (JWT) sent as `Authorization: Bearer`. */
  token?: string;
  /** The session's refresh token: it works once, each refresh answers a new one. */
  refresh_token?: string;
  /** When the access token expires (milliseconds since the epoch). */
  expires_at?: number;
  user?: SessionUser;
  /** `cart_token` of each guest cart created here, by cart id: sent as `X-Cart-Token`. */
  carts?: Record<string, string>;
  /** `order_token` of each guest checkout made here, by order id: sent as `X-Order-Token`. */
  orders?: Record<string, string>;
}

/**
 * Where the client keeps its tokens; the app chooses. `get` is read before every request, so a store shared by
 * several tabs (local storage) always gives the tokens another tab has just rotated. `subscribe`, when the store
 * has it, reports changes made elsewhere (another tab), so that `session.user` and open sockets follow them.
 */
export interface TokenStore {
  get(): Tokens | null | Promise<Tokens | null>;
  set(tokens: Tokens | null): void | Promise<void>;
  subscribe?(listener: () => void): () => void;
}

/** Tokens held by this client object only: gone with the page or the process. The default. */
export function memoryTokenStore(initial: Tokens | null = null): TokenStore {
  let tokens = initial;
  return {
    get: () => tokens,
    set: (next) => {
      tokens = next;
    },
  };
}

interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/**
 * Tokens in the browser's `localStorage` under `key`, shared by the tabs of the origin (they survive a reload).
 * Another storage with the same methods (`sessionStorage`, a test double) may be passed.
 */
export function localStorageTokenStore(key: string, storage?: StorageLike): TokenStore {
  const area = (): StorageLike => {
    const found = storage ?? (globalThis as { localStorage?: StorageLike }).localStorage;
    if (found === undefined) throw new Error('localStorageTokenStore needs localStorage (a browser)');
    return found;
  };
  return {
    get() {
      const raw = area().getItem(key);
      if (raw === null) return null;
      try {
        return JSON.parse(raw) as Tokens;
      } catch {
        return null;
      }
    },
    set(tokens) {
      if (tokens === null) area().removeItem(key);
      else area().setItem(key, JSON.stringify(tokens));
    },
    subscribe(listener) {
      const target = globalThis as {
        addEventListener?: (type: 'storage', listener: (event: { key: string | null }) => void) => void;
        removeEventListener?: (type: 'storage', listener: (event: { key: string | null }) => void) => void;
      };
      if (target.addEventListener === undefined) return () => undefined;
      // The storage event fires in the other tabs of the origin, never in the one that wrote.
      const onStorage = (event: { key: string | null }) => {
        if (event.key === key || event.key === null) listener();
      };
      target.addEventListener('storage', onStorage);
      return () => target.removeEventListener?.('storage', onStorage);
    },
  };
}
