import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import request from 'supertest';
import { eventually } from './support/eventually.js';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { postOrder } from './support/orders.js';
import { createProduct } from './support/products.js';
import { startTestApp, TestApp } from './support/test-app.js';

interface Variant {
  id: number;
  sku: string;
  title: string;
  options: Record<string, string>;
  price: number;
  stock: number;
  is_active: boolean;
  image: string;
}

describe('product options and variants', () => {
  let t: TestApp;
  let admin: Account;
  let user: Account;
  let skuCounter = 0;

  const api = () => request(t.url);
  const productRow = async (id: number) => {
    const [row] = await t.dataSource.query('SELECT price_cents, stock FROM products WHERE id = ?', [id]);
    return { priceCents: Number(row.price_cents), stock: Number(row.stock) };
  };
  const variantStock = async (id: number) =>
    Number((await t.dataSource.query('SELECT stock FROM product_variants WHERE id = ?', [id]))[0].stock);
  /** A product with options Size (S, M, L) and Colour (Red, Blue). */
  const tee = async () => {
    const product = await createProduct(t, admin.token, { price: 50, stock: 7 });
    await api()
      .put(`/api/v1/products/${product.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({
        options: [
          { name: 'Size', values: ['S', 'M', 'L'] },
          { name: 'Colour', values: ['Red', 'Blue'] },
        ],
      })
      .expect(200);
    return product.id;
  };
  const addVariant = async (productId: number, body: object): Promise<Variant> => {
    skuCounter += 1;
    const res = await api()
      .post(`/api/v1/products/${productId}/variants`)
      .auth(admin.token, { type: 'bearer' })
      .send({ sku: `SKU-${skuCounter}-${Date.now() % 100000}`, price: 10, stock: 5, ...body });
    expect(res.status).toBe(201);
    return res.body.data as Variant;
  };
  const order = (items: object[], account = user) =>
    postOrder(t, account.token, { items, shipping_address: '1 Main St', payment_method: 'credit_card' });
  const fields = (res: request.Response) =>
    (res.body.data.errors as Array<{ field: string; rule: string }>).map((e) => `${e.field}:${e.rule}`);

  beforeAll(async () => {
    t = await startTestApp({ ...ADMIN_ENV, ORDER_MAX_PENDING_PER_USER: '1000' });
    admin = await loginAdmin(t);
    user = await createAccount(t);
  });

  afterAll(async () => {
    await t.close();
  });

  it('options are validated on the product: unique names and values, no blank value, at most 3', async () => {
    const product = await createProduct(t, admin.token);
    const put = (options: unknown) =>
      api().put(`/api/v1/products/${product.id}`).auth(admin.token, { type: 'bearer' }).send({ options });
    const repeated = await put([
      { name: 'Size', values: ['S', 's'] },
      { name: 'size', values: ['X'] },
    ]);
    expect(repeated.status).toBe(400);
    expect(fields(repeated)).toEqual(['options.0.values.1:unique', 'options.1.name:unique']);
    const blank = await put([{ name: 'Size', values: [' '] }]);
    expect(fields(blank)).toEqual(['options.0.values.0:length']);
    const empty = await put([{ name: 'Size', values: [] }]);
    expect(fields(empty)).toContain('options.0.values:arrayMinSize');
    const four = await put(['A', 'B', 'C', 'D'].map((name) => ({ name, values: ['x'] })));
    expect(fields(four)).toContain('options:arrayMaxSize');
    const rows = await t.dataSource.query('SELECT * FROM product_options WHERE product_id = ?', [product.id]);
    expect(rows).toEqual([]);
    // Set on create too, and shown by the detail.
    const created = await api()
      .post('/api/v1/products')
      .auth(admin.token, { type: 'bearer' })
      .send({ name: 'Mug', price: 5, category_id: 1, options: [{ name: 'Volume', values: ['250', '400'] }] })
      .expect(201);
    expect(created.body.data.options).toMatchObject([{ name: 'Volume', values: ['250', '400'] }]);
    expect(created.body.data.variants).toEqual([]);
  });

  it('variants CRUD: title from the option values, derived price and stock, soft delete', async () => {
    const productId = await tee();
    const red = await addVariant(productId, {
      options: { Size: 'M', Colour: 'Red' },
      price: 19.99,
      stock: 4,
    });
    expect(red).toMatchObject({
      title: 'M / Red',
      options: { Size: 'M', Colour: 'Red' },
      price: 19.99,
      stock: 4,
      is_active: true,
      image: '',
    });
    const blue = await addVariant(productId, {
      options: { Colour: 'Blue', Size: 'L' },
      price: 24.5,
      stock: 6,
      title: 'Large blue',
    });
    expect(blue.title).toBe('Large blue');
    // Derived: lowest active price, summed stock, on the product row (what list, sort and filters read).
    expect(await productRow(productId)).toEqual({ priceCents: 1999, stock: 10 });

    const detail = await api()
      .get(`/api/v1/products/${productId}`)
      .auth(user.token, { type: 'bearer' })
      .expect(200);
    expect(detail.body.data).toMatchObject({ price: 19.99, stock: 10 });
    expect(detail.body.data.variants.map((v: Variant) => v.id)).toEqual([red.id, blue.id]);

    const updated = await api()
      .put(`/api/v1/products/${productId}/variants/${red.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ options: { Size: 'S', Colour: 'Red' }, price: 30, is_active: false });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ title: 'S / Red', price: 30, is_active: false });
    expect(await productRow(productId)).toEqual({ priceCents: 2450, stock: 6 });
    // Users see active variants only; admins all of them.
    const forUser = await api()
      .get(`/api/v1/products/${productId}`)
      .auth(user.token, { type: 'bearer' })
      .expect(200);
    expect(forUser.body.data.variants.map((v: Variant) => v.id)).toEqual([blue.id]);
    const forAdmin = await api()
      .get(`/api/v1/products/${productId}`)
      .auth(admin.token, { type: 'bearer' })
      .expect(200);
    expect(forAdmin.body.data.variants).toHaveLength(2);

    await api()
      .delete(`/api/v1/products/${productId}/variants/${blue.id}`)
      .auth(admin.token, { type: 'bearer' })
      .expect(200);
    const [deleted] = await t.dataSource.query(
      'SELECT deleted_at, sku_key, option_key FROM product_variants WHERE id = ?',
      [blue.id],
    );
    expect(deleted.deleted_at).not.toBeNull();
    expect(deleted.sku_key).toBeNull();
    // No active variant left: the stock is 0, the price the last one.
    expect(await productRow(productId)).toEqual({ priceCents: 2450, stock: 0 });
    await api()
      .delete(`/api/v1/products/${productId}/variants/${blue.id}`)
      .auth(admin.token, { type: 'bearer' })
      .expect(404);
    // The deleted SKU and combination are free again.
    await addVariant(productId, { sku: blue.sku.toLowerCase(), options: { Colour: 'Blue', Size: 'L' } });
  });

  it('refuses values not matching the options, repeated combinations and SKUs (ignoring case)', async () => {
    const productId = await tee();
    const post = (body: object) =>
      api()
        .post(`/api/v1/products/${productId}/variants`)
        .auth(admin.token, { type: 'bearer' })
        .send({ sku: 'VAL-1', price: 1, ...body });
    const wrong = await post({ options: { Size: 'XL', Material: 'Wool' } });
    expect(wrong.status).toBe(400);
    expect(fields(wrong)).toEqual([
      'options.Material:knownOption',
      'options.Size:isIn',
      'options.Colour:required',
    ]);
    const badSku = await post({ sku: '-no spaces', options: { Size: 'S', Colour: 'Red' }, price: 0 });
    expect(fields(badSku)).toEqual(expect.arrayContaining(['sku:matches', 'price:min']));
    const first = await addVariant(productId, { sku: 'Tee-Red-S', options: { Size: 'S', Colour: 'Red' } });
    const sameSku = await post({ sku: 'TEE-red-s', options: { Size: 'M', Colour: 'Red' } });
    expect(fields(sameSku)).toEqual(['sku:unique']);
    const sameCombination = await post({ sku: 'OTHER-1', options: { Colour: 'Red', Size: 'S' } });
    expect(fields(sameCombination)).toEqual(['options:unique']);
    const count = await t.dataSource.query(
      'SELECT COUNT(*) AS n FROM product_variants WHERE product_id = ?',
      [productId],
    );
    expect(Number(count[0].n)).toBe(1);
    // Options cannot drop a value a live variant uses.
    const drop = await api()
      .put(`/api/v1/products/${productId}`)
      .auth(admin.token, { type: 'bearer' })
      .send({
        options: [
          { name: 'Size', values: ['M'] },
          { name: 'Colour', values: ['Red'] },
        ],
      });
    expect(fields(drop)).toEqual(['options:matchesVariants']);
    // 404s and ids.
    await api()
      .put(`/api/v1/products/999999/variants/${first.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({})
      .expect(404);
    const badId = await api()
      .put(`/api/v1/products/${productId}/variants/abc`)
      .auth(admin.token, { type: 'bearer' })
      .send({});
    expect(badId.status).toBe(400);
    expect(fields(badId)).toContain('variantId:isInt');
  });

  it('only admins write variants', async () => {
    const productId = await tee();
    const res = await api()
      .post(`/api/v1/products/${productId}/variants`)
      .auth(user.token, { type: 'bearer' })
      .send({ sku: 'USR-1', price: 1, options: { Size: 'S', Colour: 'Red' } });
    expect(res.status).toBe(403);
    await api().post(`/api/v1/products/${productId}/variants`).send({}).expect(401);
    const rows = await t.dataSource.query('SELECT id FROM product_variants WHERE product_id = ?', [
      productId,
    ]);
    expect(rows).toEqual([]);
  });

  it("refuses price and stock on the product's own PUT while it has active variants", async () => {
    const productId = await tee();
    await addVariant(productId, { options: { Size: 'S', Colour: 'Red' }, price: 8, stock: 3 });
    const res = await api()
      .put(`/api/v1/products/${productId}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ price: 1, stock: 99, name: 'Renamed' });
    expect(res.status).toBe(400);
    expect(fields(res)).toEqual(['price:derivedFromVariants', 'stock:derivedFromVariants']);
    const [row] = await t.dataSource.query('SELECT name FROM products WHERE id = ?', [productId]);
    expect(row.name).not.toBe('Renamed');
    expect(await productRow(productId)).toEqual({ priceCents: 800, stock: 3 });
    // A product without variants keeps its own price and stock.
    const simple = await createProduct(t, admin.token, { price: 3, stock: 2 });
    await api()
      .put(`/api/v1/products/${simple.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ price: 4, stock: 9 })
      .expect(200);
    expect(await productRow(simple.id)).toEqual({ priceCents: 400, stock: 9 });
  });

  it('orders by variant: snapshots of SKU and title, stock taken from the variant and the product', async () => {
    const productId = await tee();
    const m = await addVariant(productId, { options: { Size: 'M', Colour: 'Red' }, price: 12.5, stock: 5 });
    const l = await addVariant(productId, { options: { Size: 'L', Colour: 'Red' }, price: 15, stock: 5 });
    const simple = await createProduct(t, admin.token, { price: 2, stock: 10, name: 'Socks' });
    const placed = await order([
      { variant_id: m.id, quantity: 2 },
      { product_id: simple.id, quantity: 1 },
      { variant_id: l.id, product_id: productId, quantity: 1 },
      { variant_id: m.id, quantity: 1 },
    ]);
    expect(placed.status).toBe(201);
    expect(placed.body.data.total_amount).toBe(12.5 * 3 + 2 + 15);
    expect(await variantStock(m.id)).toBe(2);
    expect(await variantStock(l.id)).toBe(4);
    expect(await productRow(productId)).toEqual({ priceCents: 1250, stock: 6 });
    expect((await productRow(simple.id)).stock).toBe(9);
    // Later changes do not rewrite the order's items.
    await api()
      .put(`/api/v1/products/${productId}/variants/${m.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ sku: 'RENAMED-M', title: 'Renamed', price: 99 })
      .expect(200);
    const detail = await api()
      .get(`/api/v1/orders/${placed.body.data.id}`)
      .auth(user.token, { type: 'bearer' })
      .expect(200);
    const items = detail.body.data.items as Array<Record<string, unknown>>;
    expect(items.find((i) => i.variant_id === m.id)).toMatchObject({
      product_id: productId,
      sku: m.sku,
      variant_title: 'M / Red',
      quantity: 3,
      price: 12.5,
    });
    expect(items.find((i) => i.product_id === simple.id)).toMatchObject({
      variant_id: null,
      sku: null,
      variant_title: null,
      product_name: 'Socks',
    });

    // Cancellation gives the stock back to each variant and to the product, once.
    await api()
      .post(`/api/v1/orders/${placed.body.data.id}/cancel`)
      .auth(user.token, { type: 'bearer' })
      .expect(200);
    await api()
      .post(`/api/v1/orders/${placed.body.data.id}/cancel`)
      .auth(user.token, { type: 'bearer' })
      .expect(400);
    expect(await variantStock(m.id)).toBe(5);
    expect(await variantStock(l.id)).toBe(5);
    expect(await productRow(productId)).toEqual({ priceCents: 1500, stock: 10 });
    expect((await productRow(simple.id)).stock).toBe(10);
  });

  it('refuses orders by variant with a 400 naming the item, and writes nothing', async () => {
    const productId = await tee();
    const v = await addVariant(productId, { options: { Size: 'S', Colour: 'Blue' }, stock: 2 });
    const other = await createProduct(t, admin.token, { stock: 5 });
    const ordersBefore = await t.dataSource.query('SELECT COUNT(*) AS n FROM orders');
    const byProduct = await order([{ product_id: productId, quantity: 1 }]);
    expect(byProduct.status).toBe(400);
    expect(fields(byProduct)).toEqual(['items.0.variant_id:required']);
    const disagree = await order([
      { product_id: other.id, quantity: 1 },
      { product_id: other.id, variant_id: v.id, quantity: 1 },
    ]);
    expect(fields(disagree)).toEqual(['items.1.product_id:matchesVariant']);
    const unknown = await order([{ variant_id: 999999, quantity: 1 }]);
    expect(fields(unknown)).toEqual(['items.0.variant_id:variantExists']);
    const neither = await order([{ quantity: 1 }]);
    expect(fields(neither)).toEqual(['items.0.product_id:required']);
    const short = await order([
      { product_id: other.id, quantity: 1 },
      { variant_id: v.id, quantity: 3 },
    ]);
    expect(short.status).toBe(400);
    expect(short.body.data.details).toBe(
      `Variant ${v.id} of product ${productId} has insufficient stock: requested 3, available 2`,
    );
    await api()
      .put(`/api/v1/products/${productId}/variants/${v.id}`)
      .auth(admin.token, { type: 'bearer' })
      .send({ is_active: false });
    const inactive = await order([{ variant_id: v.id, quantity: 1 }]);
    expect(fields(inactive)).toEqual(['items:variantAvailable']);
    // All or nothing: no order, no stock moved.
    expect(await t.dataSource.query('SELECT COUNT(*) AS n FROM orders')).toEqual(ordersBefore);
    expect((await productRow(other.id)).stock).toBe(5);
    expect(await variantStock(v.id)).toBe(2);
    // With no active variant left, the product orders by product id again (its stock is then 0).
    const again = await order([{ product_id: productId, quantity: 1 }]);
    expect(again.body.data.details).toBe(
      `Product ${productId} has insufficient stock: requested 1, available 0`,
    );
  });

  it('an order for a simple product runs as many statements as before variants, the region, the price lists and the promotions (13 from BEGIN to COMMIT)', async () => {
    const product = await createProduct(t, admin.token, { stock: 5 });
    // The events before it dispatched, so that their statements are not counted.
    const undispatched = async () =>
      Number(
        (await t.dataSource.query('SELECT COUNT(*) AS n FROM outbox_events WHERE dispatched_at IS NULL'))[0]
          .n,
      );
    await eventually(async () => (await undispatched()) === 0);
    const logQuery = jest.spyOn(t.dataSource.logger, 'logQuery');
    await order([{ product_id: product.id, quantity: 1 }]).expect(201);
    // The order's own transaction: the statements of the query runner that wrote the order. Background jobs and
    // pollers log theirs meanwhile, transactions included, on other runners.
    const calls = logQuery.mock.calls;
    logQuery.mockRestore();
    const runner = calls.find(([sql]) => /^INSERT INTO [`"]?orders[`"]? /.test(sql))?.[2];
    expect(runner).toBeDefined();
    // The session check runs only when the session is not in the session cache (SESSION_CACHE_TTL_MS).
    const statements = calls
      .filter(([sql, , queryRunner]) => queryRunner === runner && !sql.includes('FROM sessions s'))
      .map(([sql]) => sql);
    // BEGIN, the region, take stock, names and prices, pending count, the price lists, the
    // automatic promotions, order, items, the event's owner and items, the outbox row, COMMIT (the event's dispatch
    // after the commit is not the order's). An order without taxes or promotions writes no tax line and takes no
    // use.
    expect(statements.slice(0, statements.indexOf('COMMIT') + 1)).toHaveLength(13);
  });
});
