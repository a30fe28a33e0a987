import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { EventBus } from '../src/events/event-bus.js';
import type { OrderEventPayload } from '../src/orders/order-events.js';
import { OrdersService } from '../src/orders/orders.service.js';
import { scrape } from './support/metrics.js';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { createProduct } from './support/products.js';
import { startTestApp } from './support/test-app.js';

const body = (productId: number, quantity: number) => ({
  items: [{ product_id: productId, quantity }],
  shipping_address: '1 Main St',
  payment_method: 'paypal',
});

async function setup(env: Record<string, string>) {
  const t = await startTestApp({ ...ADMIN_ENV, ...env });
  const admin = await loginAdmin(t);
  const updates: OrderEventPayload[] = [];
  t.app.get(EventBus).subscribe('order.updated', (event) => {
    updates.push(event.data);
  });
  const place = (account: Account, productId: number, quantity: number) =>
    request(t.url)
      .post('/api/v1/orders')
      .auth(account.token, { type: 'bearer' })
      .send(body(productId, quantity));
  const pay = (id: number) =>
    request(t.url)
      .patch(`/api/v1/orders/${id}/status`)
      .auth(admin.token, { type: 'bearer' })
      .send({ status: 'paid', payment_status: 'paid' })
      .expect(200);
  const stockOf = async (id: number) =>
    Number((await t.dataSource.query('SELECT stock FROM products WHERE id = ?', [id]))[0].stock);
  const stateOf = async (id: number) =>
    (await t.dataSource.query('SELECT status, payment_status FROM orders WHERE id = ?', [id]))[0];
  return { t, admin, updates, place, pay, stockOf, stateOf };
}

describe('reservations that expire (ORDER_PENDING_TTL=2s, checked every second)', () => {
  let s: Awaited<ReturnType<typeof setup>>;
  let buyer: Account;

  beforeAll(async () => {
    s = await setup({ ORDER_PENDING_TTL: '2', ORDER_EXPIRY_INTERVAL: '1' });
    buyer = await createAccount(s.t);
  });

  afterAll(async () => {
    await s.t.close();
  });

  it('the periodic job cancels a pending unpaid order after the TTL and restores its stock; a paid one stays', async () => {
    const product = await createProduct(s.t, s.admin.token, { stock: 10 });
    const pending = (await s.place(buyer, product.id, 3).expect(201)).body.data.id as number;
    const paid = (await s.place(buyer, product.id, 2).expect(201)).body.data.id as number;
    await s.pay(paid);
    expect(await s.stockOf(product.id)).toBe(5);
    const deadline = Date.now() + 15_000;
    while ((await s.stateOf(pending)).status === 'pending' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(await s.stateOf(pending)).toEqual({ status: 'cancelled', payment_status: 'pending' });
    expect(await s.stockOf(product.id)).toBe(8);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await s.stateOf(paid)).toEqual({ status: 'paid', payment_status: 'paid' });
    expect(await s.stockOf(product.id)).toBe(8);
    const events = s.updates.filter((u) => u.order.id === pending);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ userId: buyer.id, order: { id: pending, status: 'cancelled' } });
    const read = await request(s.t.url)
      .get(`/api/v1/orders/${pending}`)
      .auth(buyer.token, { type: 'bearer' })
      .expect(200);
    expect(read.body.data.status).toBe('cancelled');
  });

  it('three runs at the same moment cancel and restock an order exactly once', async () => {
    const product = await createProduct(s.t, s.admin.token, { stock: 10 });
    const id = (await s.place(buyer, product.id, 4).expect(201)).body.data.id as number;
    const orders = s.t.app.get(OrdersService);
    const later = new Date(Date.now() + 60_000);
    const expiredBefore = (await scrape(s.t.url)).value('commerce_orders_expired_total') ?? 0;
    const counts = await Promise.all([1, 2, 3].map(() => orders.expirePending(later)));
    expect(counts.reduce((sum, n) => sum + n, 0)).toBe(1);
    expect((await scrape(s.t.url)).value('commerce_orders_expired_total')).toBe(expiredBefore + 1);
    expect(await s.stateOf(id)).toEqual({ status: 'cancelled', payment_status: 'pending' });
    expect(await s.stockOf(product.id)).toBe(10);
    expect(s.updates.filter((u) => u.order.id === id)).toHaveLength(1);
  });
  it("expiry gives a variant order's stock back to the variant and its product exactly once", async () => {
    const product = await createProduct(s.t, s.admin.token, { stock: 0 });
    const created = await request(s.t.url)
      .post(`/api/v1/products/${product.id}/variants`)
      .auth(s.admin.token, { type: 'bearer' })
      .send({ sku: `EXP-${product.id}`, options: {}, price: 5, stock: 10 })
      .expect(201);
    const variantId = created.body.data.id as number;
    const placed = await request(s.t.url)
      .post('/api/v1/orders')
      .auth(buyer.token, { type: 'bearer' })
      .send({
        items: [{ variant_id: variantId, quantity: 4 }],
        shipping_address: '1 Main St',
        payment_method: 'paypal',
      })
      .expect(201);
    const variantStock = async () =>
      Number(
        (await s.t.dataSource.query('SELECT stock FROM product_variants WHERE id = ?', [variantId]))[0].stock,
      );
    expect([await variantStock(), await s.stockOf(product.id)]).toEqual([6, 6]);
    const orders = s.t.app.get(OrdersService);
    const later = new Date(Date.now() + 60_000);
    // Three runs at once (and the periodic job): one of them cancels and restocks it.
    await Promise.all([1, 2, 3].map(() => orders.expirePending(later)));
    expect(await s.stateOf(placed.body.data.id)).toEqual({ status: 'cancelled', payment_status: 'pending' });
    expect([await variantStock(), await s.stockOf(product.id)]).toEqual([10, 10]);
    const expired = s.updates.filter((u) => u.order.id === placed.body.data.id);
    expect(expired).toHaveLength(1);
    // Nobody cancelled it but the service: the expiry is the system's change.
    expect(expired[0].actor).toEqual({ type: 'system', id: null });
  });
});

