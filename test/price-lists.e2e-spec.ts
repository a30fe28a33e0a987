import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import request from 'supertest';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { expectRefusals } from './support/field-errors.js';
import { startTestApp, TestApp } from './support/test-app.js';

interface ListPrice {
  product_id: number | null;
  variant_id: number | null;
  currency_code: string;
  amount: number;
}
interface PriceListBody {
  id: number;
  name: string;
  description: string | null;
  type: 'sale' | 'override';
  status: 'active' | 'draft';
  starts_at: string | null;
  ends_at: string | null;
  customer_group_ids: number[];
  prices: ListPrice[];
  created_at: string;
  updated_at: string;
}
interface Calculated {
  amount: number;
  original_amount: number;
  currency_code: string;
  price_list_id: number | null;
  includes_tax: boolean;
}
interface CartLine {
  id: number;
  product_id: number;
  variant_id: number | null;
  price: number | null;
  original_price: number | null;
  added_price: number;
  line_total: number;
  total: number;
  problems: Array<{ code: string }>;
}

const ADDRESS = {
  name: 'Jane Doe',
  line1: '1 Main St',
  city: 'Springfield',
  postal_code: '62701',
  country: 'US',
};
const HOUR = 3_600_000;

/** A shopper's cart: a customer's (bearer token) or a guest's (X-Cart-Token). */
interface CartHandle {
  id: string;
  auth: (req: request.Test) => request.Test;
}

