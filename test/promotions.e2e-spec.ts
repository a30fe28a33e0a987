import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { OrdersService } from '../src/orders/orders.service.js';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { eventually } from './support/eventually.js';
import { expectRefusals } from './support/field-errors.js';
import { scrape } from './support/metrics.js';
import { createProduct } from './support/products.js';
import {
  applyCode,
  asOwner,
  checkout,
  createPromotion,
  guestCart,
  readCart,
  type GuestCart,
} from './support/promotions.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const HOUR = 3600_000;
const past = (hours: number) => new Date(Date.now() - hours * HOUR).toISOString();
const future = (hours: number) => new Date(Date.now() + hours * HOUR).toISOString();

/** Promotions (DESIGN.md §16) end to end: admin CRUD, codes on carts, the rules, usage, orders and metrics. */
describe('promotions', () => {
  let t: TestApp;
  let admin: Account;
  const api = () => request(t.url);
  const asAdmin = <T extends request.Test>(call: T) => call.auth(admin.token, { type: 'bearer' });
  const product = (price: number, extra: object = {}) =>
    createProduct(t, admin.token, { price, stock: 1000, ...extra } as object);
  const promotion = (body: object) => createPromotion(t, admin.token, body);
  const query = <T = Record<string, unknown>>(sql: string, parameters: unknown[] = []) =>
    t.dataSource.query(sql, parameters) as Promise<T[]>;
  const usedCount = async (id: number) =>
    Number(
      (await query<{ used_count: number }>('SELECT used_count FROM promotions WHERE id = ?', [id]))[0]
        .used_count,
    );
  const heldCodes = async (cart: GuestCart) =>
    (
      await query<{ promotion_id: number }>(
        'SELECT promotion_id FROM cart_discount_codes WHERE cart_id = ?',
        [cart.id],
      )
    ).map((row) => Number(row.promotion_id));
  const ordersOfCart = async (cart: GuestCart) =>
    Number(
      (await query<{ n: number }>('SELECT COUNT(*) AS n FROM orders WHERE cart_id = ?', [cart.id]))[0].n,
    );
  const cartStatus = async (cart: GuestCart) =>
    (await query<{ status: string }>('SELECT status FROM carts WHERE id = ?', [cart.id]))[0].status;
  /** A 400 on `code` naming `rule`, and nothing of the code kept on the cart. */
  const expectRefused = async (cart: GuestCart, code: string, rule: string) => {
    const before = await heldCodes(cart);
    const res = await applyCode(t, cart, code).expect(400);
    expect(res.body.data.errors).toEqual([expect.objectContaining({ field: 'code', rule })]);
    expect(await heldCodes(cart)).toEqual(before);
  };

  beforeAll(async () => {
    t = await startTestApp({
      ...ADMIN_ENV,
      ORDER_MAX_PENDING_PER_USER: '1000',
      ORDER_PENDING_TTL: '3600',
      THROTTLE_CART_LIMIT: '100000',
    });
    admin = await loginAdmin(t);
  });

  afterAll(async () => {
    await t.close();
  });

  describe('admin CRUD', () => {
    it('creates, reads, lists, updates partially (back to null) and deletes; codes unique ignoring case', async () => {
      const p = await product(10);
      const created = await promotion({
        code: 'Summer10',
        description: '10 % off',
        type: 'percentage',
        value: 10,
        conditions: { min_subtotal: 20, product_ids: [p.id] },
        starts_at: past(1),
        ends_at: future(24),
        usage_limit: 100,
        usage_limit_per_customer: 2,
      });
      expect(created).toMatchObject({
        code: 'Summer10',
        description: '10 % off',
        type: 'percentage',
        value: 10,
        currency_code: null,
        target: 'order',
        conditions: {
          min_subtotal: 20,
          product_ids: [p.id],
          category_ids: null,
          customer_group_ids: null,
          first_order_only: false,
        },
        buy_x_get_y: null,
        usage_limit: 100,
        usage_limit_per_customer: 2,
        combinable: true,
        is_active: true,
        used_count: 0,
      });
      const read = await asAdmin(api().get(`/api/v1/promotions/${created.id}`)).expect(200);
      expect(read.body.data).toEqual(created);
      const list = await asAdmin(api().get('/api/v1/promotions?page_size=100')).expect(200);
      expect(list.body.data.map((p: { id: number }) => p.id)).toContain(created.id);

      const updated = await asAdmin(api().put(`/api/v1/promotions/${created.id}`))
        .send({ ends_at: null, usage_limit: null, conditions: { min_subtotal: null }, description: 'Ten' })
        .expect(200);
      expect(updated.body.data).toMatchObject({
        ends_at: null,
        usage_limit: null,
        usage_limit_per_customer: 2,
        description: 'Ten',
        conditions: { min_subtotal: null, product_ids: [p.id] },
      });
      const [row] = await query('SELECT code_key, ends_at, usage_limit FROM promotions WHERE id = ?', [
        created.id,
      ]);
      expect(row).toEqual({ code_key: 'summer10', ends_at: null, usage_limit: null });

      const taken = await asAdmin(api().post('/api/v1/promotions'))
        .send({ code: 'SUMMER10', type: 'free_shipping' })
        .expect(400);
      expect(taken.body.data.errors).toEqual([expect.objectContaining({ field: 'code', rule: 'unique' })]);
      // Two creates of one code at once: the unique index lets one through, the other is the same 400.
      const racing = await Promise.all(
        [1, 2].map(() =>
          asAdmin(api().post('/api/v1/promotions')).send({ code: 'RACE', type: 'free_shipping' }),
        ),
      );
      expect(racing.map((res) => res.status).sort()).toEqual([201, 400]);
      expect(await query("SELECT id FROM promotions WHERE code_key = 'race'")).toHaveLength(1);

      await asAdmin(api().delete(`/api/v1/promotions/${created.id}`)).expect(200);
      await asAdmin(api().get(`/api/v1/promotions/${created.id}`)).expect(404);
      expect(await query('SELECT id FROM promotions WHERE id = ?', [created.id])).toEqual([]);
    });

    it('refuses invalid promotions naming the field and the rule, writing nothing', async () => {
      const before = await query('SELECT COUNT(*) AS n FROM promotions');
      await expectRefusals(
        (body) => asAdmin(api().post('/api/v1/promotions')).send(body),
        [
          [{ type: 'fixed', value: 5 }, 'currency_code', 'required'],
          [{ type: 'fixed', value: 5.555, currency_code: 'usd' }, 'value', 'isAmount'],
          [{ type: 'fixed', value: 5, currency_code: 'xyz' }, 'currency_code', 'isCurrency'],
          [{ type: 'percentage', value: 150 }, 'value', 'max'],
          [{ type: 'percentage' }, 'value', 'required'],
          [{ type: 'percentage', value: 10, currency_code: 'usd' }, 'currency_code', 'fixedOnly'],
          [{ type: 'free_shipping', value: 10 }, 'value', 'empty'],
          [{ type: 'buy_x_get_y' }, 'buy_x_get_y', 'required'],
          [
            { type: 'buy_x_get_y', buy_x_get_y: { buy_quantity: 0, get_quantity: 1 } },
            'buy_x_get_y.buy_quantity',
            'min',
          ],
          [
            { type: 'percentage', value: 5, buy_x_get_y: { buy_quantity: 1, get_quantity: 1 } },
            'buy_x_get_y',
            'buyXGetYOnly',
          ],
          [{ type: 'bogus' }, 'type', 'isIn'],
          [{ type: 'free_shipping', code: 'has space' }, 'code', 'matches'],
          [{ type: 'free_shipping', starts_at: future(2), ends_at: future(1) }, 'ends_at', 'after'],
          [
            { type: 'free_shipping', conditions: { customer_group_ids: [999999] } },
            'conditions.customer_group_ids',
            'exists',
          ],
          [
            { type: 'free_shipping', conditions: { category_ids: [999999] } },
            'conditions.category_ids',
            'exists',
          ],
          [
            { type: 'free_shipping', conditions: { product_ids: [999999] } },
            'conditions.product_ids',
            'exists',
          ],
          [{ type: 'free_shipping', usage_limit: 0 }, 'usage_limit', 'min'],
          [{ type: 'free_shipping', used_count: 5 }, 'used_count', 'whitelistValidation'],
        ],
      );
      expect(await query('SELECT COUNT(*) AS n FROM promotions')).toEqual(before);
      const customer = await createAccount(t);
      await api()
        .post('/api/v1/promotions')
        .auth(customer.token, { type: 'bearer' })
        .send({ type: 'free_shipping' })
        .expect(403);
    });
  });

  describe('in the cart', () => {
    it('spreads an order-level 10.00 over three lines exactly (largest remainder), in any case, and keeps it on the order', async () => {
      const [a, b, c] = [await product(10), await product(20), await product(3.33)];
      const code = await promotion({
        code: 'TENOFF',
        description: '10 off',
        type: 'fixed',
        value: 10,
        currency_code: 'usd',
      });
      const cart = await guestCart(t, [
        [a.id, 1],
        [b.id, 1],
        [c.id, 1],
      ]);
      const applied = await applyCode(t, cart, 'tenoff').expect(201);
      const data = applied.body.data;
      expect(data.items.map((item: { discount_total: number }) => item.discount_total)).toEqual([3, 6, 1]);
      expect(data.items[0].adjustments).toEqual([
        { code: 'TENOFF', amount: 3, promotion_id: code.id, description: '10 off' },
      ]);
      expect(data).toMatchObject({ subtotal: 33.33, discount_total: 10, total: 23.33 });
      expect(data.discounts).toEqual([
        {
          promotion_id: code.id,
          code: 'TENOFF',
          description: '10 off',
          amount: 10,
          applies: true,
          refusal: null,
        },
      ]);
      expect(await heldCodes(cart)).toEqual([code.id]);
      // Applying it again changes nothing.
      await applyCode(t, cart, 'TenOff').expect(201);
      expect(await heldCodes(cart)).toEqual([code.id]);

      const placed = await checkout(t, cart).expect(201);
      expect(placed.body.data).toMatchObject({
        discount_total: 10,
        total: 23.33,
        discounts: [{ promotion_id: code.id, code: 'TENOFF', description: '10 off', amount: 10 }],
      });
      expect(placed.body.data.items.map((item: { discount_total: number }) => item.discount_total)).toEqual([
        3, 6, 1,
      ]);
      const orderId = placed.body.data.id;
      const adjustments = await query<{ amount_minor: number; promotion_id: number; code: string }>(
        'SELECT amount_minor, promotion_id, code FROM order_adjustments WHERE order_id = ? ORDER BY id',
        [orderId],
      );
      expect(
        adjustments.map((row) => [Number(row.amount_minor), Number(row.promotion_id), row.code]),
      ).toEqual([
        [300, code.id, 'TENOFF'],
        [600, code.id, 'TENOFF'],
        [100, code.id, 'TENOFF'],
      ]);
      expect(await usedCount(code.id)).toBe(1);
      const usages = await query(
        'SELECT order_id, user_id, email, released_at FROM promotion_usages WHERE promotion_id = ?',
        [code.id],
      );
      expect(usages.map((row) => ({ ...row, order_id: Number(row.order_id) }))).toEqual([
        { order_id: orderId, user_id: null, email: cart.email, released_at: null },
      ]);
      // The order's events (webhooks, e-mail) carry the discounts.
      const [event] = await query<{ data: string }>(
        "SELECT data FROM outbox_events WHERE type = 'order.created' AND data LIKE ?",
        [`%${placed.body.data.order_number}%`],
      );
      expect(JSON.parse(event.data).discounts).toEqual(placed.body.data.discounts);
      const detail = await asAdmin(api().get(`/api/v1/orders/${orderId}`)).expect(200);
      expect(detail.body.data.discounts).toEqual(placed.body.data.discounts);
      const listed = await asAdmin(
        api().get(`/api/v1/admin/orders?search=${placed.body.data.order_number}`),
      ).expect(200);
      expect(listed.body.data[0].discounts).toEqual(placed.body.data.discounts);
      expect(detail.body.data.items[1].adjustments).toEqual([
        { code: 'TENOFF', amount: 6, promotion_id: code.id, description: '10 off' },
      ]);
    });

    it('takes a code off the cart with DELETE (any case); a code not on it is 404', async () => {
      const p = await product(12);
      const code = await promotion({ code: 'OFFAGAIN', type: 'percentage', value: 50 });
      const cart = await guestCart(t, [[p.id, 1]]);
      await applyCode(t, cart, 'OFFAGAIN').expect(201);
      const removed = await asOwner(
        api().delete(`/api/v1/carts/${cart.id}/discount-codes/offagain`),
        cart,
      ).expect(200);
      expect(removed.body.data).toMatchObject({ discount_total: 0, total: 12, discounts: [] });
      expect(await heldCodes(cart)).toEqual([]);
      await asOwner(api().delete(`/api/v1/carts/${cart.id}/discount-codes/OFFAGAIN`), cart).expect(404);
      // Someone else's cart is not found.
      await api()
        .delete(`/api/v1/carts/${cart.id}/discount-codes/OFFAGAIN`)
        .set('X-Cart-Token', 'wrong')
        .expect(404);
      await api().post(`/api/v1/carts/${cart.id}/discount-codes`).send({ code: 'OFFAGAIN' }).expect(404);
      expect(await usedCount(code.id)).toBe(0);
    });

    it('a code moves with the lines when a guest cart is merged into the customer’s', async () => {
      const p = await product(10);
      const code = await promotion({ code: 'MERGEME', type: 'percentage', value: 10 });
      const customer = await createAccount(t);
      const mine = await guestCart(t, [[p.id, 1]], { bearer: customer.token });
      const guest = await guestCart(t, [[p.id, 1]]);
      await applyCode(t, guest, 'MERGEME').expect(201);
      const merged = await api()
        .post(`/api/v1/carts/${guest.id}/claim`)
        .set('X-Cart-Token', guest.token!)
        .auth(customer.token, { type: 'bearer' })
        .expect(200);
      expect(merged.body.data).toMatchObject({ id: mine.id, subtotal: 20, discount_total: 2 });
      expect(await heldCodes(mine)).toEqual([code.id]);
      expect(await heldCodes(guest)).toEqual([]);
    });

    it('a percentage on items of a category and its subcategories; other lines keep their price', async () => {
      const parent = (
        await asAdmin(api().post('/api/v1/categories')).send({ name: 'Promo parent' }).expect(201)
      ).body.data;
      const child = (
        await asAdmin(api().post('/api/v1/categories'))
          .send({ name: 'Promo child', parent_id: parent.id })
          .expect(201)
      ).body.data;
      const inChild = await product(8, { category_id: child.id });
      const other = await product(8);
      const code = await promotion({
        code: 'CAT25',
        type: 'percentage',
        value: 25,
        target: 'items',
        conditions: { category_ids: [parent.id] },
      });
      const cart = await guestCart(t, [
        [inChild.id, 2],
        [other.id, 1],
      ]);
      const data = (await applyCode(t, cart, 'cat25').expect(201)).body.data;
      expect(data.items.map((item: { discount_total: number }) => item.discount_total)).toEqual([4, 0]);
      expect(data.discounts).toEqual([
        expect.objectContaining({ promotion_id: code.id, amount: 4, applies: true }),
      ]);
      const unrelated = await guestCart(t, [[other.id, 1]]);
      await expectRefused(unrelated, 'CAT25', 'notApplicable');
    });

    it('fixed per unit on items; a fixed promotion in another currency does not apply', async () => {
      const p = await product(5);
      await promotion({ code: 'ONEEACH', type: 'fixed', value: 1, currency_code: 'usd', target: 'items' });
      await promotion({ code: 'ONEEURO', type: 'fixed', value: 1, currency_code: 'eur' });
      const cart = await guestCart(t, [[p.id, 3]]);
      const data = (await applyCode(t, cart, 'ONEEACH').expect(201)).body.data;
      expect(data).toMatchObject({ subtotal: 15, discount_total: 3, total: 12 });
      await expectRefused(cart, 'ONEEURO', 'notApplicable');
    });

    it('free shipping shows on the shipping part', async () => {
      const option = (
        await asAdmin(api().post('/api/v1/shipping-options'))
          .send({ name: 'An Post', price: 4.5, countries: ['IE'] })
          .expect(201)
      ).body.data;
      const p = await product(10);
      const code = await promotion({ code: 'SHIPFREE', type: 'free_shipping' });
      // Shipping to Ireland only: carts to the other countries of the default region need no option.
      const cart = await guestCart(t, [[p.id, 1]], {
        shippingOptionId: option.id,
        address: { name: 'Sean', line1: '1 Main St', city: 'Dublin', country: 'IE' },
      });
      const data = (await applyCode(t, cart, 'shipfree').expect(201)).body.data;
      expect(data).toMatchObject({ subtotal: 10, shipping_total: 4.5, discount_total: 4.5, total: 10 });
      expect(data.shipping_adjustments).toEqual([
        { code: 'SHIPFREE', amount: 4.5, promotion_id: code.id, description: '' },
      ]);
      expect(data.items[0].discount_total).toBe(0);
      const placed = await checkout(t, cart).expect(201);
      expect(placed.body.data).toMatchObject({
        total: 10,
        shipping_adjustments: [expect.objectContaining({ amount: 4.5 })],
      });
      const [row] = await query(
        'SELECT amount_minor, order_item_id FROM order_adjustments WHERE order_id = ?',
        [placed.body.data.id],
      );
      expect([Number(row.amount_minor), row.order_item_id]).toEqual([450, null]);
    });

    it('buy 2 get 1: the cheapest unit of each three is free; fewer units do not apply', async () => {
      const cheap = await product(6);
      const dear = await product(10);
      await promotion({
        code: 'B2G1',
        type: 'buy_x_get_y',
        buy_x_get_y: { buy_quantity: 2, get_quantity: 1 },
        conditions: { product_ids: [cheap.id, dear.id] },
      });
      const cart = await guestCart(t, [
        [dear.id, 2],
        [cheap.id, 1],
      ]);
      const data = (await applyCode(t, cart, 'B2G1').expect(201)).body.data;
      expect(data.items.map((item: { discount_total: number }) => item.discount_total)).toEqual([0, 6]);
      expect(data).toMatchObject({ subtotal: 26, discount_total: 6, total: 20 });
      const half = await promotion({
        code: 'B1G1HALF',
        type: 'buy_x_get_y',
        buy_x_get_y: { buy_quantity: 1, get_quantity: 1, get_percentage: 50 },
        conditions: { product_ids: [dear.id] },
      });
      const two = await guestCart(t, [[dear.id, 2]]);
      const halfData = (await applyCode(t, two, 'b1g1half').expect(201)).body.data;
      expect(halfData.discounts).toEqual([expect.objectContaining({ promotion_id: half.id, amount: 5 })]);
      const few = await guestCart(t, [[dear.id, 2]]);
      await expectRefused(few, 'B2G1', 'notApplicable');
    });

    it('an automatic promotion applies by itself, only where its conditions hold', async () => {
      const p = await product(20);
      const other = await product(20);
      const automatic = await promotion({
        description: 'Launch week',
        type: 'percentage',
        value: 10,
        target: 'items',
        conditions: { product_ids: [p.id] },
      });
      expect(automatic.code).toBeNull();
      const cart = await guestCart(t, [
        [p.id, 1],
        [other.id, 1],
      ]);
      const data = await readCart(t, cart);
      expect(data.discounts).toEqual([
        {
          promotion_id: automatic.id,
          code: null,
          description: 'Launch week',
          amount: 2,
          applies: true,
          refusal: null,
        },
      ]);
      expect(data.items[0].adjustments).toEqual([
        { code: '', amount: 2, promotion_id: automatic.id, description: 'Launch week' },
      ]);
      expect((await readCart(t, await guestCart(t, [[other.id, 1]]))).discounts).toEqual([]);
      const placed = await checkout(t, cart).expect(201);
      expect(placed.body.data.discounts).toEqual([
        { promotion_id: automatic.id, code: null, description: 'Launch week', amount: 2 },
      ]);
      expect(await usedCount(automatic.id)).toBe(1);
    });
  });

  describe('refusals', () => {
    let p: { id: number };
    beforeAll(async () => {
      p = await product(30);
    });

    it('unknown, inactive, notStarted, expired, minSubtotal, notApplicable (group, first order)', async () => {
      const cart = await guestCart(t, [[p.id, 1]]);
      await promotion({ code: 'SLEEPING', type: 'percentage', value: 5, is_active: false });
      await promotion({ code: 'LATER', type: 'percentage', value: 5, starts_at: future(1) });
      await promotion({ code: 'GONE', type: 'percentage', value: 5, starts_at: past(48), ends_at: past(24) });
      await promotion({ code: 'BIGSPEND', type: 'percentage', value: 5, conditions: { min_subtotal: 1000 } });
      await t.dataSource.query("INSERT INTO customer_groups (name) VALUES ('Wholesale')");
      const [group] = await query<{ id: number }>("SELECT id FROM customer_groups WHERE name = 'Wholesale'");
      await promotion({
        code: 'TRADE',
        type: 'percentage',
        value: 5,
        conditions: { customer_group_ids: [Number(group.id)] },
      });
      await expectRefused(cart, 'NOSUCHCODE', 'unknown');
      await expectRefused(cart, 'sleeping', 'inactive');
      await expectRefused(cart, 'LATER', 'notStarted');
      await expectRefused(cart, 'GONE', 'expired');
      await expectRefused(cart, 'BIGSPEND', 'minSubtotal');
      await expectRefused(cart, 'TRADE', 'notApplicable');

      // A customer of the group gets it.
      const member = await createAccount(t);
      await t.dataSource.query(
        'INSERT INTO customer_group_members (customer_group_id, user_id) VALUES (?, ?)',
        [Number(group.id), member.id],
      );
      const memberCart = await guestCart(t, [[p.id, 1]], { bearer: member.token });
      expect((await applyCode(t, memberCart, 'TRADE').expect(201)).body.data.discount_total).toBe(1.5);
    });

    it('first_order_only counts the e-mail’s and the account’s earlier orders (cancelled ones do not count)', async () => {
      await promotion({
        code: 'WELCOME',
        type: 'percentage',
        value: 10,
        conditions: { first_order_only: true },
      });
      const first = await guestCart(t, [[p.id, 1]], { email: 'First-Timer@example.com' });
      await applyCode(t, first, 'WELCOME').expect(201);
      const firstOrder = (await checkout(t, first).expect(201)).body.data;
      const again = await guestCart(t, [[p.id, 1]], { email: 'first-timer@example.com' });
      await expectRefused(again, 'WELCOME', 'notApplicable');
      // The order keeps the e-mail as typed and, indexed, in lower case: earlier orders are found without a scan.
      expect(await query('SELECT email, email_key FROM orders WHERE id = ?', [firstOrder.id])).toEqual([
        { email: 'First-Timer@example.com', email_key: 'first-timer@example.com' },
      ]);
      if (t.dataSource.options.type === 'better-sqlite3') {
        const plan = await query<{ detail: string }>(
          "EXPLAIN QUERY PLAN SELECT COUNT(*) AS placed FROM orders WHERE status <> 'cancelled' AND id <> ? " +
            'AND (user_id = ? OR email_key = ?)',
          [0, 1, 'first-timer@example.com'],
        );
        expect(plan.map((step) => step.detail).join('\n')).toContain('IDX_orders_email_key');
      }

      const customer = await createAccount(t);
      const cart = await guestCart(t, [[p.id, 1]], { bearer: customer.token });
      await applyCode(t, cart, 'WELCOME').expect(201);
      const placed = await checkout(t, cart).expect(201);
      const next = await guestCart(t, [[p.id, 1]], { bearer: customer.token });
      await expectRefused(next, 'WELCOME', 'notApplicable');
      await api()
        .post(`/api/v1/orders/${placed.body.data.id}/cancel`)
        .auth(customer.token, { type: 'bearer' })
        .expect(200);
      await applyCode(t, next, 'WELCOME').expect(201);
    });

    it('usageLimit and usageLimitPerCustomer (a guest’s uses count for the account with that e-mail)', async () => {
      const once = await promotion({ code: 'ONCE', type: 'percentage', value: 5, usage_limit: 1 });
      const first = await guestCart(t, [[p.id, 1]]);
      await applyCode(t, first, 'ONCE').expect(201);
      await checkout(t, first).expect(201);
      expect(await usedCount(once.id)).toBe(1);
      await expectRefused(await guestCart(t, [[p.id, 1]]), 'ONCE', 'usageLimit');

      const customer = await createAccount(t);
      const email = `${customer.username}@example.com`;
      await promotion({ code: 'PERPERSON', type: 'percentage', value: 5, usage_limit_per_customer: 1 });
      const guest = await guestCart(t, [[p.id, 1]], { email: email.toUpperCase() });
      await applyCode(t, guest, 'PERPERSON').expect(201);
      await checkout(t, guest).expect(201);
      await expectRefused(await guestCart(t, [[p.id, 1]], { email }), 'PERPERSON', 'usageLimitPerCustomer');
      await expectRefused(
        await guestCart(t, [[p.id, 1]], { bearer: customer.token }),
        'PERPERSON',
        'usageLimitPerCustomer',
      );
      await applyCode(t, await guestCart(t, [[p.id, 1]]), 'PERPERSON').expect(201);
    });

    it('a code that stops applying stays listed (applies false, no amount) and refuses the checkout, nothing placed', async () => {
      const target = await product(15);
      const code = await promotion({
        code: 'JUSTTHAT',
        type: 'percentage',
        value: 20,
        conditions: { product_ids: [target.id] },
      });
      const cart = await guestCart(t, [
        [target.id, 1],
        [p.id, 1],
      ]);
      const applied = (await applyCode(t, cart, 'JUSTTHAT').expect(201)).body.data;
      expect(applied.discount_total).toBe(3);
      await asOwner(api().delete(`/api/v1/carts/${cart.id}/items/${applied.items[0].id}`), cart).expect(200);
      const after = await readCart(t, cart);
      expect(after.discounts).toEqual([
        {
          promotion_id: code.id,
          code: 'JUSTTHAT',
          description: '',
          amount: 0,
          applies: false,
          refusal: 'notApplicable',
        },
      ]);
      expect(after.discount_total).toBe(0);
      const refused = await checkout(t, cart).expect(400);
      expect(refused.body.data.errors).toEqual([
        expect.objectContaining({ field: 'code', rule: 'notApplicable' }),
      ]);
      expect(await ordersOfCart(cart)).toBe(0);
      expect(await cartStatus(cart)).toBe('open');
      await asOwner(api().delete(`/api/v1/carts/${cart.id}/discount-codes/JUSTTHAT`), cart).expect(200);
      await checkout(t, cart).expect(201);
    });

    it('a code checked again at checkout: expired or deactivated since it was applied refuses, nothing placed', async () => {
      const code = await promotion({ code: 'SHORTLIVED', type: 'percentage', value: 10 });
      const cart = await guestCart(t, [[p.id, 1]]);
      await applyCode(t, cart, 'SHORTLIVED').expect(201);
      await asAdmin(api().put(`/api/v1/promotions/${code.id}`))
        .send({ ends_at: past(1), starts_at: past(2) })
        .expect(200);
      const refused = await checkout(t, cart).expect(400);
      expect(refused.body.data.errors).toEqual([expect.objectContaining({ field: 'code', rule: 'expired' })]);
      await asAdmin(api().put(`/api/v1/promotions/${code.id}`))
        .send({ ends_at: null, is_active: false })
        .expect(200);
      const inactive = await checkout(t, cart).expect(400);
      expect(inactive.body.data.errors).toEqual([
        expect.objectContaining({ field: 'code', rule: 'inactive' }),
      ]);
      expect(await ordersOfCart(cart)).toBe(0);
      expect(await cartStatus(cart)).toBe('open');
      expect(await usedCount(code.id)).toBe(0);
      expect(await query('SELECT id FROM promotion_usages WHERE promotion_id = ?', [code.id])).toEqual([]);
    });
  });

  describe('stacking and the best deal', () => {
    it('combinable ones apply together in stage order; a single non-combinable one only when it gives more', async () => {
      const p = await product(50);
      const items = await promotion({ code: 'ITEMS10', type: 'percentage', value: 10, target: 'items' });
      const order = await promotion({ code: 'FIVEOFF', type: 'fixed', value: 5, currency_code: 'usd' });
      await promotion({ code: 'SOLO12', type: 'percentage', value: 12, combinable: false });
      const solo = await promotion({ code: 'SOLO20', type: 'percentage', value: 20, combinable: false });
      const cart = await guestCart(t, [[p.id, 2]]);
      // Applied order does not matter: items first (10 % of 100.00), then the order (5.00 off the 90.00 left).
      await applyCode(t, cart, 'FIVEOFF').expect(201);
      const both = (await applyCode(t, cart, 'ITEMS10').expect(201)).body.data;
      expect(both).toMatchObject({ subtotal: 100, discount_total: 15, total: 85 });
      // Listed by promotion id.
      expect(both.discounts).toEqual([
        expect.objectContaining({ promotion_id: items.id, amount: 10, applies: true }),
        expect.objectContaining({ promotion_id: order.id, amount: 5, applies: true }),
      ]);
      // 12.00 < 15.00: refused.
      await expectRefused(cart, 'SOLO12', 'notCombinable');
      // 20.00 > 15.00: it applies alone, the others stay listed without an amount.
      const best = (await applyCode(t, cart, 'SOLO20').expect(201)).body.data;
      expect(best).toMatchObject({ discount_total: 20, total: 80 });
      expect(best.discounts).toEqual([
        expect.objectContaining({
          promotion_id: items.id,
          amount: 0,
          applies: false,
          refusal: 'notCombinable',
        }),
        expect.objectContaining({
          promotion_id: order.id,
          amount: 0,
          applies: false,
          refusal: 'notCombinable',
        }),
        expect.objectContaining({ promotion_id: solo.id, amount: 20, applies: true, refusal: null }),
      ]);
      // The codes that lost the comparison do not hold up the checkout: the order gets the deal the cart showed,
      // and only the promotion that gave something takes a use.
      const placed = (await checkout(t, cart).expect(201)).body.data;
      expect(placed).toMatchObject({ discount_total: 20, total: 80 });
      expect(placed.discounts).toEqual([expect.objectContaining({ promotion_id: solo.id, amount: 20 })]);
      expect([await usedCount(items.id), await usedCount(order.id), await usedCount(solo.id)]).toEqual([
        0, 0, 1,
      ]);
    });
  });

  describe('taxes after discounts', () => {
    it('tax-inclusive (DE 19 %) and tax-exclusive (US 10 %) regions tax the discounted amounts', async () => {
      const eu = (
        await asAdmin(api().post('/api/v1/regions'))
          .send({ name: 'Promo EU', currency_code: 'eur', countries: ['DE'], prices_include_tax: true })
          .expect(201)
      ).body.data;
      await asAdmin(api().post('/api/v1/tax-rates'))
        .send({ country: 'DE', rate: 19, name: 'MwSt. 19 %', code: 'DE-VAT' })
        .expect(201);
      const us = (
        await asAdmin(api().post('/api/v1/regions'))
          .send({ name: 'Promo US', currency_code: 'usd', countries: ['US'] })
          .expect(201)
      ).body.data;
      await asAdmin(api().post('/api/v1/tax-rates'))
        .send({ country: 'US', rate: 10, name: 'Sales tax', code: 'US-TAX' })
        .expect(201);
      const p = await product(20, { prices: [{ currency_code: 'eur', amount: 11.9 }] });
      await promotion({ code: 'TAXED10', type: 'percentage', value: 10, target: 'items' });

      const german = await guestCart(t, [[p.id, 1]], {
        regionId: eu.id,
        address: { name: 'Erika', line1: 'Hauptstr. 1', city: 'Berlin', postal_code: '10115', country: 'DE' },
      });
      const inclusive = (await applyCode(t, german, 'TAXED10').expect(201)).body.data;
      // 11.90 - 1.19 = 10.71, of which 19/119 is tax: 1.71.
      expect(inclusive).toMatchObject({
        subtotal: 11.9,
        discount_total: 1.19,
        tax_total: 1.71,
        total: 10.71,
      });
      const placedDe = (await checkout(t, german).expect(201)).body.data;
      expect(placedDe).toMatchObject({ discount_total: 1.19, tax_total: 1.71, total: 10.71 });
      expect(placedDe.items[0]).toMatchObject({ discount_total: 1.19, tax_total: 1.71, total: 10.71 });

      const american = await guestCart(t, [[p.id, 1]], {
        regionId: us.id,
        address: { name: 'Jane', line1: '1 Market St', city: 'Boston', postal_code: '02110', country: 'US' },
      });
      const exclusive = (await applyCode(t, american, 'TAXED10').expect(201)).body.data;
      // 20.00 - 2.00 = 18.00, tax 10 % of that: 1.80.
      expect(exclusive).toMatchObject({ subtotal: 20, discount_total: 2, tax_total: 1.8, total: 19.8 });
      expect((await checkout(t, american).expect(201)).body.data).toMatchObject({
        tax_total: 1.8,
        total: 19.8,
      });
    });
  });

  describe('usage given back', () => {
    it('cancelling gives the use back once; the e-mail and the metrics show uses and refusals', async () => {
      const p = await product(9);
      const code = await promotion({ code: 'GIVEBACK', type: 'percentage', value: 10, usage_limit: 1 });
      const customer = await createAccount(t);
      const cart = await guestCart(t, [[p.id, 1]], { bearer: customer.token });
      await applyCode(t, cart, 'GIVEBACK').expect(201);
      const placed = (await checkout(t, cart).expect(201)).body.data;
      expect(await usedCount(code.id)).toBe(1);
      const cancel = () =>
        api().post(`/api/v1/orders/${placed.id}/cancel`).auth(customer.token, { type: 'bearer' });
      await cancel().expect(200);
      await cancel().expect(400);
      expect(await usedCount(code.id)).toBe(0);
      const [usage] = await query('SELECT released_at FROM promotion_usages WHERE order_id = ?', [placed.id]);
      expect(usage.released_at).not.toBeNull();
      // The use given back is there for someone else.
      const next = await guestCart(t, [[p.id, 1]]);
      await applyCode(t, next, 'GIVEBACK').expect(201);

      const metrics = await scrape(t.url);
      expect(metrics.value('commerce_promotion_refusals_total', { rule: 'unknown' })).toBeGreaterThanOrEqual(
        1,
      );
      expect(
        metrics.value('commerce_promotion_refusals_total', { rule: 'notCombinable' }),
      ).toBeGreaterThanOrEqual(1);
      expect(metrics.value('commerce_promotion_uses_total', { type: 'percentage' })).toBeGreaterThanOrEqual(
        5,
      );
    });

    // Last: it expires every pending order of this file.
    it('expiry gives the uses back exactly once, also when instances expire at the same moment', async () => {
      const p = await product(9);
      const code = await promotion({ code: 'EXPIRING', type: 'percentage', value: 10 });
      for (let i = 0; i < 3; i++) {
        const cart = await guestCart(t, [[p.id, 1]]);
        await applyCode(t, cart, 'EXPIRING').expect(201);
        await checkout(t, cart).expect(201);
      }
      expect(await usedCount(code.id)).toBe(3);
      // The checkouts' events dispatched first: the outbox's own locks are not what this test is about.
      await eventually(async () => {
        const [{ n }] = await query<{ n: number | string }>(
          'SELECT COUNT(*) AS n FROM outbox_events WHERE dispatched_at IS NULL',
        );
        return Number(n) === 0;
      });
      const orders = t.app.get(OrdersService);
      const later = new Date(Date.now() + 2 * HOUR);
      await Promise.all([1, 2, 3].map(() => orders.expirePending(later)));
      expect(await usedCount(code.id)).toBe(0);
      const usages = await query<{ released_at: unknown }>(
        'SELECT released_at FROM promotion_usages WHERE promotion_id = ?',
        [code.id],
      );
      expect(usages).toHaveLength(3);
      expect(usages.every((usage) => usage.released_at !== null)).toBe(true);
      await orders.expirePending(later);
      expect(await usedCount(code.id)).toBe(0);
    });
  });
});