describe('expiry off (ORDER_PENDING_TTL=0), the pending limit and account deletion', () => {
  let s: Awaited<ReturnType<typeof setup>>;

  beforeAll(async () => {
    s = await setup({ ORDER_PENDING_TTL: '0', ORDER_MAX_PENDING_PER_USER: '2' });
  });

  afterAll(async () => {
    await s.t.close();
  });

  it('with ORDER_PENDING_TTL=0 nothing expires', async () => {
    const buyer = await createAccount(s.t);
    const product = await createProduct(s.t, s.admin.token, { stock: 10 });
    const id = (await s.place(buyer, product.id, 1).expect(201)).body.data.id as number;
    expect(await s.t.app.get(OrdersService).expirePending(new Date(Date.now() + 365 * 86400_000))).toBe(0);
    expect(await s.stateOf(id)).toEqual({ status: 'pending', payment_status: 'pending' });
  });

  it('refuses a pending order beyond ORDER_MAX_PENDING_PER_USER with 400 naming the limit', async () => {
    const buyer = await createAccount(s.t);
    const product = await createProduct(s.t, s.admin.token, { stock: 10 });
    const first = (await s.place(buyer, product.id, 1).expect(201)).body.data.id as number;
    await s.place(buyer, product.id, 1).expect(201);
    const refused = await s.place(buyer, product.id, 1).expect(400);
    expect(refused.body).toMatchObject({
      code: 400,
      data: {
        details: 'At most 2 pending orders per user (ORDER_MAX_PENDING_PER_USER): pay or cancel one first',
      },
    });
    expect(await s.stockOf(product.id)).toBe(8);
    // A paid order no longer counts; others' orders never do.
    await s.pay(first);
    await s.place(buyer, product.id, 1).expect(201);
    await s.place(await createAccount(s.t), product.id, 1).expect(201);
    expect(await s.stockOf(product.id)).toBe(6);
  });

  it("deleting one's own account cancels the pending orders and restores their stock; paid ones stay", async () => {
    const leaver = await createAccount(s.t);
    const product = await createProduct(s.t, s.admin.token, { stock: 10 });
    const pending = (await s.place(leaver, product.id, 4).expect(201)).body.data.id as number;
    const paid = (await s.place(leaver, product.id, 3).expect(201)).body.data.id as number;
    await s.pay(paid);
    expect(await s.stockOf(product.id)).toBe(3);
    await request(s.t.url)
      .delete(`/api/v1/users/${leaver.id}`)
      .auth(leaver.token, { type: 'bearer' })
      .expect(200);
    expect(await s.stateOf(pending)).toEqual({ status: 'cancelled', payment_status: 'pending' });
    expect(await s.stateOf(paid)).toEqual({ status: 'paid', payment_status: 'paid' });
    expect(await s.stockOf(product.id)).toBe(7);
    expect(s.updates.filter((u) => u.order.id === pending)).toEqual([
      expect.objectContaining({ userId: leaver.id, order: expect.objectContaining({ status: 'cancelled' }) }),
    ]);
  });
});
