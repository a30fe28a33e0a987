import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { concurrentClient } from './support/http.js';
import { createProduct } from './support/products.js';
import { startTestApp, TestApp } from './support/test-app.js';

const ADDRESS = {
  name: 'Jane Doe',
  line1: '1 Main St',
  line2: 'Flat 2',
  city: 'Springfield',
  region: 'IL',
  postal_code: '62701',
  country: 'US',
  phone: '+1 555 0100',
};

interface CartHandle {
  id: string;
  /** The cart token (anonymous) or the bearer token (customer). */
  auth: (req: request.Test) => request.Test;
  token?: string;
}

describe('carts and checkout', () => {
  let t: TestApp;
  let admin: Account;
  let alice: Account;
  let bob: Account;

  const api = () => request(t.url);
  const stockOf = async (id: number) =>
    Number((await t.dataSource.query('SELECT stock FROM products WHERE id = ?', [id]))[0].stock);
  const cartRow = async (id: string) =>
    (await t.dataSource.query('SELECT user_id, token_hash, status FROM carts WHERE id = ?', [id]))[0] as
      { user_id: number | null; token_hash: string | null; status: string } | undefined;

  async function anonymousCart(): Promise<CartHandle> {
    const res = await api().post('/api/v1/carts').expect(201);
    const token = res.body.data.cart_token as string;
    return { id: res.body.data.id, token, auth: (req) => req.set('X-Cart-Token', token) };
  }
  async function customerCart(account: Account): Promise<CartHandle> {
    const res = await api().post('/api/v1/carts').auth(account.token, { type: 'bearer' }).expect(201);
    return { id: res.body.data.id, auth: (req) => req.auth(account.token, { type: 'bearer' }) };
  }
  const add = (cart: CartHandle, productId: number, quantity: number) =>
    cart.auth(api().post(`/api/v1/carts/${cart.id}/items`)).send({ product_id: productId, quantity });
  const setAddress = (cart: CartHandle, body: object = { shipping_address: ADDRESS }) =>
    cart.auth(api().put(`/api/v1/carts/${cart.id}`)).send(body);
  const checkout = (cart: CartHandle, body: object = { payment_method: 'credit_card' }) =>
    cart.auth(api().post(`/api/v1/carts/${cart.id}/checkout`)).send(body);

  beforeAll(async () => {
    t = await startTestApp({
      ...ADMIN_ENV,
      DATABASE_ACQUIRE_TIMEOUT_MS: '60000',
      DATABASE_QUERY_TIMEOUT_MS: '60000',
      THROTTLE_LIMIT: '100000',
      THROTTLE_CART_LIMIT: '100000',
    });
    admin = await loginAdmin(t);
    alice = await createAccount(t);
    bob = await createAccount(t);
  });

  afterAll(async () => {
    await t.close();
  });

  describe('creating and reading', () => {
    it('an anonymous cart: 201 with a UUID, its token once, empty totals; the token is stored hashed only', async () => {
      const res = await api().post('/api/v1/carts').expect(201);
      const cart = res.body.data;
      expect(cart).toMatchObject({
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        status: 'open',
        items: [],
        subtotal: 0,
        shipping_total: 0,
        total: 0,
        shipping_option: null,
        shipping_address: null,
        email: null,
        cart_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      const row = await cartRow(cart.id);
      expect(row).toEqual({
        user_id: null,
        token_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        status: 'open',
      });
      expect(row!.token_hash).not.toContain(cart.cart_token);
      const read = await api()
        .get(`/api/v1/carts/${cart.id}`)
        .set('X-Cart-Token', cart.cart_token)
        .expect(200);
      expect(read.body.data).not.toHaveProperty('cart_token');
      expect(read.body.data.id).toBe(cart.id);
    });

    it('a customer cart is bound to the user, has no token, and is their /me/cart', async () => {
      await api().get('/api/v1/me/cart').auth(bob.token, { type: 'bearer' }).expect(404);
      const res = await api().post('/api/v1/carts').auth(bob.token, { type: 'bearer' }).expect(201);
      expect(res.body.data).not.toHaveProperty('cart_token');
      expect(await cartRow(res.body.data.id)).toEqual({ user_id: bob.id, token_hash: null, status: 'open' });
      const mine = await api().get('/api/v1/me/cart').auth(bob.token, { type: 'bearer' }).expect(200);
      expect(mine.body.data.id).toBe(res.body.data.id);
      await api().get('/api/v1/me/cart').expect(401);
    });

    it('token rules: no token, a wrong token, another cart’s token, another user’s cart, a bad id: all 404', async () => {
      const cart = await anonymousCart();
      const other = await anonymousCart();
      const owned = await customerCart(alice);
      const notFound = `Cart ${cart.id} not found`;
      const res = await api().get(`/api/v1/carts/${cart.id}`).expect(404);
      expect(res.body.data.details).toBe(notFound);
      await api().get(`/api/v1/carts/${cart.id}`).set('X-Cart-Token', 'wrong').expect(404);
      await api().get(`/api/v1/carts/${cart.id}`).set('X-Cart-Token', other.token!).expect(404);
      // A bearer token does not open an anonymous cart, nor another user's.
      await api().get(`/api/v1/carts/${cart.id}`).auth(alice.token, { type: 'bearer' }).expect(404);
      await api().get(`/api/v1/carts/${owned.id}`).auth(bob.token, { type: 'bearer' }).expect(404);
      await api().get(`/api/v1/carts/${owned.id}`).expect(404);
      await api().get('/api/v1/carts/not-a-uuid').set('X-Cart-Token', cart.token!).expect(404);
      // Writes too, and nothing is written.
      const product = await createProduct(t, admin.token, { stock: 5 });
      await api()
        .post(`/api/v1/carts/${owned.id}/items`)
        .auth(bob.token, { type: 'bearer' })
        .send({ product_id: product.id, quantity: 1 })
        .expect(404);
      await api()
        .post(`/api/v1/carts/${cart.id}/items`)
        .set('X-Cart-Token', 'wrong')
        .send({ product_id: product.id, quantity: 1 })
        .expect(404);
      const lines = await t.dataSource.query('SELECT COUNT(*) AS n FROM cart_items WHERE cart_id IN (?, ?)', [
        owned.id,
        cart.id,
      ]);
      expect(Number(lines[0].n)).toBe(0);
    });

    it('unknown fields: POST /carts with a body is 400 whitelistValidation per field and writes no cart', async () => {
      const cartCount = async () =>
        Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM carts'))[0].n);
      const before = await cartCount();
      const tampered = {
        user_id: alice.id,
        status: 'completed',
        cart_token: 'chosen',
        email: 'x@example.com',
      };
      const unknown = Object.keys(tampered).map((field) => ({
        field,
        rule: 'whitelistValidation',
        message: `property ${field} should not exist`,
      }));
      const anonymous = await api().post('/api/v1/carts').send(tampered).expect(400);
      expect(anonymous.body).toEqual({
        code: 400,
        message: 'Bad Request',
        data: { details: unknown.map((error) => error.message).join('; '), errors: unknown },
      });
      const customer = await api()
        .post('/api/v1/carts')
        .auth(bob.token, { type: 'bearer' })
        .send({ items: [{ product_id: 1, quantity: 1 }] })
        .expect(400);
      expect(customer.body.data.errors).toEqual([
        { field: 'items', rule: 'whitelistValidation', message: 'property items should not exist' },
      ]);
      const form = await api().post('/api/v1/carts').type('form').send('user_id=1').expect(400);
      expect(form.body.data.errors).toEqual([
        { field: 'user_id', rule: 'whitelistValidation', message: 'property user_id should not exist' },
      ]);
      expect(await cartCount()).toBe(before);
      // No body, an empty JSON object or an empty form still start a cart, as before.
      await api().post('/api/v1/carts').expect(201);
      await api().post('/api/v1/carts').send({}).expect(201);
      await api().post('/api/v1/carts').type('form').send('').expect(201);
      expect(await cartCount()).toBe(before + 3);
    });

    it('unknown fields: removing a line or claiming a cart with a body is 400 and changes nothing', async () => {
      const product = await createProduct(t, admin.token, { stock: 5 });
      const cart = await anonymousCart();
      const line = (await add(cart, product.id, 2).expect(201)).body.data.items[0].id as number;
      const removal = await cart
        .auth(api().delete(`/api/v1/carts/${cart.id}/items/${line}`))
        .send({ quantity: 1 })
        .expect(400);
      expect(removal.body.data.errors).toEqual([
        { field: 'quantity', rule: 'whitelistValidation', message: 'property quantity should not exist' },
      ]);
      const claim = await cart
        .auth(api().post(`/api/v1/carts/${cart.id}/claim`))
        .auth(alice.token, { type: 'bearer' })
        .send({ merge: false })
        .expect(400);
      expect(claim.body.data.errors).toEqual([
        { field: 'merge', rule: 'whitelistValidation', message: 'property merge should not exist' },
      ]);
      expect(await cartRow(cart.id)).toEqual({
        user_id: null,
        token_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        status: 'open',
      });
      expect(
        await t.dataSource.query('SELECT id, quantity FROM cart_items WHERE cart_id = ?', [cart.id]),
      ).toEqual([{ id: line, quantity: 2 }]);
    });
  });

  describe('lines', () => {
    it('adding the same product merges the line; update and remove; live totals to the cent', async () => {
      const cart = await anonymousCart();
      const cup = await createProduct(t, admin.token, { price: 19.99, stock: 10 });
      const mug = await createProduct(t, admin.token, { price: 0.1, stock: 10 });
      await add(cart, cup.id, 1).expect(201);
      const merged = await add(cart, cup.id, 2).expect(201);
      expect(merged.body.data.items).toEqual([
        expect.objectContaining({
          id: expect.any(Number),
          product_id: cup.id,
          product_name: cup.name,
          variant_id: null,
          sku: null,
          variant_title: null,
          quantity: 3,
          price: 19.99,
          added_price: 19.99,
          line_total: 59.97,
          available: 10,
          problems: [],
        }),
      ]);
      const two = await add(cart, mug.id, 3).expect(201);
      expect(two.body.data.items).toHaveLength(2);
      expect(two.body.data.subtotal).toBe(60.27);
      expect(two.body.data.total).toBe(60.27);
      const cupLine = two.body.data.items[0].id as number;
      const mugLine = two.body.data.items[1].id as number;

      const updated = await cart
        .auth(api().put(`/api/v1/carts/${cart.id}/items/${cupLine}`))
        .send({ quantity: 1 })
        .expect(200);
      expect(updated.body.data.items[0].quantity).toBe(1);
      expect(updated.body.data.subtotal).toBe(20.29);

      const removed = await cart.auth(api().delete(`/api/v1/carts/${cart.id}/items/${mugLine}`)).expect(200);
      expect(removed.body.data.items.map((i: { id: number }) => i.id)).toEqual([cupLine]);
      await cart.auth(api().delete(`/api/v1/carts/${cart.id}/items/${mugLine}`)).expect(404);
      const rows = await t.dataSource.query('SELECT product_id, quantity FROM cart_items WHERE cart_id = ?', [
        cart.id,
      ]);
      expect(
        rows.map((r: { product_id: number; quantity: number }) => [Number(r.product_id), Number(r.quantity)]),
      ).toEqual([[cup.id, 1]]);
      // A cart holds no stock.
      expect(await stockOf(cup.id)).toBe(10);
    });

    it('refusals: over the stock, over 1000, an inactive or missing product, a bad quantity: 400 naming the field', async () => {
      const cart = await anonymousCart();
      const few = await createProduct(t, admin.token, { stock: 2 });
      const res = await add(cart, few.id, 3).expect(400);
      expect(res.body.data.errors).toEqual([
        { field: 'quantity', rule: 'stock', message: 'only 2 in stock; the line would hold 3' },
      ]);
      await add(cart, few.id, 2).expect(201);
      const again = await add(cart, few.id, 1).expect(400);
      expect(again.body.data.errors[0].rule).toBe('stock');
      const missing = await add(cart, 999_999, 1).expect(400);
      expect(missing.body.data.errors[0]).toMatchObject({ field: 'product_id', rule: 'forSale' });
      const zero = await add(cart, few.id, 0).expect(400);
      expect(zero.body.data.errors[0]).toMatchObject({ field: 'quantity', rule: 'min' });
      const many = await add(cart, few.id, 1001).expect(400);
      expect(many.body.data.errors[0]).toMatchObject({ field: 'quantity', rule: 'max' });
      const read = await cart.auth(api().get(`/api/v1/carts/${cart.id}`)).expect(200);
      expect(read.body.data.items.map((i: { quantity: number }) => i.quantity)).toEqual([2]);
    });

    it('live prices after an admin price change, and the problems listed (price, stock, product gone)', async () => {
      const cart = await anonymousCart();
      const priced = await createProduct(t, admin.token, { price: 10, stock: 10 });
      const scarce = await createProduct(t, admin.token, { price: 5, stock: 4 });
      const gone = await createProduct(t, admin.token, { price: 7, stock: 4 });
      await add(cart, priced.id, 2).expect(201);
      await add(cart, scarce.id, 3).expect(201);
      await add(cart, gone.id, 1).expect(201);
      const patch = (id: number, body: object) =>
        api().put(`/api/v1/products/${id}`).auth(admin.token, { type: 'bearer' }).send(body).expect(200);
      await patch(priced.id, { price: 12.5 });
      await patch(scarce.id, { stock: 1 });
      await api().delete(`/api/v1/products/${gone.id}`).auth(admin.token, { type: 'bearer' }).expect(200);

      const res = await cart.auth(api().get(`/api/v1/carts/${cart.id}`)).expect(200);
      const [a, b, c] = res.body.data.items;
      expect(a).toMatchObject({
        price: 12.5,
        added_price: 10,
        line_total: 25,
        problems: [{ code: 'price_changed', message: 'The price changed from 10 to 12.5' }],
      });
      expect(b).toMatchObject({
        available: 1,
        line_total: 15,
        problems: [{ code: 'insufficient_stock', message: 'Only 1 left; the line asks for 3' }],
      });
      expect(c).toMatchObject({
        price: null,
        available: 0,
        line_total: 0,
        problems: [{ code: 'unavailable', message: 'The product is no longer for sale' }],
      });
      expect(res.body.data.subtotal).toBe(40);

      // Checkout refuses naming every line that cannot be ordered; nothing is taken, the cart stays open.
      await setAddress(cart).expect(200);
      const refused = await checkout(cart, { payment_method: 'credit_card', email: 'g@example.com' }).expect(
        400,
      );
      expect(refused.body.data.errors).toEqual([
        {
          field: `items.${b.id}`,
          rule: 'stock',
          message: `product ${scarce.id}: only 1 in stock, the line asks for 3`,
        },
        { field: `items.${c.id}`, rule: 'forSale', message: `product ${gone.id} is not for sale` },
      ]);
      expect((await cartRow(cart.id))!.status).toBe('open');
      expect(await stockOf(priced.id)).toBe(10);
    });
  });

  describe('variants', () => {
    it('variant lines: by variant_id, merged per variant, live variant price and stock, ordered by variant', async () => {
      const shirt = await createProduct(t, admin.token, { price: 10, stock: 0 });
      await api()
        .put(`/api/v1/products/${shirt.id}`)
        .auth(admin.token, { type: 'bearer' })
        .send({ options: [{ name: 'Size', values: ['S', 'M'] }] })
        .expect(200);
      const variant = async (size: string, price: number, stock: number) =>
        (
          await api()
            .post(`/api/v1/products/${shirt.id}/variants`)
            .auth(admin.token, { type: 'bearer' })
            .send({ sku: `CART-${size}-${Date.now() % 100000}`, options: { Size: size }, price, stock })
            .expect(201)
        ).body.data as { id: number; sku: string; title: string };
      const small = await variant('S', 12.34, 5);
      const medium = await variant('M', 15, 1);
      const cart = await anonymousCart();

      // A product sold in variants is added by one of them.
      const byProduct = await add(cart, shirt.id, 1).expect(400);
      expect(byProduct.body.data.errors[0]).toMatchObject({ field: 'product_id', rule: 'forSale' });
      const addVariant = (variantId: number, quantity: number, extra: object = {}) =>
        cart
          .auth(api().post(`/api/v1/carts/${cart.id}/items`))
          .send({ variant_id: variantId, quantity, ...extra });
      const mismatch = await addVariant(small.id, 1, { product_id: shirt.id + 100000 }).expect(400);
      expect(mismatch.body.data.errors[0]).toMatchObject({ field: 'product_id', rule: 'matchesVariant' });
      await addVariant(small.id, 1).expect(201);
      await addVariant(small.id, 2, { product_id: shirt.id }).expect(201);
      const tooMany = await addVariant(medium.id, 2).expect(400);
      expect(tooMany.body.data.errors[0]).toMatchObject({ field: 'quantity', rule: 'stock' });
      const res = await addVariant(medium.id, 1).expect(201);
      expect(
        res.body.data.items.map((i: Record<string, unknown>) => [
          i.product_id,
          i.variant_id,
          i.sku,
          i.quantity,
          i.price,
        ]),
      ).toEqual([
        [shirt.id, small.id, small.sku, 3, 12.34],
        [shirt.id, medium.id, medium.sku, 1, 15],
      ]);
      expect(res.body.data.subtotal).toBe(52.02);

      await setAddress(cart, { shipping_address: ADDRESS, email: 'v@example.com' }).expect(200);
      const placed = await checkout(cart).expect(201);
      expect(placed.body.data.total_amount).toBe(52.02);
      expect(
        placed.body.data.items.map((i: Record<string, unknown>) => [
          i.variant_id,
          i.sku,
          i.quantity,
          i.price,
        ]),
      ).toEqual([
        [small.id, small.sku, 3, 12.34],
        [medium.id, medium.sku, 1, 15],
      ]);
      const stocks = await t.dataSource.query(
        'SELECT id, stock FROM product_variants WHERE product_id = ? ORDER BY id',
        [shirt.id],
      );
      expect(stocks.map((r: { stock: number }) => Number(r.stock))).toEqual([2, 0]);
      // A guest's checkout: its order.created names a guest as the actor.
      const [created] = await t.dataSource.query(
        "SELECT data FROM outbox_events WHERE order_id = ? AND type = 'order.created'",
        [placed.body.data.id],
      );
      expect(JSON.parse(created.data).actor).toEqual({ type: 'guest', id: null });
    });
  });

  describe('claiming', () => {
    it('a customer without an open cart claims a guest cart: it becomes theirs and the token stops working', async () => {
      const carol = await createAccount(t);
      const cart = await anonymousCart();
      const product = await createProduct(t, admin.token, { stock: 5 });
      await add(cart, product.id, 2).expect(201);
      await api().post(`/api/v1/carts/${cart.id}/claim`).auth(carol.token, { type: 'bearer' }).expect(404);
      await api().post(`/api/v1/carts/${cart.id}/claim`).set('X-Cart-Token', cart.token!).expect(401);
      const res = await api()
        .post(`/api/v1/carts/${cart.id}/claim`)
        .auth(carol.token, { type: 'bearer' })
        .set('X-Cart-Token', cart.token!)
        .expect(200);
      expect(res.body.data.id).toBe(cart.id);
      expect(res.body.data.items[0]).toMatchObject({ product_id: product.id, quantity: 2 });
      expect(await cartRow(cart.id)).toEqual({ user_id: carol.id, token_hash: null, status: 'open' });
      await api().get(`/api/v1/carts/${cart.id}`).set('X-Cart-Token', cart.token!).expect(404);
      const mine = await api().get('/api/v1/me/cart').auth(carol.token, { type: 'bearer' }).expect(200);
      expect(mine.body.data.id).toBe(cart.id);
    });

    it('with an open cart of their own, the guest lines merge into it and the guest cart is deleted', async () => {
      const dave = await createAccount(t);
      const own = await customerCart(dave);
      const shared = await createProduct(t, admin.token, { stock: 20 });
      const onlyGuest = await createProduct(t, admin.token, { stock: 20 });
      await add(own, shared.id, 1).expect(201);
      const guest = await anonymousCart();
      await add(guest, shared.id, 4).expect(201);
      await add(guest, onlyGuest.id, 2).expect(201);
      await setAddress(guest).expect(200);
      const res = await api()
        .post(`/api/v1/carts/${guest.id}/claim`)
        .auth(dave.token, { type: 'bearer' })
        .set('X-Cart-Token', guest.token!)
        .expect(200);
      expect(res.body.data.id).toBe(own.id);
      expect(
        res.body.data.items.map((i: { product_id: number; quantity: number }) => [i.product_id, i.quantity]),
      ).toEqual([
        [shared.id, 5],
        [onlyGuest.id, 2],
      ]);
      expect(res.body.data.shipping_address).toMatchObject(ADDRESS);
      expect(await cartRow(guest.id)).toBeUndefined();
      const left = await t.dataSource.query('SELECT COUNT(*) AS n FROM cart_items WHERE cart_id = ?', [
        guest.id,
      ]);
      expect(Number(left[0].n)).toBe(0);
    });
  });

  describe('checkout', () => {
    it('a guest checkout: totals to the cent, cart completed, stock taken, order without a user, read with its token', async () => {
      const cart = await anonymousCart();
      const a = await createProduct(t, admin.token, { price: 0.1, stock: 10 });
      const b = await createProduct(t, admin.token, { price: 0.2, stock: 10 });
      await add(cart, a.id, 3).expect(201);
      await add(cart, b.id, 1).expect(201);
      const missing = await checkout(cart).expect(400);
      expect(missing.body.data.errors.map((e: { field: string }) => e.field)).toEqual([
        'email',
        'shipping_address',
      ]);
      const badAddress = await setAddress(cart, { shipping_address: { ...ADDRESS, country: 'XX' } }).expect(
        400,
      );
      expect(badAddress.body.data.errors[0].field).toBe('shipping_address.country');
      await setAddress(cart, { shipping_address: ADDRESS, email: 'guest@example.com' }).expect(200);

      const res = await checkout(cart).expect(201);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      const order = res.body.data;
      expect(order).toMatchObject({
        total_amount: 0.5,
        shipping_total: 0,
        email: 'guest@example.com',
        status: 'pending',
        payment_status: 'pending',
        payment_method: 'credit_card',
        shipping_address: 'Jane Doe, 1 Main St, Flat 2, 62701 Springfield IL, US',
        shipping_address_details: ADDRESS,
        order_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      });
      expect(
        order.items.map((i: { product_id: number; quantity: number; price: number }) => [
          i.product_id,
          i.quantity,
          i.price,
        ]),
      ).toEqual([
        [a.id, 3, 0.1],
        [b.id, 1, 0.2],
      ]);
      const [row] = await t.dataSource.query(
        'SELECT user_id, total_cents, email, order_token_hash, cart_id FROM orders WHERE id = ?',
        [order.id],
      );
      expect(row.user_id).toBeNull();
      expect(Number(row.total_cents)).toBe(50);
      expect(row.cart_id).toBe(cart.id);
      expect(row.order_token_hash).toMatch(/^[0-9a-f]{64}$/);
      expect((await cartRow(cart.id))!.status).toBe('completed');
      expect(await stockOf(a.id)).toBe(7);

      // Read with the token, no bearer; without it or with a wrong one it is not there.
      const read = await api()
        .get(`/api/v1/orders/${order.id}`)
        .set('X-Order-Token', order.order_token)
        .expect(200);
      expect(read.body.data).toMatchObject({ id: order.id, email: 'guest@example.com', total_amount: 0.5 });
      expect(read.body.data).not.toHaveProperty('order_token');
      await api().get(`/api/v1/orders/${order.id}`).expect(401);
      await api().get(`/api/v1/orders/${order.id}`).set('X-Order-Token', 'wrong').expect(404);
      await api().get(`/api/v1/orders/${order.id}`).auth(alice.token, { type: 'bearer' }).expect(404);

      // The back office lists it with the e-mail and no user.
      const list = await api()
        .get('/api/v1/admin/orders?search=guest@example.com')
        .auth(admin.token, { type: 'bearer' })
        .expect(200);
      expect(list.body.data).toEqual([
        expect.objectContaining({ id: order.id, email: 'guest@example.com', user: null }),
      ]);

      // A completed cart takes no more changes; a second checkout replays the same order and its token.
      await add(cart, a.id, 1).expect(400);
      const again = await checkout(cart).expect(201);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body.data).toEqual({ ...order, updated_at: again.body.data.updated_at });
      expect(await stockOf(a.id)).toBe(7);
    });

    it('a customer checkout: the order is theirs, listed in GET /orders, the e-mail falls back to the account', async () => {
      const erin = await createAccount(t);
      const cart = await customerCart(erin);
      const product = await createProduct(t, admin.token, { price: 33.33, stock: 10 });
      await add(cart, product.id, 3).expect(201);
      await setAddress(cart).expect(200);
      const res = await checkout(cart).expect(201);
      expect(res.body.data).toMatchObject({ total_amount: 99.99, email: null });
      expect(res.body.data).not.toHaveProperty('order_token');
      const mine = await api().get('/api/v1/orders').auth(erin.token, { type: 'bearer' }).expect(200);
      expect(mine.body.data.map((o: { id: number }) => o.id)).toEqual([res.body.data.id]);
      await api().get('/api/v1/me/cart').auth(erin.token, { type: 'bearer' }).expect(404);
    });

    it('10 concurrent checkouts of one cart: one order, the others replay it', async () => {
      const agent = concurrentClient();
      try {
        const cart = await anonymousCart();
        const product = await createProduct(t, admin.token, { price: 2.5, stock: 10 });
        await add(cart, product.id, 2).expect(201);
        await setAddress(cart, { shipping_address: ADDRESS, email: 'race@example.com' }).expect(200);
        const responses = await Promise.all(
          Array.from({ length: 10 }, () =>
            api()
              .post(`/api/v1/carts/${cart.id}/checkout`)
              .agent(agent)
              .set('X-Cart-Token', cart.token!)
              .send({ payment_method: 'credit_card' }),
          ),
        );
        expect(responses.map((r) => r.status)).toEqual(new Array(10).fill(201));
        expect(new Set(responses.map((r) => r.body.data.id)).size).toBe(1);
        expect(responses.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(9);
        const orders = await t.dataSource.query('SELECT COUNT(*) AS n FROM orders WHERE cart_id = ?', [
          cart.id,
        ]);
        expect(Number(orders[0].n)).toBe(1);
        expect(await stockOf(product.id)).toBe(8);
      } finally {
        agent.destroy();
      }
    });

    it('stock exhausted between adding and checking out: 400 naming the line, nothing taken, the cart still open', async () => {
      const cart = await anonymousCart();
      const product = await createProduct(t, admin.token, { price: 4, stock: 3 });
      await add(cart, product.id, 3).expect(201);
      await setAddress(cart, { shipping_address: ADDRESS, email: 'late@example.com' }).expect(200);
      const buyer = await customerCart(alice);
      await add(buyer, product.id, 2).expect(201);
      await setAddress(buyer).expect(200);
      await checkout(buyer).expect(201);
      const res = await checkout(cart).expect(400);
      const lineId = (await cart.auth(api().get(`/api/v1/carts/${cart.id}`)).expect(200)).body.data.items[0]
        .id;
      expect(res.body.data.errors).toEqual([
        {
          field: `items.${lineId}`,
          rule: 'stock',
          message: `product ${product.id}: only 1 in stock, the line asks for 3`,
        },
      ]);
      expect(await stockOf(product.id)).toBe(1);
      expect((await cartRow(cart.id))!.status).toBe('open');
      const orders = await t.dataSource.query('SELECT COUNT(*) AS n FROM orders WHERE cart_id = ?', [
        cart.id,
      ]);
      expect(Number(orders[0].n)).toBe(0);
    });

    it('200 concurrent checkouts of carts holding the last 50 units of one product: exactly 50 orders, stock 0', async () => {
      const product = await createProduct(t, admin.token, { price: 1.11, stock: 200 });
      const carts: CartHandle[] = [];
      for (let i = 0; i < 200; i++) {
        const cart = await anonymousCart();
        await add(cart, product.id, 1).expect(201);
        await setAddress(cart, { shipping_address: ADDRESS, email: `c${i}@example.com` }).expect(200);
        carts.push(cart);
      }
      await api()
        .put(`/api/v1/products/${product.id}`)
        .auth(admin.token, { type: 'bearer' })
        .send({ stock: 50 })
        .expect(200);
      const agent = concurrentClient();
      try {
        const responses = await Promise.all(
          carts.map((cart) =>
            api()
              .post(`/api/v1/carts/${cart.id}/checkout`)
              .agent(agent)
              .set('X-Cart-Token', cart.token!)
              .send({ payment_method: 'credit_card' }),
          ),
        );
        const statuses = responses.map((r) => r.status);
        expect(statuses.filter((s) => s === 201)).toHaveLength(50);
        expect(statuses.filter((s) => s === 400)).toHaveLength(150);
        expect(await stockOf(product.id)).toBe(0);
        const [sold] = await t.dataSource.query(
          'SELECT COUNT(*) AS n, SUM(quantity) AS q FROM order_items WHERE product_id = ?',
          [product.id],
        );
        expect([Number(sold.n), Number(sold.q)]).toEqual([50, 50]);
        const [completed] = await t.dataSource.query(
          "SELECT COUNT(*) AS n FROM carts WHERE status = 'completed' AND id IN (SELECT cart_id FROM orders WHERE cart_id IS NOT NULL)",
        );
        expect(Number(completed.n)).toBeGreaterThanOrEqual(50);
      } finally {
        agent.destroy();
      }
    }, 120_000);
  });

  describe('housekeeping', () => {
    it('carts untouched for CART_TTL are removed with their lines; newer ones stay', async () => {
      const old = await anonymousCart();
      const fresh = await anonymousCart();
      const product = await createProduct(t, admin.token, { stock: 5 });
      await add(old, product.id, 1).expect(201);
      await t.dataSource.query("UPDATE carts SET updated_at = '2020-01-01 00:00:00.000' WHERE id = ?", [
        old.id,
      ]);
      const { CartsService } = await import('../src/carts/carts.service.js');
      const removed = await t.app.get(CartsService).removeAbandoned();
      expect(removed).toBeGreaterThanOrEqual(1);
      expect(await cartRow(old.id)).toBeUndefined();
      expect(await cartRow(fresh.id)).toBeDefined();
      const lines = await t.dataSource.query('SELECT COUNT(*) AS n FROM cart_items WHERE cart_id = ?', [
        old.id,
      ]);
      expect(Number(lines[0].n)).toBe(0);
    });
  });

  // Last: an option shipping everywhere makes a shipping option required at every checkout after it.
  describe('addresses and shipping options', () => {
    const GERMAN = { ...ADDRESS, city: 'Berlin', region: '', postal_code: '10115', country: 'DE' };
    const option = async (body: object) =>
      (
        await api()
          .post('/api/v1/shipping-options')
          .auth(admin.token, { type: 'bearer' })
          .send(body)
          .expect(201)
      ).body.data as { id: number; name: string; price: number };

    it('options by country; the chosen option priced into the totals and the order, to the cent', async () => {
      const dach = await option({ name: 'DACH', price: 4.95, countries: ['DE', 'AT'] });
      const france = await option({ name: 'France', price: 9.9, countries: ['FR'] });
      await option({ name: 'Retired', price: 1, countries: ['DE'], is_active: false });
      const cart = await anonymousCart();
      const product = await createProduct(t, admin.token, { price: 0.7, stock: 10 });
      await add(cart, product.id, 3).expect(201);

      const none = await cart.auth(api().get(`/api/v1/carts/${cart.id}/shipping-options`)).expect(400);
      expect(none.body.data.errors[0]).toMatchObject({ field: 'shipping_address', rule: 'required' });
      await setAddress(cart, { shipping_address: GERMAN, email: 'de@example.com' }).expect(200);
      const listed = await cart.auth(api().get(`/api/v1/carts/${cart.id}/shipping-options`)).expect(200);
      expect(listed.body.data.map((o: { id: number }) => o.id)).toEqual([dach.id]);

      const refused = await setAddress(cart, { shipping_option_id: france.id }).expect(400);
      expect(refused.body.data.errors).toEqual([
        {
          field: 'shipping_option_id',
          rule: 'applies',
          message: `shipping option ${france.id} does not ship to DE`,
        },
      ]);
      const noOption = await checkout(cart).expect(400);
      expect(noOption.body.data.errors[0]).toMatchObject({ field: 'shipping_option_id', rule: 'required' });

      const chosen = await setAddress(cart, { shipping_option_id: dach.id }).expect(200);
      expect(chosen.body.data).toMatchObject({
        shipping_option: { id: dach.id, name: 'DACH', price: 4.95 },
        subtotal: 2.1,
        shipping_total: 4.95,
        total: 7.05,
      });
      // Moving the address to France drops the option that does not ship there.
      // (Optional address fields left out are kept as "", as the address book keeps them.)
      const paris = { name: 'Jane Doe', line1: '1 Rue X', city: 'Paris', country: 'FR' };
      const moved = await setAddress(cart, { shipping_address: paris }).expect(200);
      expect(moved.body.data).toMatchObject({ shipping_option: null, shipping_total: 0, total: 2.1 });
      expect(moved.body.data.shipping_address).toMatchObject({
        ...paris,
        line2: '',
        region: '',
        postal_code: '',
        phone: '',
      });
      await setAddress(cart, { shipping_address: GERMAN, shipping_option_id: dach.id }).expect(200);

      const res = await checkout(cart).expect(201);
      expect(res.body.data).toMatchObject({
        total_amount: 7.05,
        shipping_total: 4.95,
        shipping_address: 'Jane Doe, 1 Main St, Flat 2, 10115 Berlin, DE',
        shipping_address_details: GERMAN,
      });
      const [row] = await t.dataSource.query(
        'SELECT total_cents, shipping_total_cents FROM orders WHERE id = ?',
        [res.body.data.id],
      );
      expect([Number(row.total_cents), Number(row.shipping_total_cents)]).toEqual([705, 495]);
    });

    it("a customer's saved address by shipping_address_id; someone else's address is refused", async () => {
      const frank = await createAccount(t);
      const saved = (
        await api()
          .post('/api/v1/me/addresses')
          .auth(frank.token, { type: 'bearer' })
          .send(GERMAN)
          .expect(201)
      ).body.data;
      const cart = await customerCart(frank);
      await setAddress(cart, { shipping_address_id: saved.id }).expect(200);
      const read = await cart.auth(api().get(`/api/v1/carts/${cart.id}`)).expect(200);
      expect(read.body.data.shipping_address).toMatchObject(GERMAN);
      const theirs = await customerCart(alice);
      const refused = await setAddress(theirs, { shipping_address_id: saved.id }).expect(400);
      expect(refused.body.data.errors[0]).toMatchObject({ field: 'shipping_address_id', rule: 'exists' });
      const guest = await anonymousCart();
      await setAddress(guest, { shipping_address_id: saved.id }).expect(400);
    });
  });
});

describe('anonymous cart creation rate limit', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ ...ADMIN_ENV, THROTTLE_CART_LIMIT: '2' });
  });

  afterAll(async () => {
    await t.close();
  });

  it('THROTTLE_CART_LIMIT anonymous carts per client and window, then 429; customers are not counted in it', async () => {
    const api = () => request(t.url);
    const first = await api().post('/api/v1/carts').expect(201);
    expect(first.headers['x-ratelimit-limit']).toBe('2');
    await api().post('/api/v1/carts').expect(201);
    const refused = await api().post('/api/v1/carts').expect(429);
    expect(refused.headers['retry-after']).toBeDefined();
    const [{ n }] = await t.dataSource.query('SELECT COUNT(*) AS n FROM carts');
    expect(Number(n)).toBe(2);
    const customer = await createAccount(t);
    await api().post('/api/v1/carts').auth(customer.token, { type: 'bearer' }).expect(201);
  });
});
