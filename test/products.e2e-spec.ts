import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { ProductsService } from '../src/products/products.service.js';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { sampleFile } from './support/multipart.js';
import { createProduct } from './support/products.js';
import { startTestApp, TestApp } from './support/test-app.js';

/** The fields a product answer carries; new fields may join them. */
const PRODUCT_FIELDS = [
  'id',
  'name',
  'description',
  'price',
  'stock',
  'category_id',
  'image',
  'images',
  'slug',
  'is_active',
  'created_at',
  'updated_at',
  // The detail's (a create answers with it): [] for a product without options and variants.
  'options',
  'variants',
].sort();

describe('products', () => {
  let t: TestApp;
  let admin: Account;
  let user: Account;

  const api = () => request(t.url);
  const productRow = async (id: number) =>
    (
      await t.dataSource.query(
        'SELECT name, description, price_cents, stock, category_id, image, is_active, deleted_at FROM products WHERE id = ?',
        [id],
      )
    )[0];
  const countProducts = async () =>
    Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM products'))[0].n);

  beforeAll(async () => {
    t = await startTestApp(ADMIN_ENV);
    admin = await loginAdmin(t);
    user = await createAccount(t);
  });

  afterAll(async () => {
    await t.close();
  });

  describe('writes are for admins only', () => {
    it('POST /products: admin 201 with the new product, user 403 and nothing written', async () => {
      const before = await countProducts();
      const denied = await api()
        .post('/api/v1/products')
        .auth(user.token, { type: 'bearer' })
        .send({ name: 'Mug', price: 5, stock: 1, category_id: 1 })
        .expect(403);
      expect(denied.body).toEqual({
        code: 403,
        message: 'Forbidden',
        data: { details: 'Insufficient permission' },
      });
      expect(await countProducts()).toBe(before);

      const res = await api()
        .post('/api/v1/products')
        .auth(admin.token, { type: 'bearer' })
        .send({ name: 'Mug', description: 'Stoneware', price: 12.5, stock: 7, category_id: 4 })
        .expect(201);
      expect(res.body.code).toBe(201);
      expect(Object.keys(res.body.data)).toEqual(expect.arrayContaining(PRODUCT_FIELDS));
      expect(res.body.data).toMatchObject({
        options: [],
        variants: [],
        name: 'Mug',
        description: 'Stoneware',
        price: 12.5,
        stock: 7,
        category_id: 4,
        image: '',
        is_active: true,
      });
      expect(await productRow(res.body.data.id)).toMatchObject({
        price_cents: 1250,
        stock: 7,
        category_id: 4,
      });
    });

    it('PUT /products/{id}: user 403 and unchanged, admin 200', async () => {
      const product = await createProduct(t, admin.token, { name: 'Original' });
      await api()
        .put(`/api/v1/products/${product.id}`)
        .auth(user.token, { type: 'bearer' })
        .send({ name: 'Hacked' })
        .expect(403);
      expect((await productRow(product.id)).name).toBe('Original');
      const res = await api()
        .put(`/api/v1/products/${product.id}`)
        .auth(admin.token, { type: 'bearer' })
        .send({ name: 'Renamed' })
        .expect(200);
      expect(res.body.data.name).toBe('Renamed');
      expect((await productRow(product.id)).name).toBe('Renamed');
    });

    it('DELETE /products/{id}: user 403 and kept, admin 200 with data null', async () => {
      const product = await createProduct(t, admin.token);
      await api().delete(`/api/v1/products/${product.id}`).auth(user.token, { type: 'bearer' }).expect(403);
      expect((await productRow(product.id)).deleted_at).toBeNull();
      const res = await api()
        .delete(`/api/v1/products/${product.id}`)
        .auth(admin.token, { type: 'bearer' })
        .expect(200);
      expect(res.body).toEqual({ code: 200, message: 'OK', data: null });
      expect((await productRow(product.id)).deleted_at).not.toBeNull();
    });
  });

  describe('money is exact', () => {
    it.each([
      [19.99, 1999],
      [0.1, 10],
      [0.01, 1],
      [9999999.99, 999999999],
    ])('price %p round-trips exactly (stored as %p cents)', async (price, cents) => {
      const created = await createProduct(t, admin.token, { price });
      expect(created.price).toBe(price);
      expect((await productRow(created.id)).price_cents).toBe(cents);
      const read = await api()
        .get(`/api/v1/products/${created.id}`)
        .auth(user.token, { type: 'bearer' })
        .expect(200);
      expect(read.body.data.price).toBe(price);
    });
  });

  describe('validation', () => {
    const valid = { name: 'Valid', description: 'd', price: 1, stock: 1, category_id: 1 };
    it.each([
      ['name missing', { name: undefined }, 'name must be longer than or equal to 1 characters'],
      ['name empty', { name: '' }, 'name must be longer than or equal to 1 characters'],
      ['name too long', { name: 'n'.repeat(201) }, 'name must be shorter than or equal to 200 characters'],
      [
        'description too long',
        { description: 'd'.repeat(5001) },
        'description must be shorter than or equal to 5000 characters',
      ],
      ['price zero', { price: 0 }, 'price must not be less than 0.01'],
      ['price negative', { price: -5 }, 'price must not be less than 0.01'],
      ['price with 3 decimals', { price: 1.005 }, 'price must be a number with at most 2 decimal places'],
      ['price in exponent form', { price: 1e-7 }, 'price must be a number with at most 2 decimal places'],
      ['price as a string', { price: '19.99' }, 'price must be a number with at most 2 decimal places'],
      ['price too large', { price: 10_000_000 }, 'price must not be greater than 9999999.99'],
      ['stock negative', { stock: -1 }, 'stock must not be less than 0'],
      ['stock fractional', { stock: 1.5 }, 'stock must be an integer number'],
      ['category_id zero', { category_id: 0 }, 'category_id must not be less than 1'],
      ['category_id a string', { category_id: 'x' }, 'category_id must be an integer number'],
      ['image on create', { image: '2026/11/abcdefgh.png' }, 'property image should not exist'],
      ['unknown field', { colour: 'red' }, 'property colour should not exist'],
    ])('POST refuses %s with 400 naming the field and rule', async (_case, change, details) => {
      const before = await countProducts();
      const res = await api()
        .post('/api/v1/products')
        .auth(admin.token, { type: 'bearer' })
        .send({ ...valid, ...change })
        .expect(400);
      expect(res.body.data.details).toContain(details);
      expect(await countProducts()).toBe(before);
    });

    it('PUT validates the same rules and leaves the product unchanged', async () => {
      const product = await createProduct(t, admin.token, { price: 3 });
      for (const body of [
        { price: 0.001 },
        { stock: -3 },
        { image: '../../etc/passwd' },
        { is_active: 'no' },
        { id: 9 },
      ]) {
        const res = await api()
          .put(`/api/v1/products/${product.id}`)
          .auth(admin.token, { type: 'bearer' })
          .send(body)
          .expect(400);
        expect(res.body.data.details).toMatch(new RegExp(Object.keys(body)[0]));
      }
      expect(await productRow(product.id)).toMatchObject({ price_cents: 300, stock: 100, image: '' });
    });
  });

  describe('partial update', () => {
    it('changes only the fields sent, may set category_id, image and is_active, and moves updated_at', async () => {
      const product = await createProduct(t, admin.token, {
        name: 'Lamp',
        price: 40,
        stock: 3,
        category_id: 2,
      });
      const before = await api().get(`/api/v1/products/${product.id}`).auth(admin.token, { type: 'bearer' });
      const uploaded = await api()
        .post('/api/v1/upload')
        .auth(admin.token, { type: 'bearer' })
        .attach('file', sampleFile('image/png'), { filename: 'lamp.png', contentType: 'image/png' })
        .expect(200);
      const image: string = uploaded.body.data.filename;
      const res = await api()
        .put(`/api/v1/products/${product.id}`)
        .auth(admin.token, { type: 'bearer' })
        .send({ price: 0.1, category_id: 9, image, is_active: false })
        .expect(200);
      expect(res.body.data).toMatchObject({
        name: 'Lamp',
        price: 0.1,
        stock: 3,
        category_id: 9,
        image,
        is_active: false,
      });
      expect(Date.parse(res.body.data.updated_at)).toBeGreaterThan(Date.parse(before.body.data.updated_at));
      expect(await productRow(product.id)).toMatchObject({
        name: 'Lamp',
        price_cents: 10,
        category_id: 9,
        image,
      });
    });

    it('image must name a file stored by /upload; "" clears it', async () => {
      const product = await createProduct(t, admin.token);
      const res = await api()
        .put(`/api/v1/products/${product.id}`)
        .auth(admin.token, { type: 'bearer' })
        .send({ image: '2026/11/0123456789abcdef0123456789abcdef.png' })
        .expect(400);
      expect(res.body.data.details).toBe('image must be the filename of a file uploaded through /upload');
      expect((await productRow(product.id)).image).toBe('');
      await api()
        .put(`/api/v1/products/${product.id}`)
        .auth(admin.token, { type: 'bearer' })
        .send({ image: '' })
        .expect(200);
    });

    it('404 for a product that does not exist or was deleted', async () => {
      await api()
        .put('/api/v1/products/987654')
        .auth(admin.token, { type: 'bearer' })
        .send({ name: 'x' })
        .expect(404);
      const product = await createProduct(t, admin.token);
      await api().delete(`/api/v1/products/${product.id}`).auth(admin.token, { type: 'bearer' }).expect(200);
      await api()
        .put(`/api/v1/products/${product.id}`)
        .auth(admin.token, { type: 'bearer' })
        .send({ name: 'x' })
        .expect(404);
      await api().delete(`/api/v1/products/${product.id}`).auth(admin.token, { type: 'bearer' }).expect(404);
    });
  });

  describe('visibility', () => {
    let inactive: { id: number };
    let deleted: { id: number };

    beforeAll(async () => {
      inactive = await createProduct(t, admin.token, { name: 'Hidden gem', category_id: 77 });
      await api()
        .put(`/api/v1/products/${inactive.id}`)
        .auth(admin.token, { type: 'bearer' })
        .send({ is_active: false });
      deleted = await createProduct(t, admin.token, { name: 'Gone gem', category_id: 77 });
      await api().delete(`/api/v1/products/${deleted.id}`).auth(admin.token, { type: 'bearer' });
      await createProduct(t, admin.token, { name: 'Visible gem', category_id: 77 });
    });

    it('an inactive product is 404 for users and visible to admins', async () => {
      const res = await api()
        .get(`/api/v1/products/${inactive.id}`)
        .auth(user.token, { type: 'bearer' })
        .expect(404);
      expect(res.body).toEqual({
        code: 404,
        message: 'Not Found',
        data: { details: `Product ${inactive.id} not found` },
      });
      const byAdmin = await api()
        .get(`/api/v1/products/${inactive.id}`)
        .auth(admin.token, { type: 'bearer' })
        .expect(200);
      expect(byAdmin.body.data.is_active).toBe(false);
    });

    it('a soft-deleted product is 404 for everyone but stays in the table', async () => {
      await api().get(`/api/v1/products/${deleted.id}`).auth(user.token, { type: 'bearer' }).expect(404);
      await api().get(`/api/v1/products/${deleted.id}`).auth(admin.token, { type: 'bearer' }).expect(404);
      expect((await productRow(deleted.id)).name).toBe('Gone gem');
    });

    it('lists hide inactive products from users; admins see them and filter by is_active', async () => {
      const names = (res: request.Response) => res.body.data.map((p: { name: string }) => p.name);
      const forUser = await api()
        .get('/api/v1/products?category_id=77')
        .auth(user.token, { type: 'bearer' })
        .expect(200);
      expect(names(forUser)).toEqual(['Visible gem']);
      expect(forUser.body.meta.total).toBe(1);
      const forAdmin = await api()
        .get('/api/v1/products?category_id=77')
        .auth(admin.token, { type: 'bearer' })
        .expect(200);
      expect(names(forAdmin)).toEqual(['Hidden gem', 'Visible gem']);
      const onlyInactive = await api()
        .get('/api/v1/products?category_id=77&is_active=false')
        .auth(admin.token, { type: 'bearer' })
        .expect(200);
      expect(names(onlyInactive)).toEqual(['Hidden gem']);
      const denied = await api()
        .get('/api/v1/products?is_active=false')
        .auth(user.token, { type: 'bearer' })
        .expect(403);
      expect(denied.body.data.details).toBe('Only an admin may filter by is_active');
    });
  });

  describe('list filters, search and sort', () => {
    const CATEGORY = 500;
    const ids: Record<string, number> = {};

    beforeAll(async () => {
      for (const [name, description, price, stock] of [
        ['Alpha 100% cotton', 'shirt', 25, 5],
        ['Beta_shirt', 'plain', 9.99, 0],
        ['Gamma', 'Contains 100% wool', 120, 2],
        ['Delta', 'underscore_in_text', 0.5, 10],
      ] as const) {
        ids[name] = (
          await createProduct(t, admin.token, { name, description, price, stock, category_id: CATEGORY })
        ).id;
      }
    });

    const list = async (query: string) => {
      const res = await api()
        .get(`/api/v1/products?category_id=${CATEGORY}&${query}`)
        .auth(user.token, { type: 'bearer' })
        .expect(200);
      return res.body as { data: Array<{ name: string; price: number }>; meta: Record<string, number> };
    };
    const names = (body: { data: Array<{ name: string }> }) => body.data.map((p) => p.name);

    it('orders by id by default', async () => {
      expect(names(await list(''))).toEqual(['Alpha 100% cotton', 'Beta_shirt', 'Gamma', 'Delta']);
    });

    it('searches words of name and description ignoring case, the last word as a prefix, % and _ literal', async () => {
      expect(names(await list('search=SHIRT&sort=id'))).toEqual(['Alpha 100% cotton']);
      expect(names(await list('search=bet'))).toEqual(['Beta_shirt']);
      expect(names(await list(`search=${encodeURIComponent('100%')}&sort=id`))).toEqual([
        'Alpha 100% cotton',
        'Gamma',
      ]);
      expect(names(await list(`search=${encodeURIComponent('0%')}`))).toEqual([]);
      expect(names(await list('search=a_s'))).toEqual([]);
      expect(names(await list('search=underscore_in'))).toEqual(['Delta']);
    });

    it('filters by price range and stock', async () => {
      expect(names(await list('min_price=9.99&max_price=25'))).toEqual(['Alpha 100% cotton', 'Beta_shirt']);
      expect(names(await list('min_price=100'))).toEqual(['Gamma']);
      expect(names(await list('in_stock=true'))).toEqual(['Alpha 100% cotton', 'Gamma', 'Delta']);
      expect(names(await list('in_stock=false'))).toEqual(['Beta_shirt']);
    });

    it('max_stock lists low stock (stock at most the number), combined with in_stock, and counts it live', async () => {
      expect(names(await list('max_stock=5'))).toEqual(['Alpha 100% cotton', 'Beta_shirt', 'Gamma']);
      const low = await list('max_stock=5&in_stock=true');
      expect(names(low)).toEqual(['Alpha 100% cotton', 'Gamma']);
      expect(low.meta.total).toBe(2);
      // Stock moves with orders without a catalogue write: the total is counted again, not reused.
      await t.dataSource.query('UPDATE products SET stock = 1 WHERE id = ?', [ids['Delta']]);
      const after = await list('max_stock=5&in_stock=true');
      expect(names(after)).toEqual(['Alpha 100% cotton', 'Gamma', 'Delta']);
      expect(after.meta.total).toBe(3);
      await t.dataSource.query('UPDATE products SET stock = 10 WHERE id = ?', [ids['Delta']]);
    });

    it.each([
      ['price', ['Delta', 'Beta_shirt', 'Alpha 100% cotton', 'Gamma']],
      ['-price', ['Gamma', 'Alpha 100% cotton', 'Beta_shirt', 'Delta']],
      ['name', ['Alpha 100% cotton', 'Beta_shirt', 'Delta', 'Gamma']],
      ['-name', ['Gamma', 'Delta', 'Beta_shirt', 'Alpha 100% cotton']],
      ['-id', ['Delta', 'Gamma', 'Beta_shirt', 'Alpha 100% cotton']],
      ['created_at', ['Alpha 100% cotton', 'Beta_shirt', 'Gamma', 'Delta']],
      ['-created_at', ['Delta', 'Gamma', 'Beta_shirt', 'Alpha 100% cotton']],
    ])('sort=%s', async (sort, expected) => {
      expect(names(await list(`sort=${sort}`))).toEqual(expected);
    });

    it('paginates with true meta, also past the last page', async () => {
      const second = await list('page=2&page_size=3');
      expect(names(second)).toEqual(['Delta']);
      expect(second.meta).toEqual({ page: 2, page_size: 3, total: 4, total_page: 2, next_cursor: null });
      const past = await list('page=5&page_size=3');
      expect(past.data).toEqual([]);
      expect(past.meta).toEqual({ page: 5, page_size: 3, total: 4, total_page: 2, next_cursor: null });
    });

    it.each([
      ['category_id=abc', 'category_id must be an integer number'],
      ['min_price=-1', 'min_price must be a number with at most 2 decimal places'],
      ['max_price=1.234', 'max_price must be a number with at most 2 decimal places'],
      ['min_price=10&max_price=5', 'min_price must not be greater than max_price'],
      ['in_stock=maybe', 'in_stock must be a boolean value'],
      ['max_stock=-1', 'max_stock must not be less than 0'],
      ['max_stock=2.5', 'max_stock must be an integer number'],
      ['sort=stock', 'sort must be one of the following values'],
      ['page_size=1000', 'page_size must not be greater than 100'],
    ])('refuses %s with 400', async (query, details) => {
      const res = await api()
        .get(`/api/v1/products?${query}`)
        .auth(user.token, { type: 'bearer' })
        .expect(400);
      expect(res.body.data.details).toContain(details);
    });
  });

  describe('stock reservation used by orders', () => {
    const inTransaction = <T>(work: (manager: import('typeorm').EntityManager) => Promise<T>) =>
      t.dataSource.transaction(work);

    it('takes stock atomically in the caller transaction and returns name and price', async () => {
      const a = await createProduct(t, admin.token, { name: 'Res A', price: 2.5, stock: 5 });
      const b = await createProduct(t, admin.token, { name: 'Res B', price: 1, stock: 1 });
      const service = t.app.get(ProductsService);
      const reserved = await inTransaction((m) =>
        service.reserveStock(m, [
          { productId: b.id, quantity: 1 },
          { productId: a.id, quantity: 5 },
        ]),
      );
      expect(reserved[1]).toEqual({
        productId: a.id,
        variantId: null,
        name: 'Res A',
        priceCents: 250,
        prices: null,
        taxClass: 'standard',
        sku: null,
        variantTitle: null,
      });
      expect((await productRow(a.id)).stock).toBe(0);
      expect((await productRow(b.id)).stock).toBe(0);
    });

    it('refuses short, inactive and missing products with a 400 naming them, and the transaction rolls back', async () => {
      const ok = await createProduct(t, admin.token, { stock: 10 });
      const short = await createProduct(t, admin.token, { stock: 2 });
      const service = t.app.get(ProductsService);
      await expect(
        inTransaction((m) =>
          service.reserveStock(m, [
            { productId: ok.id, quantity: 4 },
            { productId: short.id, quantity: 3 },
          ]),
        ),
      ).rejects.toThrow(`Product ${short.id} has insufficient stock: requested 3, available 2`);
      expect((await productRow(ok.id)).stock).toBe(10);
      await expect(
        inTransaction((m) => service.reserveStock(m, [{ productId: 999999, quantity: 1 }])),
      ).rejects.toThrow('Product 999999 not found');
      await api()
        .put(`/api/v1/products/${ok.id}`)
        .auth(admin.token, { type: 'bearer' })
        .send({ is_active: false });
      await expect(
        inTransaction((m) => service.reserveStock(m, [{ productId: ok.id, quantity: 1 }])),
      ).rejects.toThrow(`Product ${ok.id} is not available`);
      expect((await productRow(ok.id)).stock).toBe(10);
    });

    it('gives stock back', async () => {
      const product = await createProduct(t, admin.token, { stock: 1 });
      await inTransaction((m) =>
        t.app.get(ProductsService).releaseStock(m, [{ productId: product.id, quantity: 4 }]),
      );
      expect((await productRow(product.id)).stock).toBe(5);
    });
  });

  describe('bad input never produces a 500', () => {
    it('GET /products/abc looks for the slug abc (404); PUT and DELETE take ids only (400 naming id)', async () => {
      const read = await api().get('/api/v1/products/abc').auth(admin.token, { type: 'bearer' }).expect(404);
      expect(read.body.data.details).toBe('Product abc not found');
      for (const method of ['put', 'delete'] as const) {
        const res = await api()
          [method]('/api/v1/products/abc')
          .auth(admin.token, { type: 'bearer' })
          .send({});
        expect(res.status).toBe(400);
        expect(res.body.data.details).toMatch(/^id /);
      }
    });

    it.each(['-1', '0', '1.5', '99999999999', '%20', 'a_b'])(
      'GET/PUT/DELETE /products/%s is 400 naming id',
      async (id) => {
        for (const method of ['get', 'put', 'delete'] as const) {
          const res = await api()
            [method](`/api/v1/products/${id}`)
            .auth(admin.token, { type: 'bearer' })
            .send({});
          expect(res.status).toBe(400);
          expect(res.body.data.details).toMatch(/^id /);
        }
      },
    );

    it('wrong types and oversized values on create are 400', async () => {
      for (const body of [
        { name: 'x'.repeat(100_000), price: 1, category_id: 1 },
        { name: null, price: null, category_id: null },
        { name: ['a'], price: {}, category_id: [] },
        [1, 2],
      ]) {
        const res = await api()
          .post('/api/v1/products')
          .auth(admin.token, { type: 'bearer' })
          .send(body as object);
        expect(res.status).toBe(400);
      }
    });
  });
});
