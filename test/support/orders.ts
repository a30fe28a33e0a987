import type { Agent } from 'node:http';
import request from 'supertest';
import type { TestApp } from './test-app.js';

export interface OrderRequestOptions {
  idempotencyKey?: string;
  headers?: Record<string, string>;
  /** A keep-alive agent from `concurrentClient()`, for many orders at once. */
  agent?: Agent;
}

/** A valid POST /orders body: `items` as [product id, quantity] pairs; `extra` replaces or adds fields. */
export function orderBody(items: Array<[number, number]>, extra: object = {}): object {
  return {
    items: items.map(([product_id, quantity]) => ({ product_id, quantity })),
    shipping_address: '1 Main St',
    payment_method: 'credit_card',
    ...extra,
  };
}

/** POST /orders with any body (valid or not) as the holder of `token`; the caller asserts the answer. */
export function postOrder(
  t: Pick<TestApp, 'url'>,
  token: string,
  body: object,
  options: OrderRequestOptions = {},
): request.Test {
  const req = request(t.url).post('/api/v1/orders');
  if (options.agent !== undefined) req.agent(options.agent);
  req.auth(token, { type: 'bearer' });
  if (options.idempotencyKey !== undefined) req.set('Idempotency-Key', options.idempotencyKey);
  for (const [name, value] of Object.entries(options.headers ?? {})) req.set(name, value);
  return req.send(body);
}

/** Places an order of `items` ([product id, quantity] pairs) as the holder of `token`. */
export function placeOrder(
  t: Pick<TestApp, 'url'>,
  token: string,
  items: Array<[number, number]>,
  options: OrderRequestOptions = {},
): request.Test {
  return postOrder(t, token, orderBody(items), options);
}
