import request from 'supertest';
import type { TestApp } from './test-app.js';

export interface ProductInput {
  name?: string;
  description?: string;
  price?: number;
  stock?: number;
  category_id?: number;
}

let counter = 0;

/** Creates a product through the API as the given admin and returns the response data. */
export async function createProduct(
  t: Pick<TestApp, 'url'>,
  adminToken: string,
  input: ProductInput = {},
): Promise<{ id: number; name: string; price: number; stock: number }> {
  counter += 1;
  const res = await request(t.url)
    .post('/api/v1/products')
    .auth(adminToken, { type: 'bearer' })
    .send({
      name: `Product ${counter}`,
      description: 'A product',
      price: 10,
      stock: 100,
      category_id: 1,
      ...input,
    })
    .expect(201);
  return res.body.data;
}
