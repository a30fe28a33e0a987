import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { sqlDatetime } from '../src/database/timestamps.js';
import { OrphanUploadRemoval } from '../src/upload/orphan-upload-removal.js';
import { UploadStorage } from '../src/upload/upload-storage.js';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { concurrentClient } from './support/http.js';
import { revertThrough } from './support/migrations.js';
import { sampleFile } from './support/multipart.js';
import { createProduct } from './support/products.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const ORPHAN_TTL_MS = 1000;

interface ProductBody {
  id: number;
  name: string;
  slug: string;
  image: string;
  images: Array<{ url: string; alt: string; position: number }>;
}

describe('product images, slugs, id batches and search over variants', () => {
  let t: TestApp;
  let admin: Account;
  let user: Account;
  const api = () => request(t.url);
  const asAdmin = (req: request.Test) => req.auth(admin.token, { type: 'bearer' });
  const post = (body: object) => asAdmin(api().post('/api/v1/products')).send(body);
  const put = (id: number, body: object) => asAdmin(api().put(`/api/v1/products/${id}`)).send(body);
  const read = async (id: number): Promise<ProductBody> =>
    (await asAdmin(api().get(`/api/v1/products/${id}`)).expect(200)).body.data;
  const base = { description: 'd', price: 5, stock: 3, category_id: 1 };

  /** The product_images rows of a product, as [path, alt, position]. */
  const imageRows = async (productId: number) =>
    (
      await t.dataSource.query(
        'SELECT path, alt, position FROM product_images WHERE product_id = ? ORDER BY position',
        [productId],
      )
    ).map((row: { path: string; alt: string; position: number | string }) => [
      row.path,
      row.alt,
      Number(row.position),
    ]);
  const productColumn = async (id: number, column: string) =>
    (await t.dataSource.query(`SELECT ${column} AS v FROM products WHERE id = ?`, [id]))[0].v;

  async function upload(owner: Account = admin): Promise<string> {
    const res = await api()
      .post('/api/v1/upload')
      .auth(owner.token, { type: 'bearer' })
      .attach('file', sampleFile('image/png', 1024), { filename: 'p.png', contentType: 'image/png' })
      .expect(200);
    return res.body.data.filename;
  }

  function expectFieldError(res: request.Response, field: string, rule: string): void {
    expect(res.status).toBe(400);
    expect(res.body.data.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field, rule })]));
  }

  beforeAll(async () => {
    t = await startTestApp({
      ...ADMIN_ENV,
      UPLOAD_ORPHAN_TTL: `${ORPHAN_TTL_MS / 1000}s`,
      UPLOAD_ORPHAN_INTERVAL: '24h', // the tests run the job themselves
      PRODUCT_TOTALS_TTL: '0',
    });
    admin = await loginAdmin(t);
    user = await createAccount(t);
  });

  afterAll(async () => {
    await t.close();
  });

  describe('images', () => {
    it('a create takes images in order: positions from 0, alt defaults to "", image is the first url', async () => {
      const [a, b, c] = [await upload(), await upload(), await upload()];
      const res = await post({
        ...base,
        name: 'Gallery',
        images: [{ url: b, alt: 'Front' }, { url: a }, { url: c, alt: 'Back' }],
      }).expect(201);
      const expected = [
        { url: b, alt: 'Front', position: 0 },
        { url: a, alt: '', position: 1 },
        { url: c, alt: 'Back', position: 2 },
      ];
      expect(res.body.data).toMatchObject({ image: b, images: expected });
      expect(await read(res.body.data.id)).toMatchObject({ image: b, images: expected });
      expect(await imageRows(res.body.data.id)).toEqual([
        [b, 'Front', 0],
        [a, '', 1],
        [c, 'Back', 2],
      ]);
      const list = await asAdmin(api().get(`/api/v1/products?ids=${res.body.data.id}`)).expect(200);
      expect(list.body.data[0].images).toMatchObject(expected);
    });

    it('a product without images has images [] and image ""', async () => {
      const created = await createProduct(t, admin.token, { name: 'Plain' });
      expect(await read(created.id)).toMatchObject({ image: '', images: [] });
      expect(await imageRows(created.id)).toEqual([]);
    });

    it('PUT images replaces the list and image follows; image alone replaces the first; "" removes it', async () => {
      const [a, b, c] = [await upload(), await upload(), await upload()];
      const { id } = await createProduct(t, admin.token, { name: 'Reordered' });
      await put(id, {
        images: [
          { url: a, alt: 'A' },
          { url: b, alt: 'B' },
        ],
      }).expect(200);
      const swapped = await put(id, {
        images: [
          { url: b, alt: 'B' },
          { url: a, alt: 'A' },
        ],
      }).expect(200);
      expect(swapped.body.data).toMatchObject({
        image: b,
        images: [
          { url: b, alt: 'B', position: 0 },
          { url: a, alt: 'A', position: 1 },
        ],
      });

      // The seed's way: `image` alone replaces the first image, the others stay.
      const replaced = await put(id, { image: c }).expect(200);
      expect(replaced.body.data.image).toBe(c);
      expect(await imageRows(id)).toEqual([
        [c, '', 0],
        [a, 'A', 1],
      ]);
      // Setting a later image as `image` moves it first, without a second copy.
      await put(id, { image: a }).expect(200);
      expect(await imageRows(id)).toEqual([[a, '', 0]]);
      await put(id, { images: [{ url: a }, { url: c }] }).expect(200);
      const removed = await put(id, { image: '' }).expect(200);
      expect(removed.body.data).toMatchObject({ image: c, images: [{ url: c, alt: '', position: 0 }] });
      await put(id, { images: [] }).expect(200);
      expect(await read(id)).toMatchObject({ image: '', images: [] });
      expect(await productColumn(id, 'image')).toBe('');
    });

    it('refuses image and images that disagree, a file not uploaded, a file twice, too many, a long alt: nothing changes', async () => {
      const [a, b] = [await upload(), await upload()];
      const { id } = await createProduct(t, admin.token, { name: 'Guarded' });
      await put(id, { images: [{ url: a, alt: 'kept' }] }).expect(200);
      const before = await read(id);

      expectFieldError(await put(id, { image: b, images: [{ url: a }] }), 'image', 'firstImage');
      const notUploaded = await put(id, { images: [{ url: b }, { url: '2020/01/abcdefgh12345678.png' }] });
      expectFieldError(notUploaded, 'images.1.url', 'uploadedFile');
      expect(notUploaded.body.data.details).toBe(
        'images.1.url must be the filename of a file uploaded through /upload',
      );
      expectFieldError(await put(id, { images: [{ url: a }, { url: a }] }), 'images.1.url', 'unique');
      expectFieldError(await put(id, { images: [{ url: 'x/../../etc' }] }), 'images.0.url', 'matches');
      const many = Array.from({ length: 21 }, () => ({ url: a }));
      expectFieldError(await put(id, { images: many }), 'images', 'arrayMaxSize');
      expectFieldError(
        await put(id, { images: [{ url: a, alt: 'x'.repeat(256) }] }),
        'images.0.alt',
        'maxLength',
      );
      expectFieldError(await put(id, { images: [null] }), 'images', 'isObject');
      expectFieldError(
        await post({ ...base, name: 'Refused', images: [{ url: '2020/01/abcdefgh12345678.png' }] }),
        'images.0.url',
        'uploadedFile',
      );
      const users = await api()
        .put(`/api/v1/products/${id}`)
        .auth(user.token, { type: 'bearer' })
        .send({ images: [{ url: b }] })
        .expect(403);
      expect(users.body.code).toBe(403);

      expect(await read(id)).toEqual(before);
      expect(await imageRows(id)).toEqual([[a, 'kept', 0]]);
      const named: Array<{ n: number | string }> = await t.dataSource.query(
        "SELECT COUNT(*) AS n FROM products WHERE name = 'Refused'",
      );
      expect(Number(named[0].n)).toBe(0);
    });

    it('refuses to delete an upload that is a later image of a product, naming it; allows it once removed', async () => {
      const owner = await createAccount(t);
      const [first, second] = [await upload(owner), await upload(owner)];
      const { id } = await createProduct(t, admin.token, { name: 'Shows two' });
      await put(id, { images: [{ url: first }, { url: second }] }).expect(200);

      const refused = await api()
        .delete(`/api/v1/uploads/${second}`)
        .auth(owner.token, { type: 'bearer' })
        .expect(400);
      const message = `the file is an image of product ${id}; remove it from that product's images first`;
      expect(refused.body.data).toEqual({
        details: message,
        errors: [{ field: 'filename', rule: 'inUse', message }],
      });
      expect(await t.app.get(UploadStorage).exists(second)).toBe(true);

      await put(id, { images: [{ url: first }] }).expect(200);
      await api().delete(`/api/v1/uploads/${second}`).auth(owner.token, { type: 'bearer' }).expect(200);
      expect(await t.app.get(UploadStorage).exists(second)).toBe(false);
    });

    it("the orphan job keeps every image's file and a live variant's image, and removes them once unused", async () => {
      const job = t.app.get(OrphanUploadRemoval);
      const later = () => new Date(Date.now() + ORPHAN_TTL_MS + 1000);
      const [first, second, variantImage, orphan] = [
        await upload(),
        await upload(),
        await upload(),
        await upload(),
      ];
      const { id } = await createProduct(t, admin.token, { name: 'Kept files' });
      await put(id, { images: [{ url: first }, { url: second }] }).expect(200);
      const variant = await asAdmin(api().post(`/api/v1/products/${id}/variants`))
        .send({ sku: 'KEPT-1', options: {}, price: 1, image: variantImage })
        .expect(201);
      expect(variant.body.data.image).toBe(variantImage);

      await job.run(later());
      const storage = t.app.get(UploadStorage);
      expect(await storage.exists(orphan)).toBe(false);
      for (const kept of [first, second, variantImage]) expect(await storage.exists(kept)).toBe(true);
      const refused = await api()
        .delete(`/api/v1/uploads/${variantImage}`)
        .auth(admin.token, { type: 'bearer' });
      expectFieldError(refused, 'filename', 'inUse');

      await asAdmin(api().delete(`/api/v1/products/${id}`)).expect(200);
      await job.run(later());
      for (const gone of [first, second, variantImage]) expect(await storage.exists(gone)).toBe(false);
    });
  });

  it('a variant image must be a stored upload (400 naming image, nothing written); "" clears it', async () => {
    const { id } = await createProduct(t, admin.token, { name: 'Variant images' });
    const missing = '2020/01/abcdefgh12345678.png';
    const refused = await asAdmin(api().post(`/api/v1/products/${id}/variants`)).send({
      sku: 'VIMG-1',
      options: {},
      price: 1,
      image: missing,
    });
    expectFieldError(refused, 'image', 'uploadedFile');
    const rows: Array<{ n: number | string }> = await t.dataSource.query(
      'SELECT COUNT(*) AS n FROM product_variants WHERE product_id = ?',
      [id],
    );
    expect(Number(rows[0].n)).toBe(0);

    const image = await upload();
    const created = await asAdmin(api().post(`/api/v1/products/${id}/variants`))
      .send({ sku: 'VIMG-1', options: {}, price: 1 })
      .expect(201);
    expect(created.body.data.image).toBe('');
    const variantUrl = `/api/v1/products/${id}/variants/${created.body.data.id}`;
    expect((await asAdmin(api().put(variantUrl)).send({ image }).expect(200)).body.data.image).toBe(image);
    expectFieldError(await asAdmin(api().put(variantUrl)).send({ image: missing }), 'image', 'uploadedFile');
    expectFieldError(await asAdmin(api().put(variantUrl)).send({ image: 'x.png' }), 'image', 'matches');
    expect((await read(id)) as unknown as { variants: Array<{ image: string }> }).toMatchObject({
      variants: [{ image }],
    });
    expect((await asAdmin(api().put(variantUrl)).send({ image: '' }).expect(200)).body.data.image).toBe('');
  });

  describe('slugs', () => {
    it('are generated from the name: lowercase ASCII, hyphens, a numeric suffix on a collision', async () => {
      const lamp = await post({ ...base, name: 'Desk Lamp' }).expect(201);
      const again = await post({ ...base, name: 'desk  lamp!' }).expect(201);
      const third = await post({ ...base, name: 'Desk-Lamp' }).expect(201);
      expect([lamp, again, third].map((res) => res.body.data.slug)).toEqual([
        'desk-lamp',
        'desk-lamp-2',
        'desk-lamp-3',
      ]);
      expect((await post({ ...base, name: 'Crème Brûlée, 250 g' }).expect(201)).body.data.slug).toBe(
        'creme-brulee-250-g',
      );
      expect((await post({ ...base, name: '2024' }).expect(201)).body.data.slug).toBe('product-2024');
      expect((await post({ ...base, name: '茶' }).expect(201)).body.data.slug).toBe('product');
      expect(await productColumn(lamp.body.data.id, 'slug')).toBe('desk-lamp');
    });

    it('are settable (upper case lowered), unique ignoring case, validated; a rename keeps the slug', async () => {
      const set = await post({ ...base, name: 'Reading light', slug: 'Reading-Light-XL' }).expect(201);
      expect(set.body.data.slug).toBe('reading-light-xl');
      const id = set.body.data.id;

      const taken = await post({ ...base, name: 'Other', slug: 'READING-light-xl' });
      expectFieldError(taken, 'slug', 'unique');
      expect(taken.body.data.details).toBe('slug reading-light-xl is taken by another product');
      for (const bad of ['a--b', '-a', '123', 'a b', 'a_b', 'ü-lamp', '']) {
        expectFieldError(
          await post({ ...base, name: 'Bad', slug: bad }),
          'slug',
          bad === '' ? 'minLength' : 'matches',
        );
      }
      const other = await createProduct(t, admin.token, { name: 'Other lamp' });
      expectFieldError(await put(other.id, { slug: 'reading-light-xl' }), 'slug', 'unique');
      expect(await productColumn(other.id, 'slug')).toBe('other-lamp');

      const renamed = await put(id, { name: 'Reading lamp' }).expect(200);
      expect(renamed.body.data.slug).toBe('reading-light-xl');
      expect((await put(id, { slug: 'reading-lamp' }).expect(200)).body.data.slug).toBe('reading-lamp');
    });

    it('GET /products?slug= gives the list of that product or an empty one; GET /products/{slug} reads it', async () => {
      const { body } = await post({ ...base, name: 'Standing Desk' }).expect(201);
      const found = await api()
        .get('/api/v1/products?slug=Standing-Desk')
        .auth(user.token, { type: 'bearer' })
        .expect(200);
      expect(found.body.data.map((p: ProductBody) => p.id)).toEqual([body.data.id]);
      expect(found.body.meta).toMatchObject({ page: 1, total: 1 });
      const none = await api()
        .get('/api/v1/products?slug=no-such-desk')
        .auth(user.token, { type: 'bearer' })
        .expect(200);
      expect(none.body).toMatchObject({ data: [], meta: { total: 0 } });

      const bySlug = await api()
        .get('/api/v1/products/standing-desk')
        .auth(user.token, { type: 'bearer' })
        .expect(200);
      expect(bySlug.body.data).toEqual(await read(body.data.id));
      await api().get('/api/v1/products/STANDING-DESK').auth(user.token, { type: 'bearer' }).expect(200);
      const missing = await api()
        .get('/api/v1/products/no-such-desk')
        .auth(user.token, { type: 'bearer' })
        .expect(404);
      expect(missing.body.data.details).toBe('Product no-such-desk not found');

      // An inactive product is as invisible to users by slug as by id.
      await put(body.data.id, { is_active: false }).expect(200);
      await api().get('/api/v1/products/standing-desk').auth(user.token, { type: 'bearer' }).expect(404);
      const hidden = await api()
        .get('/api/v1/products?slug=standing-desk')
        .auth(user.token, { type: 'bearer' })
        .expect(200);
      expect(hidden.body.data).toEqual([]);
      await asAdmin(api().get('/api/v1/products/standing-desk')).expect(200);
    });

    it('a deleted product gives its slug up', async () => {
      const { body } = await post({ ...base, name: 'Wall Clock' }).expect(201);
      await asAdmin(api().delete(`/api/v1/products/${body.data.id}`)).expect(200);
      expect(await productColumn(body.data.id, 'slug')).toBeNull();
      expect((await post({ ...base, name: 'Wall clock' }).expect(201)).body.data.slug).toBe('wall-clock');
    });

    it('concurrent creates of one name get distinct slugs', async () => {
      const agent = concurrentClient();
      try {
        const results = await Promise.all(
          Array.from({ length: 12 }, () => post({ ...base, name: 'Same Name' }).agent(agent)),
        );
        expect(results.map((res) => res.status)).toEqual(Array(12).fill(201));
        const slugs = results.map((res) => (res.body as { data: ProductBody }).data.slug);
        expect(new Set(slugs)).toEqual(
          new Set(['same-name', ...Array.from({ length: 11 }, (_, i) => `same-name-${i + 2}`)]),
        );
      } finally {
        agent.destroy();
      }
    });
  });

  describe('GET /products?ids=', () => {
    it('gives the visible products of the ids in the order asked, unknown, repeated and hidden ones left out', async () => {
      const a = await createProduct(t, admin.token, { name: 'Batch A', price: 30 });
      const b = await createProduct(t, admin.token, { name: 'Batch B', price: 10 });
      const c = await createProduct(t, admin.token, { name: 'Batch C', price: 20 });
      await put(b.id, { is_active: false }).expect(200);
      const asked = `${c.id},999999,${a.id},${b.id},${c.id}`;

      const users = await api()
        .get(`/api/v1/products?ids=${asked}`)
        .auth(user.token, { type: 'bearer' })
        .expect(200);
      expect(users.body.data.map((p: ProductBody) => p.id)).toEqual([c.id, a.id]);
      expect(users.body.meta).toEqual({ page: 1, page_size: 4, total: 2, total_page: 1, next_cursor: null });
      const admins = await asAdmin(api().get(`/api/v1/products?ids=${asked}`)).expect(200);
      expect(admins.body.data.map((p: ProductBody) => p.id)).toEqual([c.id, a.id, b.id]);

      const byPrice = await asAdmin(api().get(`/api/v1/products?ids=${asked}&sort=price`)).expect(200);
      expect(byPrice.body.data.map((p: ProductBody) => p.id)).toEqual([b.id, c.id, a.id]);
      const filtered = await asAdmin(api().get(`/api/v1/products?ids=${asked}&min_price=25`)).expect(200);
      expect(filtered.body.data.map((p: ProductBody) => p.id)).toEqual([a.id]);
    });

    it('refuses more ids than PAGE_SIZE_MAX, non-integers, 0, a cursor: 400 naming the field', async () => {
      const max = t.config.pageSizeMax;
      const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1).join(',');
      await asAdmin(api().get(`/api/v1/products?ids=${ids(max)}`)).expect(200);
      const tooMany = await asAdmin(api().get(`/api/v1/products?ids=${ids(max + 1)}`));
      expectFieldError(tooMany, 'ids', 'maxItems');
      expect(tooMany.body.data.details).toBe(`ids must name at most ${max} products`);
      for (const bad of ['1,a', '1,,2', '1.5', '-1', ' 1', '1,']) {
        expectFieldError(
          await asAdmin(api().get(`/api/v1/products?ids=${encodeURIComponent(bad)}`)),
          'ids',
          'matches',
        );
      }
      expectFieldError(await asAdmin(api().get('/api/v1/products?ids=0')), 'ids', 'isId');
      expectFieldError(await asAdmin(api().get('/api/v1/products?ids=2147483648')), 'ids', 'isId');
      expectFieldError(await asAdmin(api().get('/api/v1/products?ids=1&cursor=abc')), 'cursor', 'cursorIds');
    });
  });

  describe('search over variant SKUs and titles', () => {
    const variants = (productId: number) => `/api/v1/products/${productId}/variants`;
    const searchIds = async (text: string) =>
      (
        await api()
          .get(`/api/v1/products?search=${encodeURIComponent(text)}`)
          .auth(user.token, { type: 'bearer' })
          .expect(200)
      ).body.data.map((p: ProductBody) => p.id);

    it('finds a product by a full SKU, its parts, its joined form and a variant title, as variants change', async () => {
      const shirt = await createProduct(t, admin.token, { name: 'Cotton tee', description: 'Soft' });
      const other = await createProduct(t, admin.token, { name: 'Cotton socks', description: 'Warm' });
      await put(shirt.id, { options: [{ name: 'Size', values: ['M', 'L'] }] }).expect(200);
      const medium = await asAdmin(api().post(variants(shirt.id)))
        .send({ sku: 'TSHIRT-BLK-M', title: 'Black Medium', options: { Size: 'M' }, price: 20, stock: 2 })
        .expect(201);
      await asAdmin(api().post(variants(other.id)))
        .send({ sku: 'SOCK-WHT-L', title: 'White Large', options: {}, price: 5 })
        .expect(201);

      for (const text of [
        'TSHIRT-BLK-M',
        'tshirt-blk-m',
        'tshirt_blk_m',
        'blk',
        'TSHIRT',
        'black medium',
        'cotton blk',
      ]) {
        expect(await searchIds(text)).toEqual([shirt.id]);
      }
      expect(await searchIds('SOCK-WHT')).toEqual([other.id]);
      expect((await searchIds('cotton')).sort((x: number, y: number) => x - y)).toEqual([shirt.id, other.id]);

      // A changed SKU is found by its new form only; a deleted variant by neither.
      await asAdmin(api().put(`${variants(shirt.id)}/${medium.body.data.id}`))
        .send({ sku: 'TSHIRT-NVY-M', title: 'Navy Medium' })
        .expect(200);
      expect(await searchIds('TSHIRT-BLK-M')).toEqual([]);
      expect(await searchIds('navy')).toEqual([shirt.id]);
      await asAdmin(api().delete(`${variants(shirt.id)}/${medium.body.data.id}`)).expect(200);
      expect(await searchIds('TSHIRT-NVY-M')).toEqual([]);
      expect(await searchIds('navy')).toEqual([]);
      expect(await productColumn(shirt.id, 'search_text')).toBeNull();
    });

    it('stays exact under concurrent variant writes of one product', async () => {
      const { id } = await createProduct(t, admin.token, { name: 'Many sizes' });
      const sizes = Array.from({ length: 8 }, (_, i) => `S${i}`);
      await put(id, { options: [{ name: 'Size', values: sizes }] }).expect(200);
      const agent = concurrentClient();
      try {
        const created = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            asAdmin(api().post(variants(id)))
              .send({ sku: `MANY-${i}`, options: { Size: sizes[i] }, price: 1 })
              .agent(agent),
          ),
        );
        expect(created.map((res) => res.status)).toEqual(Array(8).fill(201));
      } finally {
        agent.destroy();
      }
      for (let i = 0; i < 8; i += 1) expect(await searchIds(`MANY-${i}`)).toEqual([id]);
      const text: string = await productColumn(id, 'search_text');
      expect(
        text
          .split(' ')
          .filter((word) => /^MANY-\d$/.test(word))
          .sort(),
      ).toEqual(Array.from({ length: 8 }, (_, i) => `MANY-${i}`));
    });
  });

  describe('the migration on an existing catalogue', () => {
    it('reverts and applies again: slugs backfilled in id order, image as first image, search text from variants', async () => {
      const migration = 'AddProductImagesSlugsAndSearchText1763802400000';
      const image = await upload();
      await revertThrough(t.dataSource, migration);
      const names: Array<{ name: string }> = await t.dataSource.query(
        'SELECT name FROM migrations ORDER BY id DESC LIMIT 1',
      );
      expect(names[0].name).not.toBe(migration);

      const insert = async (name: string, extra = ''): Promise<number> => {
        await t.dataSource.query(
          `INSERT INTO products (name, description, price_cents, stock, category_id, image${extra === '' ? '' : ', deleted_at'}) ` +
            `VALUES (?, 'old', 100, 1, 1, ?${extra === '' ? '' : ', ?'})`,
          extra === '' ? [name, name === 'Old Lamp' ? image : ''] : [name, '', extra],
        );
        const [row] = await t.dataSource.query('SELECT MAX(id) AS id FROM products');
        return Number(row.id);
      };
      const first = await insert('Old Lamp');
      const second = await insert('old lamp');
      const deleted = await insert('Old Lamp', sqlDatetime(new Date()));
      await t.dataSource.query(
        'INSERT INTO product_variants (product_id, sku, sku_key, title, options, option_key, price_cents, stock) ' +
          "VALUES (?, 'OLD-LMP-1', 'old-lmp-1', 'Brass finish', '{}', 'o', 100, 1)",
        [second],
      );

      await t.dataSource.runMigrations({ transaction: 'each' });
      const slugOf = (id: number) => productColumn(id, 'slug');
      expect(await slugOf(first)).toBe('old-lamp');
      expect(await slugOf(second)).toBe('old-lamp-2');
      expect(await slugOf(deleted)).toBeNull();
      const live: Array<{ slug: string | null }> = await t.dataSource.query(
        'SELECT slug FROM products WHERE deleted_at IS NULL',
      );
      expect(live.every((row) => row.slug !== null)).toBe(true);
      expect(new Set(live.map((row) => row.slug)).size).toBe(live.length);
      expect(await imageRows(first)).toEqual([[image, '', 0]]);
      expect(await read(first)).toMatchObject({ image, images: [{ url: image, alt: '', position: 0 }] });

      const search = async (text: string) =>
        (
          await asAdmin(api().get(`/api/v1/products?search=${encodeURIComponent(text)}`)).expect(200)
        ).body.data.map((p: ProductBody) => p.id);
      expect(await search('OLD-LMP-1')).toEqual([second]);
      expect(await search('brass')).toEqual([second]);
      // The full-text index still indexes every word (no stopwords) and new products are still indexed.
      const fresh = await post({ ...base, name: 'Lamp with a shade' }).expect(201);
      expect(await search('with a shade')).toEqual([fresh.body.data.id]);
    });
  });
});
