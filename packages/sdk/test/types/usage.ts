// Typed usage of the SDK that must compile under --strict with no cast (checked by test/sdk-types.spec.ts).
import {
  CommerceApiError,
  createCommerceClient,
  localStorageTokenStore,
  memoryTokenStore,
  type ClientFrame,
  type CommerceClient,
  type ErrorsOf,
  type Schemas,
  type ServerFrame,
  type Tokens,
  type TokenStore,
} from '../../src/index.js';

export async function adminUsage(client: CommerceClient): Promise<string[]> {
  const user = await client.session.login({ username: 'root_admin', password: 'admin-password-1' });
  const role: 'user' | 'admin' = user.role;
  const current: Schemas['UserResponseDto'] | null = client.session.user;
  const off = client.session.onChange((changed) => changed?.username);
  off();

  // A partial update: the price alone.
  const product: Schemas['ProductResponseDto'] = await client.data(
    client.api.PUT('/products/{id}', { params: { path: { id: 5 } }, body: { price: 9.99 } }),
  );
  const { data: orders, meta } = await client.page(
    client.api.GET('/admin/orders', { params: { query: { status: 'pending', page: 1 } } }),
  );
  const total: number = meta.total;
  const numbers: string[] = orders.map((order) => order.order_number);

  // An upload, from a Blob (a File in a browser), with no cast.
  const uploaded = await client.upload(new Blob([new Uint8Array([0x89, 0x50])]), { filename: 'a.png' });
  const path: string = uploaded.filename;

  const result = await client.api.GET('/products/{id}', { params: { path: { id: 'tee' } } });
  if (result.error !== undefined) {
    const details: string = result.error.data.details;
    numbers.push(details);
  }

  // The error envelopes by status: a 400 lists the fields, the others have only details.
  type LoginErrors = ErrorsOf<'/login', 'post'>;
  const invalid: LoginErrors[400]['data']['errors'] = [{ field: 'password', rule: 'isString', message: '…' }];
  const refusedLogin: LoginErrors[401]['data']['details'] = 'Invalid username or password';
  numbers.push(`${invalid.length} ${refusedLogin}`);

  try {
    await client.session.refresh();
  } catch (error) {
    if (error instanceof CommerceApiError) {
      const status: number = error.status;
      const code: number = error.code;
      const fields: Array<{ field: string; rule: string; message: string }> = error.fields;
      numbers.push(`${status} ${code} ${error.message} ${fields.length} ${error.body.data.details}`);
    }
  }

  const socket = client.socket({ channels: ['orders'] });
  socket.on('order.created', (frame) => {
    const status: 'pending' | 'paid' | 'shipped' | 'completed' | 'cancelled' = frame.data.status;
    const buyer: string | undefined = frame.data.user?.username;
    numbers.push(`${status} ${buyer}`);
  });
  socket.on('*', (frame: ServerFrame) => numbers.push(frame.type));
  socket.onStatus((status: 'connecting' | 'open' | 'closed') => numbers.push(status));
  const ping: ClientFrame = { type: 'ping' };
  socket.send(ping);
  socket.close();
  await client.session.logout();
  return [role, current?.username ?? '', product.name, String(total), path, ...numbers];
}

/** A shopper's calls: the client sends the tokens it holds itself, so no call names a header. */
export async function shopperUsage(
  client: CommerceClient,
  cartId: string,
  orderId: number,
): Promise<string[]> {
  // Claiming takes the cart's X-Cart-Token, which the client holds since it created the cart.
  const claimed: Schemas['CartResponseDto'] = await client.data(
    client.api.POST('/carts/{id}/claim', { params: { path: { id: cartId } } }),
  );
  // A guest's order is paid with its X-Order-Token, which the client holds since the checkout.
  const payment: Schemas['PaymentResponseDto'] = await client.data(
    client.api.POST('/orders/{id}/payments', { params: { path: { id: orderId } } }),
  );
  const payments: Schemas['PaymentResponseDto'][] = await client.data(
    client.api.GET('/orders/{id}/payments', { params: { path: { id: orderId } } }),
  );
  // A header given by hand is still typed (and wins).
  await client.api.GET('/orders/{id}', {
    params: { path: { id: orderId }, header: { 'X-Order-Token': 'secret' } },
  });

  // Answers whose data is always null: `data` resolves to null.
  const requested: null = await client.data(
    client.api.POST('/auth/password-reset', { body: { email: 'jane@example.com' } }),
  );
  const confirmed: null = await client.data(
    client.api.POST('/auth/password-reset/confirm', {
      body: { token: 'from-the-mail', password: 'a-new-password' },
    }),
  );
  const loggedOut: null = await client.data(client.api.POST('/logout'));
  return [claimed.id, payment.status, String(payments.length), String(requested ?? confirmed ?? loggedOut)];
}

export function stores(): TokenStore[] {
  const tokens: Tokens = { token: 'a', refresh_token: 'b', carts: { '1': 'secret' } };
  const own: TokenStore = { get: async () => tokens, set: async () => undefined };
  createCommerceClient({ baseUrl: '/api/v1', tokens: own, fetch: globalThis.fetch });
  return [memoryTokenStore(), localStorageTokenStore('commerce.admin'), own];
}
