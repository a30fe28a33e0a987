import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { NotFoundException } from '@nestjs/common';
import request from 'supertest';
import { OrderHistory } from '../src/orders/order-history.js';
import { ProductCatalog } from '../src/products/product-catalog.js';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { placeOrder } from './support/orders.js';
import { createProduct } from './support/products.js';
import { startTestApp, TestApp } from './support/test-app.js';

/** The questions other modules may ask through a domain's facade, answered from the real database. */
describe('module facades', () => {
  let t: TestApp;
  let admin: Account;
  let buyer: Account;

  beforeAll(async () => {
    t = await startTestApp(ADMIN_ENV);
    admin = await loginAdmin(t);
    buyer = await createAccount(t);
  });

  afterAll(() => t?.close());

  it('OrderHistory: hasOrdered counts an order not cancelled; ownerOf names the owner or null', async () => {
    const orders = t.app.get(OrderHistory);
    const product = await createProduct(t, admin.token);
    const untouched = await createProduct(t, admin.token);
    expect(await orders.hasOrdered(buyer.id, product.id)).toBe(false);

    const placed = (await placeOrder(t, buyer.token, [[product.id, 1]]).expect(201)).body.data;
    expect(await orders.hasOrdered(buyer.id, product.id)).toBe(true);
    expect(await orders.hasOrdered(buyer.id, untouched.id)).toBe(false);
    expect(await orders.hasOrdered(admin.id, product.id)).toBe(false);
    expect(await orders.ownerOf(placed.id)).toBe(buyer.id);
    expect(await orders.ownerOf(placed.id + 1000)).toBeNull();

    await request(t.url)
      .post(`/api/v1/orders/${placed.id}/cancel`)
      .auth(buyer.token, { type: 'bearer' })
      .expect(200);
    const [row] = await t.dataSource.query('SELECT status FROM orders WHERE id = ?', [placed.id]);
    expect(row.status).toBe('cancelled');
    expect(await orders.hasOrdered(buyer.id, product.id)).toBe(false);
  });

  it('ProductCatalog.assertVisible: an inactive product is 404 except to an admin, a missing one 404', async () => {
    const catalog = t.app.get(ProductCatalog);
    const product = await createProduct(t, admin.token);
    await expect(catalog.assertVisible(product.id, undefined)).resolves.toBeUndefined();
    await request(t.url)
      .put(`/api/v1/products/${product.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ is_active: false })
      .expect(200);
    const asBuyer = { id: buyer.id, username: buyer.username, role: 'user' as const, sessionId: '' };
    const asAdmin = { id: admin.id, username: admin.username, role: 'admin' as const, sessionId: '' };
    await expect(catalog.assertVisible(product.id, asBuyer)).rejects.toBeInstanceOf(NotFoundException);
    await expect(catalog.assertVisible(product.id, asAdmin)).resolves.toBeUndefined();
    await expect(catalog.assertVisible(product.id + 1000, asAdmin)).rejects.toBeInstanceOf(NotFoundException);
  });
});