// Runs on SQLite, and on MariaDB/MySQL with a mysql:// TEST_DATABASE_URL. CURRENCY is the default `usd`.
describe('price lists', () => {
  let t: TestApp;
  let admin: Account;
  let member: Account;
  let outsider: Account;
  let group: number;
  let eurRegion: number;

  const api = () => request(t.url);
  const asAdmin = (req: request.Test) => req.auth(admin.token, { type: 'bearer' });
  const createList = async (body: object) =>
    (
      await asAdmin(api().post('/api/v1/price-lists'))
        .send({ name: 'List', type: 'sale', status: 'active', ...body })
        .expect(201)
    ).body.data as PriceListBody;
  const updateList = (id: number, body: object) => asAdmin(api().put(`/api/v1/price-lists/${id}`)).send(body);
  const createProduct = async (price: number, extra: object = {}) =>
    (
      await asAdmin(api().post('/api/v1/products'))
        .send({ name: `Mug ${price}`, price, stock: 100, category_id: 1, ...extra })
        .expect(201)
    ).body.data as { id: number };
  const tableCounts = async () => {
    const count = async (table: string) =>
      Number((await t.dataSource.query(`SELECT COUNT(*) AS n FROM ${table}`))[0].n);
    return {
      lists: await count('price_lists'),
      prices: await count('price_list_prices'),
      groups: await count('price_list_customer_groups'),
    };
  };
  const iso = (offset: number) => new Date(Date.now() + offset).toISOString();

  async function guestCart(regionId?: number): Promise<CartHandle> {
    const res = await api()
      .post('/api/v1/carts')
      .send(regionId === undefined ? {} : { region_id: regionId })
      .expect(201);
    const token = res.body.data.cart_token as string;
    return { id: res.body.data.id, auth: (req) => req.set('X-Cart-Token', token) };
  }
  async function customerCart(account: Account, regionId?: number): Promise<CartHandle> {
    const res = await api()
      .post('/api/v1/carts')
      .auth(account.token, { type: 'bearer' })
      .send(regionId === undefined ? {} : { region_id: regionId })
      .expect(201);
    return { id: res.body.data.id, auth: (req) => req.auth(account.token, { type: 'bearer' }) };
  }
  const addLine = async (cart: CartHandle, body: object) =>
    cart
      .auth(api().post(`/api/v1/carts/${cart.id}/items`))
      .send({ quantity: 1, ...body })
      .expect(201);
  const readCart = async (cart: CartHandle) =>
    (await cart.auth(api().get(`/api/v1/carts/${cart.id}`)).expect(200)).body.data as {
      items: CartLine[];
      subtotal: number;
      total: number;
    };
  /** The unit price a shopper's cart gives the product now (a fresh cart with one unit of it). */
  const priceIn = async (cart: Promise<CartHandle>, productId: number) => {
    const handle = await cart;
    await addLine(handle, { product_id: productId });
    const [line] = (await readCart(handle)).items;
    return { price: line.price, original_price: line.original_price };
  };
  const calculated = async (productId: number, token?: string, regionId?: number) => {
    const req = api().get(`/api/v1/products/${productId}?region_id=${regionId ?? 1}`);
    const res = await (token === undefined ? req : req.auth(token, { type: 'bearer' })).expect(200);
    return res.body.data.calculated_price as Calculated;
  };

  beforeAll(async () => {
    t = await startTestApp({ ...ADMIN_ENV, CATALOG_PUBLIC: 'true' });
    admin = await loginAdmin(t);
    member = await createAccount(t);
    outsider = await createAccount(t);
    group = (await asAdmin(api().post('/api/v1/customer-groups')).send({ name: 'Wholesale' }).expect(201))
      .body.data.id;
    await asAdmin(api().post(`/api/v1/customer-groups/${group}/customers`))
      .send({ user_ids: [member.id] })
      .expect(200);
    eurRegion = (
      await asAdmin(api().post('/api/v1/regions'))
        .send({ name: 'Europe', currency_code: 'eur', countries: ['DE'] })
        .expect(201)
    ).body.data.id;
  });

  afterAll(async () => {
    await t.close();
  });

  describe('admin API', () => {
    it('POST creates a list with its groups and prices (201), stored in minor units; draft by default', async () => {
      const product = await createProduct(20, { prices: [{ currency_code: 'jpy', amount: 3000 }] });
      const res = await asAdmin(api().post('/api/v1/price-lists'))
        .send({
          name: 'Wholesale',
          description: 'For resellers',
          type: 'override',
          starts_at: '2026-01-01T00:00:00.000Z',
          ends_at: '2099-01-01T00:00:00+01:00',
          customer_group_ids: [group],
          prices: [
            { product_id: product.id, currency_code: 'usd', amount: 12.5 },
            { product_id: product.id, currency_code: 'jpy', amount: 1800 },
          ],
        })
        .expect(201);
      const list = res.body.data as PriceListBody;
      expect(list).toEqual({
        id: expect.any(Number),
        name: 'Wholesale',
        description: 'For resellers',
        type: 'override',
        status: 'draft',
        starts_at: '2026-01-01T00:00:00.000Z',
        ends_at: '2098-12-31T23:00:00.000Z',
        customer_group_ids: [group],
        prices: [
          { product_id: product.id, variant_id: null, currency_code: 'jpy', amount: 1800 },
          { product_id: product.id, variant_id: null, currency_code: 'usd', amount: 12.5 },
        ],
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      const rows = await t.dataSource.query(
        'SELECT product_id, variant_id, currency_code, amount_minor FROM price_list_prices WHERE price_list_id = ? ORDER BY currency_code',
        [list.id],
      );
      expect(
        rows.map((row: Record<string, unknown>) => [
          Number(row.product_id),
          row.variant_id,
          row.currency_code,
          Number(row.amount_minor),
        ]),
      ).toEqual([
        [product.id, null, 'jpy', 1800],
        [product.id, null, 'usd', 1250],
      ]);
      const groups = await t.dataSource.query(
        'SELECT customer_group_id FROM price_list_customer_groups WHERE price_list_id = ?',
        [list.id],
      );
      expect(groups.map((row: { customer_group_id: number }) => Number(row.customer_group_id))).toEqual([
        group,
      ]);
      const minimal = await createList({ name: 'Minimal', status: undefined });
      expect(minimal).toMatchObject({
        description: null,
        status: 'draft',
        starts_at: null,
        ends_at: null,
        customer_group_ids: [],
        prices: [],
      });
    });

    it('refusals: 400 naming the field and rule, nothing written; a user 403, no token 401', async () => {
      const product = await createProduct(20);
      const before = await tableCounts();
      const valid = {
        name: 'Bad',
        type: 'sale',
        prices: [{ product_id: product.id, currency_code: 'usd', amount: 5 }],
      };
      const price = (entry: object) => ({
        ...valid,
        prices: [{ product_id: product.id, currency_code: 'usd', amount: 5, ...entry }],
      });
      await expectRefusals(
        (body) => asAdmin(api().post('/api/v1/price-lists')).send(body),
        [
          [{ ...valid, name: '' }, 'name', 'minLength'],
          [{ ...valid, type: 'discount' }, 'type', 'isIn'],
          [{ ...valid, status: 'live' }, 'status', 'isIn'],
          [{ ...valid, starts_at: '2026-01-01' }, 'starts_at', 'isDateTime'],
          [
            { ...valid, starts_at: '2026-02-01T00:00:00Z', ends_at: '2026-01-01T00:00:00Z' },
            'ends_at',
            'afterStartsAt',
          ],
          [{ ...valid, customer_group_ids: [999999] }, 'customer_group_ids', 'exists'],
          [{ ...valid, customer_group_ids: [group, group] }, 'customer_group_ids', 'arrayUnique'],
          [price({ amount: 1.234 }), 'prices.0.amount', 'isAmountIn'],
          [price({ currency_code: 'jpy', amount: 1.5 }), 'prices.0.amount', 'isAmountIn'],
          [price({ amount: -1 }), 'prices.0.amount', 'isAmountIn'],
          [price({ amount: 99_999_999 }), 'prices.0.amount', 'max'],
          [price({ currency_code: 'EUR' }), 'prices.0.currency_code', 'isCurrencyCode'],
          [price({ product_id: 999999 }), 'prices.0.product_id', 'exists'],
          [price({ product_id: undefined, variant_id: 999999 }), 'prices.0.variant_id', 'exists'],
          [price({ product_id: undefined }), 'prices.0.product_id', 'required'],
          [price({ variant_id: 1 }), 'prices.0.variant_id', 'exclusive'],
          [{ ...valid, prices: [valid.prices[0], valid.prices[0]] }, 'prices.1.currency_code', 'unique'],
        ],
      );
      expect(await tableCounts()).toEqual(before);
      await api().post('/api/v1/price-lists').send(valid).expect(401);
      await api().post('/api/v1/price-lists').auth(member.token, { type: 'bearer' }).send(valid).expect(403);
      await api().get('/api/v1/price-lists').auth(member.token, { type: 'bearer' }).expect(403);
      expect(await tableCounts()).toEqual(before);
    });

    it('PUT is partial, sets fields back to null, replaces prices and groups; GET list and by id; DELETE', async () => {
      const product = await createProduct(20);
      const other = await createProduct(30);
      const list = await createList({
        description: 'Old',
        starts_at: '2026-01-01T00:00:00.000Z',
        ends_at: '2099-01-01T00:00:00.000Z',
        customer_group_ids: [group],
        prices: [{ product_id: product.id, currency_code: 'usd', amount: 15 }],
      });
      const renamed = (await updateList(list.id, { name: 'Renamed' }).expect(200)).body.data as PriceListBody;
      expect(renamed).toEqual({ ...list, name: 'Renamed', updated_at: expect.any(String) });
      const cleared = (
        await updateList(list.id, {
          description: null,
          starts_at: null,
          ends_at: null,
          customer_group_ids: [],
          prices: [{ product_id: other.id, currency_code: 'usd', amount: 25 }],
        }).expect(200)
      ).body.data as PriceListBody;
      expect(cleared).toMatchObject({
        name: 'Renamed',
        description: null,
        starts_at: null,
        ends_at: null,
        customer_group_ids: [],
        prices: [{ product_id: other.id, variant_id: null, currency_code: 'usd', amount: 25 }],
      });
      const [row] = await t.dataSource.query(
        'SELECT name, description, starts_at, ends_at FROM price_lists WHERE id = ?',
        [list.id],
      );
      expect(row).toEqual({ name: 'Renamed', description: null, starts_at: null, ends_at: null });
      // ends_at is checked against the stored starts_at.
      await updateList(list.id, { starts_at: '2026-06-01T00:00:00.000Z' }).expect(200);
      const refused = await updateList(list.id, {
        ends_at: '2026-05-01T00:00:00.000Z',
        name: 'Not this',
      }).expect(400);
      expect(refused.body.data.errors).toEqual([
        { field: 'ends_at', rule: 'afterStartsAt', message: 'ends_at must be after starts_at' },
      ]);
      await expectRefusals(
        (body) => updateList(list.id, body),
        [
          [
            { prices: [{ product_id: product.id, currency_code: 'usd', amount: 0.001 }] },
            'prices.0.amount',
            'isAmountIn',
          ],
          [{ type: null }, 'type', 'isIn'],
          [{ customer_group_ids: [999999] }, 'customer_group_ids', 'exists'],
        ],
      );
      const stored = (await asAdmin(api().get(`/api/v1/price-lists/${list.id}`)).expect(200)).body.data;
      expect(stored).toMatchObject({ name: 'Renamed', type: 'sale', customer_group_ids: [], ends_at: null });
      expect(stored.prices).toEqual(cleared.prices);

      const page = await asAdmin(api().get('/api/v1/price-lists?page_size=100')).expect(200);
      const ids = (page.body.data as PriceListBody[]).map((entry) => entry.id);
      expect(ids).toContain(list.id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(page.body.meta).toMatchObject({ total: ids.length });

      await asAdmin(api().delete(`/api/v1/price-lists/${list.id}`)).expect(200);
      await asAdmin(api().get(`/api/v1/price-lists/${list.id}`)).expect(404);
      await updateList(list.id, { name: 'Gone' }).expect(404);
      const left = await t.dataSource.query(
        'SELECT COUNT(*) AS n FROM price_list_prices WHERE price_list_id = ?',
        [list.id],
      );
      expect(Number(left[0].n)).toBe(0);
    });
  });

  describe('what shoppers pay', () => {
    it('sale: the lowest of the base and the sale prices wins; a sale above the base leaves the base', async () => {
      const product = await createProduct(20);
      const above = await createList({
        prices: [{ product_id: product.id, currency_code: 'usd', amount: 22 }],
      });
      expect(await calculated(product.id)).toEqual({
        amount: 20,
        original_amount: 20,
        currency_code: 'usd',
        price_list_id: null,
        includes_tax: false,
      });
      const sale = await createList({
        prices: [{ product_id: product.id, currency_code: 'usd', amount: 15 }],
      });
      const lower = await createList({
        prices: [{ product_id: product.id, currency_code: 'usd', amount: 12.5 }],
      });
      expect(await calculated(product.id)).toMatchObject({
        amount: 12.5,
        original_amount: 20,
        price_list_id: lower.id,
      });
      expect(await priceIn(guestCart(), product.id)).toEqual({ price: 12.5, original_price: 20 });
      expect([above.id, sale.id]).not.toContain(lower.id);
    });

    it('override replaces the base, even above it; the lowest override applies; a lower sale still wins', async () => {
      const product = await createProduct(20);
      const high = await createList({
        type: 'override',
        prices: [{ product_id: product.id, currency_code: 'usd', amount: 26 }],
      });
      expect(await calculated(product.id)).toMatchObject({
        amount: 26,
        original_amount: 20,
        price_list_id: high.id,
      });
      const lower = await createList({
        type: 'override',
        prices: [{ product_id: product.id, currency_code: 'usd', amount: 24 }],
      });
      expect(await calculated(product.id)).toMatchObject({ amount: 24, price_list_id: lower.id });
      expect(await priceIn(guestCart(), product.id)).toEqual({ price: 24, original_price: 20 });
      // A sale competes with the overridden price, not with the base.
      await createList({ prices: [{ product_id: product.id, currency_code: 'usd', amount: 22 }] });
      const sale = await createList({
        prices: [{ product_id: product.id, currency_code: 'usd', amount: 21 }],
      });
      expect(await calculated(product.id)).toMatchObject({
        amount: 21,
        original_amount: 20,
        price_list_id: sale.id,
      });
    });

    it('by group: a member gets the list, a non-member and a guest do not', async () => {
      const product = await createProduct(20);
      const wholesale = await createList({
        type: 'override',
        customer_group_ids: [group],
        prices: [{ product_id: product.id, currency_code: 'usd', amount: 11 }],
      });
      expect(await priceIn(customerCart(member), product.id)).toEqual({ price: 11, original_price: 20 });
      expect(await priceIn(customerCart(outsider), product.id)).toEqual({ price: 20, original_price: 20 });
      expect(await priceIn(guestCart(), product.id)).toEqual({ price: 20, original_price: 20 });
      expect(await calculated(product.id, member.token)).toMatchObject({
        amount: 11,
        price_list_id: wholesale.id,
      });
      expect(await calculated(product.id, outsider.token)).toMatchObject({ amount: 20, price_list_id: null });
      expect(await calculated(product.id)).toMatchObject({ amount: 20, price_list_id: null });
    });

    it('by dates and status: not started, ended and draft lists are ignored; a cart follows them on its next read', async () => {
      const product = await createProduct(20);
      const sale = (amount: number, body: object) =>
        createList({ ...body, prices: [{ product_id: product.id, currency_code: 'usd', amount }] });
      await sale(10, { starts_at: iso(HOUR) });
      await sale(11, { starts_at: iso(-2 * HOUR), ends_at: iso(-HOUR) });
      await sale(12, { status: 'draft' });
      const cart = await guestCart();
      await addLine(cart, { product_id: product.id });
      expect((await readCart(cart)).items[0]).toMatchObject({
        price: 20,
        original_price: 20,
        added_price: 20,
      });
      const running = await sale(15, { starts_at: iso(-HOUR), ends_at: iso(HOUR) });
      const read = await readCart(cart);
      expect(read.items[0]).toMatchObject({ price: 15, original_price: 20, added_price: 20, line_total: 15 });
      expect(read.items[0].problems.map((problem) => problem.code)).toEqual(['price_changed']);
      expect(read.subtotal).toBe(15);
      // It ends: the next read is back at the base.
      await updateList(running.id, { ends_at: iso(-1000), starts_at: iso(-HOUR) }).expect(200);
      expect((await readCart(cart)).items[0]).toMatchObject({ price: 20, original_price: 20 });
      // A draft made active applies.
      const drafts = (await asAdmin(api().get('/api/v1/price-lists?page_size=100')).expect(200)).body
        .data as PriceListBody[];
      const draft = drafts.find(
        (list) => list.status === 'draft' && list.prices[0]?.product_id === product.id,
      )!;
      await updateList(draft.id, { status: 'active' }).expect(200);
      expect((await readCart(cart)).items[0]).toMatchObject({ price: 12, original_price: 20 });
    });

    it("in another currency: a list's price applies in its currency's region only", async () => {
      const product = await createProduct(20, { prices: [{ currency_code: 'eur', amount: 18 }] });
      const list = await createList({
        prices: [{ product_id: product.id, currency_code: 'eur', amount: 14.5 }],
      });
      expect(await calculated(product.id, undefined, eurRegion)).toMatchObject({
        amount: 14.5,
        original_amount: 18,
        currency_code: 'eur',
        price_list_id: list.id,
      });
      expect(await calculated(product.id)).toMatchObject({ amount: 20, price_list_id: null });
      expect(await priceIn(guestCart(eurRegion), product.id)).toEqual({ price: 14.5, original_price: 18 });
      expect(await priceIn(guestCart(), product.id)).toEqual({ price: 20, original_price: 20 });
      // A cart moving region is re-priced in the new currency, with its lists.
      const moving = await guestCart();
      await addLine(moving, { product_id: product.id });
      const moved = await moving
        .auth(api().put(`/api/v1/carts/${moving.id}`))
        .send({ region_id: eurRegion })
        .expect(200);
      expect(moved.body.data.items[0]).toMatchObject({ price: 14.5, original_price: 18, added_price: 14.5 });
    });

    it("variants: the list's variant price, else its product price; the catalogue shows each variant's", async () => {
      const product = await createProduct(20, { options: [{ name: 'Size', values: ['S', 'M'] }] });
      const variant = async (size: string, price: number) =>
        (
          await asAdmin(api().post(`/api/v1/products/${product.id}/variants`))
            .send({ sku: `PL-${product.id}-${size}`, options: { Size: size }, price, stock: 10 })
            .expect(201)
        ).body.data as { id: number };
      const small = await variant('S', 30);
      const medium = await variant('M', 34);
      const list = await createList({
        prices: [
          { product_id: product.id, currency_code: 'usd', amount: 25 },
          { variant_id: small.id, currency_code: 'usd', amount: 28 },
        ],
      });
      const detail = (await api().get(`/api/v1/products/${product.id}?region_id=1`).expect(200)).body
        .data as {
        variants: Array<{ id: number; calculated_price: Calculated }>;
      };
      const of = (id: number) => detail.variants.find((entry) => entry.id === id)!.calculated_price;
      expect(of(small.id)).toMatchObject({ amount: 28, original_amount: 30, price_list_id: list.id });
      expect(of(medium.id)).toMatchObject({ amount: 25, original_amount: 34, price_list_id: list.id });
      const cart = await guestCart();
      await addLine(cart, { variant_id: small.id });
      await addLine(cart, { variant_id: medium.id });
      const lines = (await readCart(cart)).items;
      expect(lines.map((line) => [line.variant_id, line.price, line.original_price])).toEqual([
        [small.id, 28, 30],
        [medium.id, 25, 34],
      ]);
    });

    it('an order keeps the price and original price it was placed with; later list changes leave it', async () => {
      const product = await createProduct(20);
      const list = await createList({
        customer_group_ids: [group],
        prices: [{ product_id: product.id, currency_code: 'usd', amount: 16.4 }],
      });
      const cart = await customerCart(member);
      await addLine(cart, { product_id: product.id, quantity: 3 });
      await cart
        .auth(api().put(`/api/v1/carts/${cart.id}`))
        .send({ shipping_address: ADDRESS })
        .expect(200);
      const placed = await cart
        .auth(api().post(`/api/v1/carts/${cart.id}/checkout`))
        .send({ payment_method: 'credit_card' })
        .expect(201);
      const order = placed.body.data;
      expect(order.items[0]).toMatchObject({
        price: 16.4,
        original_price: 20,
        quantity: 3,
        line_total: 49.2,
      });
      expect(order.subtotal).toBe(49.2);
      const [item] = await t.dataSource.query(
        'SELECT unit_price_cents, original_unit_price_cents FROM order_items WHERE order_id = ?',
        [order.id],
      );
      expect([Number(item.unit_price_cents), Number(item.original_unit_price_cents)]).toEqual([1640, 2000]);
      await asAdmin(api().delete(`/api/v1/price-lists/${list.id}`)).expect(200);
      const read = await api()
        .get(`/api/v1/orders/${order.id}`)
        .auth(member.token, { type: 'bearer' })
        .expect(200);
      expect(read.body.data.items[0]).toMatchObject({ price: 16.4, original_price: 20 });
      expect(read.body.data.subtotal).toBe(49.2);
    });

    it('POST /orders applies the lists too', async () => {
      const product = await createProduct(20);
      await createList({ prices: [{ product_id: product.id, currency_code: 'usd', amount: 9.99 }] });
      const res = await api()
        .post('/api/v1/orders')
        .auth(outsider.token, { type: 'bearer' })
        .send({
          items: [{ product_id: product.id, quantity: 2 }],
          shipping_address: '1 Main St',
          payment_method: 'credit_card',
        })
        .expect(201);
      const detail = await api()
        .get(`/api/v1/orders/${res.body.data.id}`)
        .auth(outsider.token, { type: 'bearer' })
        .expect(200);
      expect(detail.body.data.items[0]).toMatchObject({ price: 9.99, original_price: 20, line_total: 19.98 });
    });
  });

  describe('reads stay index-backed', () => {
    const statementsOf = async (send: () => Promise<unknown>) => {
      const logQuery = jest.spyOn(t.dataSource.logger, 'logQuery');
      try {
        await send();
        return logQuery.mock.calls.map(([sql]) => sql);
      } finally {
        logQuery.mockRestore();
      }
    };
    // Background work (the job poller, the outbox) may run meanwhile: only price-list statements are counted.
    const priceListStatements = (statements: string[]) => statements.filter((sql) => /price_list/.test(sql));

    it('a product list page without region_id touches no price list and shows no calculated_price', async () => {
      await createList({
        prices: [{ product_id: (await createProduct(20)).id, currency_code: 'usd', amount: 1 }],
      });
      const statements = await statementsOf(() => api().get('/api/v1/products?page_size=50').expect(200));
      expect(priceListStatements(statements)).toEqual([]);
      const page = await api().get('/api/v1/products?page_size=50').expect(200);
      for (const product of page.body.data) expect(product.calculated_price).toBeUndefined();
    });

    it('a list page with region_id, a cart read and a checkout read the price lists once, whatever the lines', async () => {
      const withRegion = await statementsOf(() =>
        api().get('/api/v1/products?page_size=50&region_id=1').expect(200),
      );
      expect(priceListStatements(withRegion)).toHaveLength(1);
      const products = await Promise.all([20, 21, 22, 23, 24].map((price) => createProduct(price)));
      await createList({
        prices: products.map((product) => ({ product_id: product.id, currency_code: 'usd', amount: 5 })),
      });
      const one = await customerCart(member);
      await addLine(one, { product_id: products[0].id });
      const five = await customerCart(outsider);
      for (const product of products) await addLine(five, { product_id: product.id });
      const readOne = await statementsOf(() => readCart(one));
      const readFive = await statementsOf(() => readCart(five));
      expect(priceListStatements(readOne)).toHaveLength(1);
      expect(priceListStatements(readFive)).toHaveLength(1);
      // The customer's groups are checked inside that statement, not read apart.
      expect(readFive.filter((sql) => /customer_group_members/.test(sql) && !/price_list/.test(sql))).toEqual(
        [],
      );
      await five
        .auth(api().put(`/api/v1/carts/${five.id}`))
        .send({ shipping_address: ADDRESS })
        .expect(200);
      const checkout = await statementsOf(() =>
        five
          .auth(api().post(`/api/v1/carts/${five.id}/checkout`))
          .send({ payment_method: 'credit_card' })
          .expect(201),
      );
      expect(priceListStatements(checkout)).toHaveLength(1);
      expect((await readCart(five)).items.every((line) => line.price === 5)).toBe(true);
    });
  });
});
