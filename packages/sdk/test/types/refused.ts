// Calls that must NOT compile: each line after `@ts-expect-error` is a type error, or tsc reports the unused
// directive (checked by test/sdk-types.spec.ts).
import type { ClientFrame, CommerceClient, ErrorsOf } from '../../src/index.js';

export async function refused(client: CommerceClient): Promise<void> {
  // @ts-expect-error price is a number
  await client.api.PUT('/products/{id}', { params: { path: { id: 5 } }, body: { price: '9.99' } });
  // @ts-expect-error a new product needs a name
  await client.api.POST('/products', { body: { price: 10, category_id: 1 } });
  // @ts-expect-error the path parameter is required
  await client.api.GET('/products/{id}', {});
  // @ts-expect-error no such path
  await client.api.GET('/product');
  // @ts-expect-error an order's status is one of five
  await client.api.GET('/admin/orders', { params: { query: { status: 'lost' } } });
  // @ts-expect-error login needs a password
  await client.session.login({ username: 'alice' });
  // @ts-expect-error `orders` is the only channel
  client.socket({ channels: ['chat'] });
  // @ts-expect-error an order frame's data has no `price`
  client.socket().on('order.updated', (frame) => frame.data.price);
  // @ts-expect-error a 401 envelope has no field errors
  const errors: ErrorsOf<'/login', 'post'>[401]['data']['errors'] = [];
  void errors;
  // @ts-expect-error a password reset request answers null data, not a string
  const reset: string = await client.data(
    client.api.POST('/auth/password-reset', { body: { email: 'a@b.co' } }),
  );
  void reset;
  // @ts-expect-error data keeps its type where there is one: a product has no `title`
  void (await client.data(client.api.GET('/products/{id}', { params: { path: { id: 5 } } }))).title;
  const header = { 'X-Cart-Token': 5 };
  // @ts-expect-error a cart token given by hand is a string
  await client.api.POST('/carts/{id}/claim', { params: { path: { id: 'c' }, header } });
  // @ts-expect-error the claim still needs the cart's id
  await client.api.POST('/carts/{id}/claim', {});
  // @ts-expect-error a claim is a POST (the paths the client takes keep each path's methods)
  await client.api.GET('/carts/{id}/claim', { params: { path: { id: 'c' } } });
  // @ts-expect-error a message frame's data is {content}
  const frame: ClientFrame = { type: 'message', content: 'hi' };
  void frame;
}
