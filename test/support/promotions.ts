import type { Agent } from 'node:http';
import request from 'supertest';
import type { TestApp } from './test-app.js';

/** A cart with lines, an e-mail and an address: a guest's (`token`, its X-Cart-Token) or a customer's (`bearer`). */
export interface GuestCart {
  id: string;
  token: string | null;
  bearer?: string;
  email: string;
}

/** The request with the cart's credentials. */
export function asOwner(call: request.Test, cart: GuestCart): request.Test {
  return cart.bearer === undefined
    ? call.set('X-Cart-Token', cart.token!)
    : call.auth(cart.bearer, { type: 'bearer' });
}

let guests = 0;

/** An address the default region serves (no other region in these tests lists GB). */
export const BRITISH_ADDRESS = {
  name: 'Ann Smith',
  line1: '1 High St',
  city: 'London',
  postal_code: 'N1',
  country: 'GB',
};

/** Starts a guest cart with `lines` ([product id, quantity]) and sets its e-mail and address. */
export async function guestCart(
  t: Pick<TestApp, 'url'>,
  lines: Array<[number, number]>,
  options: {
    regionId?: number;
    email?: string;
    address?: object;
    shippingOptionId?: number;
    bearer?: string;
  } = {},
): Promise<GuestCart> {
  const api = () => request(t.url);
  const email = options.email ?? `promo-guest-${++guests}@example.com`;
  const start = api().post('/api/v1/carts');
  const created = await (
    options.bearer === undefined ? start : start.auth(options.bearer, { type: 'bearer' })
  )
    .send(options.regionId === undefined ? {} : { region_id: options.regionId })
    .expect(201);
  const { id, cart_token } = created.body.data as { id: string; cart_token?: string };
  const cart: GuestCart = { id, token: cart_token ?? null, bearer: options.bearer, email };
  for (const [productId, quantity] of lines) {
    await asOwner(api().post(`/api/v1/carts/${id}/items`), cart)
      .send({ product_id: productId, quantity })
      .expect(201);
  }
  await asOwner(api().put(`/api/v1/carts/${id}`), cart)
    .send({
      email,
      shipping_address: options.address ?? BRITISH_ADDRESS,
      ...(options.shippingOptionId === undefined ? {} : { shipping_option_id: options.shippingOptionId }),
    })
    .expect(200);
  return cart;
}

/** POST /carts/{id}/discount-codes with the cart's token. */
export function applyCode(t: Pick<TestApp, 'url'>, cart: GuestCart, code: string) {
  return asOwner(request(t.url).post(`/api/v1/carts/${cart.id}/discount-codes`), cart).send({ code });
}

/** POST /carts/{id}/checkout with the cart's credentials (through `agent` when given). */
export function checkout(t: Pick<TestApp, 'url'>, cart: GuestCart, agent?: Agent) {
  const call = request(t.url).post(`/api/v1/carts/${cart.id}/checkout`);
  if (agent !== undefined) call.agent(agent);
  return asOwner(call, cart).send({
    payment_method: 'credit_card',
  });
}

/** GET /carts/{id} with the cart's credentials; the cart. */
export async function readCart(t: Pick<TestApp, 'url'>, cart: GuestCart) {
  return (await asOwner(request(t.url).get(`/api/v1/carts/${cart.id}`), cart).expect(200)).body.data;
}

/** POST /promotions as the admin; the created promotion. */
export async function createPromotion(t: Pick<TestApp, 'url'>, adminToken: string, body: object) {
  const res = await request(t.url)
    .post('/api/v1/promotions')
    .auth(adminToken, { type: 'bearer' })
    .send(body)
    .expect(201);
  return res.body.data as { id: number; code: string | null; used_count: number };
}
