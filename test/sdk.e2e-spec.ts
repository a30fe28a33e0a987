import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import {
  CommerceApiError,
  createCommerceClient,
  memoryTokenStore,
  type ServerFrame,
  type SocketStatus,
  type TokenStore,
  type WebSocketConstructor,
} from '@commerce/sdk';
import { WebSocket as WsWebSocket } from 'ws';
import { ConnectionRegistry } from '../src/realtime/connection-registry.js';
import { ADMIN, ADMIN_ENV, createAccount, sessionIdOf } from './support/accounts.js';
import { eventually } from './support/eventually.js';
import { sampleFile } from './support/multipart.js';
import { createProduct } from './support/products.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const ADDRESS = {
  name: 'Jane Doe',
  line1: '1 Main St',
  city: 'Springfield',
  region: 'IL',
  postal_code: '62701',
  country: 'US',
};

/**
 * The SDK (packages/sdk) against the running service: the session's tokens and their rotation, the data and
 * page helpers and their errors, uploads, guest carts and orders, and the reconnecting socket.
 */
describe('the SDK against the service', () => {
  let t: TestApp;
  /** Every request the SDK clients sent, as `METHOD /path` (after /api/v1). */
  let sent: string[];
  const open: Array<{ close(): void }> = [];

  const countingFetch: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    sent.push(`${request.method} ${new URL(request.url).pathname.replace('/api/v1', '')}`);
    return fetch(request);
  };
  const newClient = (tokens: TokenStore = memoryTokenStore()) =>
    createCommerceClient({
      baseUrl: `${t.url}/api/v1`,
      tokens,
      fetch: countingFetch,
      // Node 22+ has a global WebSocket (and navigator.locks); Node 20 takes the ws package's.
      WebSocket: (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket ?? (WsWebSocket as never),
    });
  const sessionRow = async (sid: string) =>
    (
      await t.dataSource.query('SELECT refresh_token_hash, revoked_at FROM sessions WHERE id = ?', [sid])
    )[0] as { refresh_token_hash: string; revoked_at: string | null };
  const refreshes = () => sent.filter((line) => line === 'POST /auth/refresh').length;

  beforeAll(async () => {
    t = await startTestApp(ADMIN_ENV);
  });

  afterEach(() => {
    for (const item of open.splice(0)) item.close();
  });

  afterAll(async () => {
    await t.close();
  });

  beforeEach(() => {
    sent = [];
  });

  it('logs in (tokens and user in the store), calls with the bearer token and unwraps data and meta', async () => {
    const store = memoryTokenStore();
    const client = newClient(store);
    const seen: Array<string | null> = [];
    client.session.onChange((user) => seen.push(user?.username ?? null));

    const user = await client.session.login({ username: ADMIN.username, password: ADMIN.password });
    expect(user).toMatchObject({ username: ADMIN.username, role: 'admin' });
    expect(client.session.user?.username).toBe(ADMIN.username);
    expect(seen).toEqual([ADMIN.username]);
    const stored = await store.get();
    expect(stored).toMatchObject({ token: expect.any(String), refresh_token: expect.any(String), user });
    expect(stored?.expires_at).toBeGreaterThan(Date.now() + 60_000);

    const { data, meta } = await client.page(
      client.api.GET('/users', { params: { query: { page_size: 1 } } }),
    );
    expect(data).toHaveLength(1);
    expect(meta).toMatchObject({ page: 1, page_size: 1, total: 1, total_page: 1 });
    const me = await client.data(client.api.GET('/me'));
    expect(me.username).toBe(ADMIN.username);
  });

  it('throws CommerceApiError with the envelope, and the fields of a 400', async () => {
    const client = newClient();
    await client.session.login({ username: ADMIN.username, password: ADMIN.password });
    const missing = await client
      .data(client.api.GET('/products/{id}', { params: { path: { id: 999999 } } }))
      .catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(CommerceApiError);
    expect(missing).toMatchObject({
      status: 404,
      code: 404,
      message: 'Not Found',
      details: 'Product 999999 not found',
      fields: [],
    });

    const refused = (await client
      .data(client.api.POST('/products', { body: { name: '', price: -1, category_id: 1 } }))
      .catch((error: unknown) => error)) as CommerceApiError;
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe(400);
    expect(refused.fields.map((field) => `${field.field}:${field.rule}`).sort()).toEqual([
      'name:minLength',
      'price:min',
    ]);
    expect(await t.dataSource.query("SELECT id FROM products WHERE name = ''")).toEqual([]);

    const wrong = await newClient()
      .session.login({ username: ADMIN.username, password: 'wrong-password' })
      .catch((error: unknown) => error);
    expect(wrong).toMatchObject({ status: 401, details: 'Invalid username or password' });
  });

  it('creates a product with its required fields only and updates its price alone', async () => {
    const client = newClient();
    await client.session.login({ username: ADMIN.username, password: ADMIN.password });
    const created = await client.data(
      client.api.POST('/products', { body: { name: 'SDK mug', price: 12.5, category_id: 1 } }),
    );
    const updated = await client.data(
      client.api.PUT('/products/{id}', { params: { path: { id: created.id } }, body: { price: 9.99 } }),
    );
    expect(updated).toMatchObject({ id: created.id, name: 'SDK mug', price: 9.99, stock: 0 });
    expect(
      await t.dataSource.query('SELECT name, description, price_cents, stock FROM products WHERE id = ?', [
        created.id,
      ]),
    ).toEqual([{ name: 'SDK mug', description: '', price_cents: 999, stock: 0 }]);
  });

  it('uploads a Blob as the one multipart file part and answers the stored file', async () => {
    const client = newClient();
    await client.session.login({ username: ADMIN.username, password: ADMIN.password });
    const content = sampleFile('image/png', 3000);
    const uploaded = await client.upload(new Blob([new Uint8Array(content)]), { filename: 'cup.png' });
    expect(uploaded).toMatchObject({ original_name: 'cup.png', size: 3000, content_type: 'image/png' });
    expect(t.storedUploads()).toContain(uploaded.filename);
    expect(t.readUpload(uploaded.filename).equals(content)).toBe(true);
  });

  it('refreshes once for two concurrent 401s, retries both, and the session lives on', async () => {
    const store = memoryTokenStore();
    const client = newClient(store);
    await client.session.login({ username: ADMIN.username, password: ADMIN.password });
    const before = (await store.get())!;
    const sid = sessionIdOf(before.token!);
    const hashBefore = (await sessionRow(sid)).refresh_token_hash;
    // An access token the server refuses (its signature broken): every call meets a 401 first.
    await store.set({ ...before, token: `${before.token}x` });

    const [me, users] = await Promise.all([
      client.data(client.api.GET('/me')),
      client.page(client.api.GET('/users', { params: { query: {} } })),
    ]);
    expect(me.username).toBe(ADMIN.username);
    expect(users.meta.total).toBeGreaterThanOrEqual(1);
    expect(refreshes()).toBe(1);
    expect(sent.filter((line) => line === 'GET /me')).toHaveLength(2);
    const after = (await store.get())!;
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(after.token).not.toBe(`${before.token}x`);
    const row = await sessionRow(sid);
    expect(row.revoked_at).toBeNull();
    expect(row.refresh_token_hash).not.toBe(hashBefore);
  });

  it('refreshes once across two tabs sharing a store through navigator.locks', async () => {
    // Two clients on one store stand for two tabs of an origin; the lock manager serialises like the browser's.
    let queue: Promise<unknown> = Promise.resolve();
    const locksRequested: string[] = [];
    const locks = {
      request<T>(name: string, callback: () => Promise<T>): Promise<T> {
        locksRequested.push(name);
        const run = queue.then(callback);
        queue = run.catch(() => undefined);
        return run;
      },
    };
    const hadNavigator = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
    Object.defineProperty(globalThis, 'navigator', { value: { locks }, configurable: true });
    try {
      const store = memoryTokenStore();
      const first = newClient(store);
      const second = newClient(store);
      await first.session.login({ username: ADMIN.username, password: ADMIN.password });
      const tokens = (await store.get())!;
      await store.set({ ...tokens, token: `${tokens.token}x` });

      const names = await Promise.all([
        first.data(first.api.GET('/me')).then((user) => user.username),
        second.data(second.api.GET('/me')).then((user) => user.username),
      ]);
      expect(names).toEqual([ADMIN.username, ADMIN.username]);
      expect(locksRequested).toEqual(['commerce-sdk-refresh', 'commerce-sdk-refresh']);
      expect(refreshes()).toBe(1);
      expect((await sessionRow(sessionIdOf(tokens.token!))).revoked_at).toBeNull();
      expect(second.session.user?.username).toBe(ADMIN.username);
    } finally {
      if (hadNavigator) Object.defineProperty(globalThis, 'navigator', hadNavigator);
      else delete (globalThis as { navigator?: unknown }).navigator;
    }
  });

  it('logs out: the session is revoked on the server and cleared from the store', async () => {
    const store = memoryTokenStore();
    const client = newClient(store);
    const seen: Array<string | null> = [];
    client.session.onChange((user) => seen.push(user?.username ?? null));
    await client.session.login({ username: ADMIN.username, password: ADMIN.password });
    const { token } = (await store.get())!;

    await client.session.logout();
    expect(sent).toContain('POST /logout');
    expect(await store.get()).toBeNull();
    expect(client.session.user).toBeNull();
    expect(seen).toEqual([ADMIN.username, null]);
    expect((await sessionRow(sessionIdOf(token!))).revoked_at).not.toBeNull();
    const after = await client.api.GET('/me');
    expect(after.response.status).toBe(401);
    // Signed out, a 401 triggers no refresh.
    expect(refreshes()).toBe(0);
  });

  it('logs out with a refused access token: refreshes first, so that the session ends on the server', async () => {
    const store = memoryTokenStore();
    const client = newClient(store);
    await client.session.login({ username: ADMIN.username, password: ADMIN.password });
    const tokens = (await store.get())!;
    await store.set({ ...tokens, token: `${tokens.token}x` });

    await client.session.logout();
    expect(sent.filter((line) => line !== 'POST /login')).toEqual([
      'POST /logout',
      'POST /auth/refresh',
      'POST /logout',
    ]);
    expect(await store.get()).toBeNull();
    expect((await sessionRow(sessionIdOf(tokens.token!))).revoked_at).not.toBeNull();
  });

  it('a refresh refused with 401 ends the session in the store', async () => {
    const store = memoryTokenStore();
    const client = newClient(store);
    await client.session.login({ username: ADMIN.username, password: ADMIN.password });
    const tokens = (await store.get())!;
    await store.set({ ...tokens, token: `${tokens.token}x`, refresh_token: `${tokens.refresh_token}x` });

    const refused = await client.data(client.api.GET('/me')).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 401 });
    expect(refreshes()).toBe(1);
    expect(await store.get()).toBeNull();
    expect(client.session.user).toBeNull();
  });

  it('keeps a guest cart token and the order token, and sends them for that cart and that order', async () => {
    const admin = newClient();
    await admin.session.login({ username: ADMIN.username, password: ADMIN.password });
    const store = memoryTokenStore();
    const guest = newClient(store);
    const product = await admin.data(
      admin.api.POST('/products', { body: { name: 'Guest mug', price: 8, stock: 5, category_id: 1 } }),
    );

    const cart = await guest.data(guest.api.POST('/carts', {}));
    expect((await store.get())?.carts).toEqual({ [cart.id]: cart.cart_token });
    await guest.data(
      guest.api.POST('/carts/{id}/items', {
        params: { path: { id: cart.id } },
        body: { product_id: product.id, quantity: 2 },
      }),
    );
    await guest.data(
      guest.api.PUT('/carts/{id}', {
        params: { path: { id: cart.id } },
        body: { shipping_address: ADDRESS, email: 'guest@example.com' },
      }),
    );
    const order = await guest.data(
      guest.api.POST('/carts/{id}/checkout', {
        params: { path: { id: cart.id } },
        body: { payment_method: 'credit_card' },
      }),
    );
    expect(order).toMatchObject({
      total_amount: 16,
      email: 'guest@example.com',
      order_token: expect.any(String),
    });
    expect((await store.get())?.orders).toEqual({ [order.id]: order.order_token });

    const read = await guest.data(guest.api.GET('/orders/{id}', { params: { path: { id: order.id } } }));
    expect(read).toMatchObject({ id: order.id, status: 'pending', email: 'guest@example.com' });
    expect(await t.dataSource.query('SELECT user_id, status FROM orders WHERE id = ?', [order.id])).toEqual([
      { user_id: null, status: 'pending' },
    ]);
    expect(await t.dataSource.query('SELECT status FROM carts WHERE id = ?', [cart.id])).toEqual([
      { status: 'completed' },
    ]);
    // Another client, without the tokens, is not let in.
    const stranger = await newClient().api.GET('/orders/{id}', { params: { path: { id: order.id } } });
    expect(stranger.response.status).toBe(401);
  });

  it('a guest checks out, pays by bank transfer and reads the payments with the SDK alone: the order token goes with every call that takes it', async () => {
    const admin = newClient();
    await admin.session.login({ username: ADMIN.username, password: ADMIN.password });
    const product = await admin.data(
      admin.api.POST('/products', { body: { name: 'Transfer mug', price: 7.5, stock: 4, category_id: 1 } }),
    );
    /** A guest's checkout of two mugs, paid by bank transfer (a manual payment), through the SDK alone. */
    const checkout = async (client: ReturnType<typeof newClient>, email: string) => {
      const cart = await client.data(client.api.POST('/carts', {}));
      await client.data(
        client.api.POST('/carts/{id}/items', {
          params: { path: { id: cart.id } },
          body: { product_id: product.id, quantity: 2 },
        }),
      );
      await client.data(
        client.api.PUT('/carts/{id}', {
          params: { path: { id: cart.id } },
          body: { shipping_address: ADDRESS, email },
        }),
      );
      return client.data(
        client.api.POST('/carts/{id}/checkout', {
          params: { path: { id: cart.id } },
          body: { payment_method: 'bank_transfer' },
        }),
      );
    };
    const guest = newClient();
    const order = await checkout(guest, 'payer@example.com');
    expect(order).toMatchObject({
      total_amount: 15,
      payment_method: 'bank_transfer',
      payment_status: 'pending',
    });

    // No header by hand: the client holds the order's token and sends it where the API takes it.
    const created = await guest.api.POST('/orders/{id}/payments', { params: { path: { id: order.id } } });
    expect(created.response.status).toBe(201);
    expect(created.data?.data).toMatchObject({
      order_id: order.id,
      provider: 'manual',
      status: 'pending',
      amount: 15,
      client_secret: null,
    });
    // Asked again: the live payment, not a second one.
    const again = await guest.api.POST('/orders/{id}/payments', { params: { path: { id: order.id } } });
    expect(again.response.status).toBe(200);
    expect(again.data?.data.id).toBe(created.data?.data.id);
    const payments = await guest.data(
      guest.api.GET('/orders/{id}/payments', { params: { path: { id: order.id } } }),
    );
    expect(payments).toEqual([created.data?.data]);
    expect(sent.filter((line) => line.endsWith(`/orders/${order.id}/payments`))).toEqual([
      `POST /orders/${order.id}/payments`,
      `POST /orders/${order.id}/payments`,
      `GET /orders/${order.id}/payments`,
    ]);

    const rows = await t.dataSource.query(
      'SELECT order_id, provider, status, amount_cents, live_order_id FROM payments WHERE order_id = ?',
      [order.id],
    );
    expect(
      rows.map((row: Record<string, unknown>) => ({ ...row, amount_cents: Number(row.amount_cents) })),
    ).toEqual([
      {
        order_id: order.id,
        provider: 'manual',
        status: 'pending',
        amount_cents: 1500,
        live_order_id: order.id,
      },
    ]);
    expect(await t.dataSource.query('SELECT user_id, status FROM orders WHERE id = ?', [order.id])).toEqual([
      { user_id: null, status: 'pending' },
    ]);
    // Another client, without the token, is not let in; nor is this guest into another guest's order.
    const stranger = await newClient().api.GET('/orders/{id}/payments', {
      params: { path: { id: order.id } },
    });
    expect(stranger.response.status).toBe(401);
    const other = await checkout(newClient(), 'other@example.com');
    const notTheirs = await guest.api.POST('/orders/{id}/payments', { params: { path: { id: other.id } } });
    expect(notTheirs.response.status).toBe(401);
    expect(await t.dataSource.query('SELECT id FROM payments WHERE order_id = ?', [other.id])).toEqual([]);
  });

  it('a customer signs in and claims the anonymous cart the same client started, with no header by hand', async () => {
    const admin = newClient();
    await admin.session.login({ username: ADMIN.username, password: ADMIN.password });
    const product = await admin.data(
      admin.api.POST('/products', { body: { name: 'Claimed mug', price: 6, stock: 9, category_id: 1 } }),
    );
    const customer = await createAccount(t);
    const store = memoryTokenStore();
    const shopper = newClient(store);
    const cart = await shopper.data(shopper.api.POST('/carts', {}));
    await shopper.data(
      shopper.api.POST('/carts/{id}/items', {
        params: { path: { id: cart.id } },
        body: { product_id: product.id, quantity: 3 },
      }),
    );
    await shopper.session.login({ username: customer.username, password: 'password-123' });
    expect((await store.get())?.carts).toEqual({ [cart.id]: cart.cart_token });

    const claimed = await shopper.api.POST('/carts/{id}/claim', { params: { path: { id: cart.id } } });
    expect(claimed.response.status).toBe(200);
    expect(claimed.data?.data).toMatchObject({
      id: cart.id,
      status: 'open',
      items: [expect.objectContaining({ product_id: product.id, quantity: 3 })],
    });
    expect(
      await t.dataSource.query('SELECT user_id, token_hash, status FROM carts WHERE id = ?', [cart.id]),
    ).toEqual([{ user_id: customer.id, token_hash: null, status: 'open' }]);
    // The cart is the customer's now: its token is dropped, and the bearer token alone reads it.
    expect((await store.get())?.carts).toEqual({});
    const mine = await shopper.data(shopper.api.GET('/me/cart'));
    expect(mine.id).toBe(cart.id);
  });

  it('the socket receives live order frames, re-authenticates after a refresh and reconnects after a cut', async () => {
    const store = memoryTokenStore();
    const client = newClient(store);
    await client.session.login({ username: ADMIN.username, password: ADMIN.password });
    const socket = client.socket({ channels: ['orders'], minDelayMs: 50, maxDelayMs: 200 });
    open.push(socket);
    const frames: ServerFrame[] = [];
    const statuses: SocketStatus[] = [];
    socket.on('*', (frame) => frames.push(frame));
    socket.onStatus((status) => statuses.push(status));
    const created: number[] = [];
    socket.on('order.created', (frame) => created.push(frame.data.id));
    const count = (type: string) => frames.filter((frame) => frame.type === type).length;

    await eventually(() => count('subscribed') === 1 && count('auth') === 1);
    expect(socket.status).toBe('open');

    // A customer's order reaches the admin's `orders` channel, with its owner.
    const customer = await createAccount(t);
    const product = await createProduct(t, (await store.get())!.token!);
    const buyer = newClient(memoryTokenStore());
    const placedBy = await buyer.session.login({ username: customer.username, password: 'password-123' });
    const placeOrder = () =>
      buyer.data(
        buyer.api.POST('/orders', {
          body: {
            items: [{ product_id: product.id, quantity: 1 }],
            shipping_address: '1 Main St',
            payment_method: 'credit_card',
          },
        }),
      );
    const order = await placeOrder();
    await eventually(() => created.includes(order.id));
    const frame = frames.find((item) => item.type === 'order.created');
    expect(frame?.data).toMatchObject({
      id: order.id,
      user: { id: placedBy.id, username: customer.username },
    });

    // A refresh sends the new token in-band; the server answers with its expiry. (A token issued within the
    // same second as the last one, with the same claims, is the same token: nothing new to send.)
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await client.session.refresh();
    await eventually(() => count('auth') === 2);

    // The server cuts the connection: the socket reconnects, authenticates and subscribes again.
    for (const [server] of t.app.get(ConnectionRegistry).entries()) server.terminate();
    await eventually(() => count('subscribed') === 2 && socket.status === 'open');
    expect(statuses).toEqual(['open', 'closed', 'connecting', 'open']);

    // A refused token (4401): one refresh, then a new connection with the new token.
    const tokens = (await store.get())!;
    await store.set({ ...tokens, token: `${tokens.token}x` });
    sent = [];
    for (const [server] of t.app.get(ConnectionRegistry).entries()) server.terminate();
    await eventually(() => count('subscribed') === 3 && socket.status === 'open');
    expect(refreshes()).toBe(1);
    expect((await store.get())!.token).not.toBe(`${tokens.token}x`);

    const second = await placeOrder();
    await eventually(() => created.includes(second.id));

    // A logout closes the socket (until the next login).
    await client.session.logout();
    await eventually(() => socket.status === 'closed');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(socket.status).toBe('closed');
    expect([...t.app.get(ConnectionRegistry).entries()]).toHaveLength(0);
  });
});
