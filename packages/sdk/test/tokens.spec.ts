import { afterEach, describe, expect, it } from '@jest/globals';
import { createCommerceClient, localStorageTokenStore } from '../src/index.js';

/** One origin's localStorage shared by two "tabs", and the storage event the browser fires in the other tabs. */
function sharedStorage() {
  const items = new Map<string, string>();
  return {
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  };
}

describe('localStorageTokenStore', () => {
  const target = globalThis as unknown as Record<string, unknown>;
  afterEach(() => {
    delete target.addEventListener;
    delete target.removeEventListener;
  });

  it('keeps the tokens as JSON under its key, and null removes them', () => {
    const storage = sharedStorage();
    const store = localStorageTokenStore('commerce.admin', storage);
    expect(store.get()).toBeNull();
    store.set({ token: 'a', refresh_token: 'b', carts: { c1: 'secret' } });
    expect(JSON.parse(storage.getItem('commerce.admin')!)).toEqual({
      token: 'a',
      refresh_token: 'b',
      carts: { c1: 'secret' },
    });
    store.set(null);
    expect(storage.getItem('commerce.admin')).toBeNull();
  });

  it("a sign-out in another tab reaches this tab's session.user through the storage event", async () => {
    const listeners: Array<(event: { key: string | null }) => void> = [];
    target.addEventListener = (_type: string, listener: (event: { key: string | null }) => void) =>
      listeners.push(listener);
    target.removeEventListener = () => undefined;
    const storage = sharedStorage();
    const user = { id: 1, username: 'root_admin', role: 'admin' };
    storage.setItem('commerce.admin', JSON.stringify({ token: 'a', refresh_token: 'b', user }));

    const client = createCommerceClient({
      baseUrl: 'https://shop.example/api/v1',
      tokens: localStorageTokenStore('commerce.admin', storage),
      fetch: async () => new Response('{}'),
    });
    expect(client.session.user).toEqual(user);
    const seen: unknown[] = [];
    client.session.onChange((changed) => seen.push(changed));

    // The other tab logs out: its store removes the key, and this tab is told.
    storage.removeItem('commerce.admin');
    for (const listener of listeners) listener({ key: 'commerce.admin' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(client.session.user).toBeNull();
    expect(seen).toEqual([null]);
  });
});
