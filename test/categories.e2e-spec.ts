import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { concurrentClient } from './support/http.js';
import { expectLockRetries } from './support/lock-retry-detector.js';
import { createProduct } from './support/products.js';
import { startTestApp, TestApp } from './support/test-app.js';

/** The fields a category answer carries; new fields may join them. */
const CATEGORY_FIELDS = [
  'id',
  'name',
  'slug',
  'parent_id',
  'description',
  'position',
  'is_active',
  'created_at',
  'updated_at',
].sort();

describe('categories', () => {
  let t: TestApp;
  let admin: Account;
  let user: Account;

  const api = () => request(t.url);
  const categoryRow = async (id: number) =>
    (
      await t.dataSource.query(
        'SELECT id, name, slug, live_slug, parent_id, is_active, deleted_at FROM categories WHERE id = ?',
        [id],
      )
    )[0];
  const countCategories = async () =>
    Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM categories'))[0].n);

  async function createCategory(
    body: object,
  ): Promise<{ id: number; slug: string; parent_id: number | null }> {
    const res = await api()
      .post('/api/v1/categories')
      .auth(admin.token, { type: 'bearer' })
      .send(body)
      .expect(201);
    return res.body.data;
  }

  const put = (id: number, body: object) =>
    api().put(`/api/v1/categories/${id}`).auth(admin.token, { type: 'bearer' }).send(body);

  beforeAll(async () => {
    t = await startTestApp(ADMIN_ENV);
    admin = await loginAdmin(t);
    user = await createAccount(t);
  });

  afterAll(async () => {
    await t.close();
  });

  describe('CRUD and permissions', () => {
    it('POST /categories: admin 201 with the category as stored; user 403, no token 401, nothing written', async () => {
      const before = await countCategories();
      await api()
        .post('/api/v1/categories')
        .auth(user.token, { type: 'bearer' })
        .send({ name: 'Lamps' })
        .expect(403);
      await api().post('/api/v1/categories').send({ name: 'Lamps' }).expect(401);
      expect(await countCategories()).toBe(before);

      const res = await api()
        .post('/api/v1/categories')
        .auth(admin.token, { type: 'bearer' })
        .send({ name: 'Lamps', description: 'All lamps', position: 3 })
        .expect(201);
      expect(Object.keys(res.body.data)).toEqual(expect.arrayContaining(CATEGORY_FIELDS));
      expect(res.body.data).toMatchObject({
        name: 'Lamps',
        slug: 'lamps',
        parent_id: null,
        description: 'All lamps',
        position: 3,
        is_active: true,
      });
      expect(await categoryRow(res.body.data.id)).toMatchObject({
        name: 'Lamps',
        slug: 'lamps',
        live_slug: 'lamps',
      });

      const read = await api()
        .get(`/api/v1/categories/${res.body.data.id}`)
        .auth(user.token, { type: 'bearer' });
      expect(read.status).toBe(200);
      expect(read.body.data).toEqual(res.body.data);
    });

    it('reads need a token unless CATALOG_PUBLIC=true (401 without one)', async () => {
      await api().get('/api/v1/categories').expect(401);
      await api().get('/api/v1/categories/1').expect(401);
    });

    it('PUT changes only the fields sent (the slug stays with a new name); user 403; unknown 404', async () => {
      const category = await createCategory({ name: 'Chairs' });
      await put(category.id, { name: 'Seats' }).expect(200);
      const row = await categoryRow(category.id);
      expect(row).toMatchObject({ name: 'Seats', slug: 'chairs' });

      await api()
        .put(`/api/v1/categories/${category.id}`)
        .auth(user.token, { type: 'bearer' })
        .send({ name: 'Nope' })
        .expect(403);
      expect((await categoryRow(category.id)).name).toBe('Seats');
      const missing = await put(999999, { name: 'x' }).expect(404);
      expect(missing.body.data.details).toBe('Category 999999 not found');
    });

    it('inactive categories are hidden from users (list and 404) and shown to admins', async () => {
      const hidden = await createCategory({ name: 'Hidden', is_active: false });
      await api().get(`/api/v1/categories/${hidden.id}`).auth(user.token, { type: 'bearer' }).expect(404);
      await api().get(`/api/v1/categories/${hidden.id}`).auth(admin.token, { type: 'bearer' }).expect(200);
      const asUser = await api().get('/api/v1/categories?page_size=100').auth(user.token, { type: 'bearer' });
      expect(asUser.body.data.map((c: { id: number }) => c.id)).not.toContain(hidden.id);
      const asAdmin = await api()
        .get('/api/v1/categories?page_size=100')
        .auth(admin.token, { type: 'bearer' });
      expect(asAdmin.body.data.map((c: { id: number }) => c.id)).toContain(hidden.id);
    });

    it('DELETE: user 403; admin soft-deletes (404 after, row kept, slug free again); products keep their category', async () => {
      const category = await createCategory({ name: 'Old stock' });
      const product = await createProduct(t, admin.token, { category_id: category.id });
      await api()
        .delete(`/api/v1/categories/${category.id}`)
        .auth(user.token, { type: 'bearer' })
        .expect(403);
      await api()
        .delete(`/api/v1/categories/${category.id}`)
        .auth(admin.token, { type: 'bearer' })
        .expect(200);
      await api().get(`/api/v1/categories/${category.id}`).auth(admin.token, { type: 'bearer' }).expect(404);
      await api()
        .delete(`/api/v1/categories/${category.id}`)
        .auth(admin.token, { type: 'bearer' })
        .expect(404);
      const row = await categoryRow(category.id);
      expect(row.deleted_at).not.toBeNull();
      expect(row.live_slug).toBeNull();

      const listed = await api()
        .get(`/api/v1/products?category_id=${category.id}`)
        .auth(user.token, { type: 'bearer' })
        .expect(200);
      expect(listed.body.data.map((p: { id: number }) => p.id)).toEqual([product.id]);
      expect((await createCategory({ name: 'Old stock' })).slug).toBe('old-stock');
    });
  });

  describe('list', () => {
    it('filters by parent_id (0: top level) and slug (ignoring case), ordered by position then id, with meta', async () => {
      const root = await createCategory({ name: 'Garden' });
      const b = await createCategory({ name: 'Tools', parent_id: root.id, position: 2 });
      const a = await createCategory({ name: 'Plants', parent_id: root.id, position: 1 });
      const c = await createCategory({ name: 'Pots', parent_id: root.id, position: 2 });

      const children = await api()
        .get(`/api/v1/categories?parent_id=${root.id}&page_size=2`)
        .auth(user.token, { type: 'bearer' })
        .expect(200);
      expect(children.body.data.map((x: { id: number }) => x.id)).toEqual([a.id, b.id]);
      expect(children.body.meta).toEqual({ page: 1, page_size: 2, total: 3, total_page: 2 });
      const second = await api()
        .get(`/api/v1/categories?parent_id=${root.id}&page_size=2&page=2`)
        .auth(user.token, { type: 'bearer' });
      expect(second.body.data.map((x: { id: number }) => x.id)).toEqual([c.id]);

      const roots = await api()
        .get('/api/v1/categories?parent_id=0&page_size=100')
        .auth(user.token, { type: 'bearer' });
      expect(roots.body.data.every((x: { parent_id: number | null }) => x.parent_id === null)).toBe(true);
      expect(roots.body.data.map((x: { id: number }) => x.id)).toContain(root.id);

      const bySlug = await api().get('/api/v1/categories?slug=GARDEN').auth(user.token, { type: 'bearer' });
      expect(bySlug.body.data.map((x: { id: number }) => x.id)).toEqual([root.id]);
      expect(bySlug.body.meta.total).toBe(1);
    });

    it('refuses parent_id=-1 and parent_id=x with 400 naming parent_id', async () => {
      for (const value of ['-1', 'x']) {
        const res = await api()
          .get(`/api/v1/categories?parent_id=${value}`)
          .auth(user.token, { type: 'bearer' })
          .expect(400);
        expect(res.body.data.errors[0].field).toBe('parent_id');
      }
    });
  });

  describe('tree', () => {
    it('refuses a parent that is the category itself or one of its descendants (400 naming parent_id)', async () => {
      const top = await createCategory({ name: 'Top' });
      const middle = await createCategory({ name: 'Middle', parent_id: top.id });
      const bottom = await createCategory({ name: 'Bottom', parent_id: middle.id });

      for (const parent of [top.id, bottom.id]) {
        const res = await put(top.id, { parent_id: parent }).expect(400);
        expect(res.body.data.errors).toEqual([
          {
            field: 'parent_id',
            rule: 'noCycle',
            message: 'parent_id must not be the category itself or one of its subcategories',
          },
        ]);
      }
      expect((await categoryRow(top.id)).parent_id).toBeNull();

      // Moving a subtree elsewhere and back to the top is fine.
      const other = await createCategory({ name: 'Other' });
      await put(middle.id, { parent_id: other.id }).expect(200);
      expect(Number((await categoryRow(middle.id)).parent_id)).toBe(other.id);
      const topLevel = await put(middle.id, { parent_id: null }).expect(200);
      expect(topLevel.body.data.parent_id).toBeNull();
      expect((await categoryRow(middle.id)).parent_id).toBeNull();
    });

    it('two moves that together would close a loop: one is made, the other refused; the tree stays a tree', async () => {
      const a = await createCategory({ name: 'Loop A' });
      const b = await createCategory({ name: 'Loop B' });
      // On MySQL the two lock each other's rows (a deadlock the runner retries); SQLite runs them one after the other.
      expectLockRetries();
      const [first, second] = await Promise.all([
        put(a.id, { parent_id: b.id }),
        put(b.id, { parent_id: a.id }),
      ]);
      expect([first.status, second.status].sort()).toEqual([200, 400]);
      const refused = first.status === 400 ? first : second;
      expect(refused.body.data.errors[0]).toMatchObject({ field: 'parent_id', rule: 'noCycle' });
      const parents = [(await categoryRow(a.id)).parent_id, (await categoryRow(b.id)).parent_id];
      expect(parents.filter((parent) => parent === null)).toHaveLength(1);
    });

    it('refuses an unknown or deleted parent with 400 naming parent_id, writing nothing', async () => {
      const gone = await createCategory({ name: 'Gone' });
      await api().delete(`/api/v1/categories/${gone.id}`).auth(admin.token, { type: 'bearer' }).expect(200);
      const before = await countCategories();
      for (const parent of [gone.id, 999999]) {
        const res = await api()
          .post('/api/v1/categories')
          .auth(admin.token, { type: 'bearer' })
          .send({ name: 'Orphan', parent_id: parent })
          .expect(400);
        expect(res.body.data.errors).toEqual([
          { field: 'parent_id', rule: 'categoryExists', message: `parent_id ${parent} is not a category` },
        ]);
      }
      expect(await countCategories()).toBe(before);
    });

    it('refuses deleting a category with subcategories (400), then deletes it once they moved', async () => {
      const parent = await createCategory({ name: 'Parent' });
      const child = await createCategory({ name: 'Child', parent_id: parent.id });
      const res = await api()
        .delete(`/api/v1/categories/${parent.id}`)
        .auth(admin.token, { type: 'bearer' })
        .expect(400);
      expect(res.body.data.errors).toEqual([
        {
          field: 'id',
          rule: 'hasSubcategories',
          message: `Category ${parent.id} has subcategories: move or delete them first`,
        },
      ]);
      expect((await categoryRow(parent.id)).deleted_at).toBeNull();
      await put(child.id, { parent_id: null }).expect(200);
      await api().delete(`/api/v1/categories/${parent.id}`).auth(admin.token, { type: 'bearer' }).expect(200);
    });
  });

  describe('slugs', () => {
    it('generates lower-case ASCII slugs from the name, with -2, -3 on collision', async () => {
      expect((await createCategory({ name: 'Café & Crème Brûlée!' })).slug).toBe('cafe-creme-brulee');
      expect((await createCategory({ name: 'cafe creme brulee' })).slug).toBe('cafe-creme-brulee-2');
      expect((await createCategory({ name: 'CAFE-CREME-BRULEE' })).slug).toBe('cafe-creme-brulee-3');
      expect((await createCategory({ name: '★★★' })).slug).toBe('category');
    });

    it('keeps a given slug and refuses one taken ignoring case (400 slug unique)', async () => {
      const given = await createCategory({ name: 'Desk lamps', slug: 'Desk-Lamps' });
      expect(given.slug).toBe('Desk-Lamps');
      const before = await countCategories();
      const res = await api()
        .post('/api/v1/categories')
        .auth(admin.token, { type: 'bearer' })
        .send({ name: 'Other', slug: 'desk-lamps' })
        .expect(400);
      expect(res.body.data.errors).toEqual([
        { field: 'slug', rule: 'unique', message: 'slug is already taken by another category' },
      ]);
      expect(await countCategories()).toBe(before);
      const other = await createCategory({ name: 'Floor lamps' });
      const taken = await put(other.id, { slug: 'DESK-LAMPS' }).expect(400);
      expect(taken.body.data.errors[0]).toMatchObject({ field: 'slug', rule: 'unique' });
      expect((await categoryRow(other.id)).slug).toBe('floor-lamps');
      // A generated slug skips a taken one whatever its case.
      expect((await createCategory({ name: 'desk lamps' })).slug).toBe('desk-lamps-2');
    });

    it('validates a given slug (400 naming slug and the rule)', async () => {
      for (const slug of ['with space', '-lead', 'trail-', 'dou--ble', 'ünï', '', 'a'.repeat(121)]) {
        const res = await api()
          .post('/api/v1/categories')
          .auth(admin.token, { type: 'bearer' })
          .send({ name: 'Bad slug', slug })
          .expect(400);
        expect(res.body.data.errors[0].field).toBe('slug');
      }
      const nul = await api()
        .post('/api/v1/categories')
        .auth(admin.token, { type: 'bearer' })
        .send({ name: 'Bad slug', slug: null })
        .expect(400);
      expect(nul.body.data.errors[0].field).toBe('slug');
    });
  });

  describe('products naming a category', () => {
    it('an unknown category_id creates a placeholder category in the same transaction', async () => {
      const product = await createProduct(t, admin.token, { category_id: 4242 });
      expect(
        (await api().get(`/api/v1/products/${product.id}`).auth(user.token, { type: 'bearer' })).body.data
          .category_id,
      ).toBe(4242);
      const placeholder = await api()
        .get('/api/v1/categories/4242')
        .auth(user.token, { type: 'bearer' })
        .expect(200);
      expect(placeholder.body.data).toMatchObject({
        id: 4242,
        name: 'Category 4242',
        slug: 'category-4242',
        parent_id: null,
      });

      // PUT to another unknown id creates that one too; a product refused for another reason leaves none.
      await api()
        .put(`/api/v1/products/${product.id}`)
        .auth(admin.token, { type: 'bearer' })
        .send({ category_id: 4243 })
        .expect(200);
      expect(await categoryRow(4243)).toMatchObject({ name: 'Category 4243' });
      await api()
        .put(`/api/v1/products/${product.id}`)
        .auth(admin.token, { type: 'bearer' })
        .send({ category_id: 4244, image: '2026/11/doesnotexist1.png' })
        .expect(400);
      expect(await categoryRow(4244)).toBeUndefined();
    });

    it('no placeholder above id 1000000000: 400 naming category_id, nothing written', async () => {
      const before = await countCategories();
      const res = await api()
        .post('/api/v1/products')
        .auth(admin.token, { type: 'bearer' })
        .send({ name: 'Far', price: 1, stock: 1, category_id: 2147483647 })
        .expect(400);
      expect(res.body.data.errors).toEqual([
        { field: 'category_id', rule: 'categoryExists', message: 'category_id 2147483647 is not a category' },
      ]);
      expect(await countCategories()).toBe(before);
      await createProduct(t, admin.token, { category_id: 1_000_000_000 });
      expect(await categoryRow(1_000_000_000)).toMatchObject({ name: 'Category 1000000000' });
      expect((await createCategory({ name: 'After the far one' })).id).toBe(1_000_000_001);
    });

    it('a placeholder whose slug is taken gets a suffix', async () => {
      await createCategory({ name: 'Taken', slug: 'category-5151' });
      await createProduct(t, admin.token, { category_id: 5151 });
      expect(await categoryRow(5151)).toMatchObject({ slug: 'category-5151-2' });
    });

    it('products naming the same new id at once create one category', async () => {
      const agent = concurrentClient();
      try {
        const results = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            api()
              .post('/api/v1/products')
              .agent(agent)
              .auth(admin.token, { type: 'bearer' })
              .send({ name: `Racer ${i}`, price: 1, stock: 1, category_id: 7777 }),
          ),
        );
        expect(results.map((r) => r.status)).toEqual(new Array(12).fill(201));
      } finally {
        agent.destroy();
      }
      const rows = await t.dataSource.query(
        'SELECT id, slug FROM categories WHERE id = 7777 OR slug LIKE ?',
        ['category-7777%'],
      );
      expect(rows).toEqual([{ id: 7777, slug: 'category-7777' }]);
      const [{ n }] = await t.dataSource.query('SELECT COUNT(*) AS n FROM products WHERE category_id = 7777');
      expect(Number(n)).toBe(12);
    });
  });

  describe('GET /products?include_descendants=true', () => {
    it('lists the whole subtree, with true pagination meta; category_id alone stays an exact match', async () => {
      const root = await createCategory({ name: 'Subtree root' });
      const child = await createCategory({ name: 'Subtree child', parent_id: root.id });
      const grandchild = await createCategory({ name: 'Subtree grandchild', parent_id: child.id });
      const outside = await createCategory({ name: 'Outside' });
      const ids: number[] = [];
      for (const category of [root, child, grandchild, grandchild, child]) {
        ids.push((await createProduct(t, admin.token, { category_id: category.id })).id);
      }
      await createProduct(t, admin.token, { category_id: outside.id });
      const inactive = await createProduct(t, admin.token, { category_id: grandchild.id });
      await api()
        .put(`/api/v1/products/${inactive.id}`)
        .auth(admin.token, { type: 'bearer' })
        .send({ is_active: false })
        .expect(200);

      const list = (query: string) =>
        api().get(`/api/v1/products?${query}`).auth(user.token, { type: 'bearer' }).expect(200);
      const first = await list(`category_id=${root.id}&include_descendants=true&page_size=3`);
      expect(first.body.data.map((p: { id: number }) => p.id)).toEqual(ids.slice(0, 3));
      expect(first.body.meta).toMatchObject({ page: 1, page_size: 3, total: 5, total_page: 2 });
      const second = await list(`category_id=${root.id}&include_descendants=true&page_size=3&page=2`);
      expect(second.body.data.map((p: { id: number }) => p.id)).toEqual(ids.slice(3));
      expect(second.body.meta.total).toBe(5);

      // With a search too (on SQLite a search runs on the reader's connection).
      const searched = await list(`category_id=${root.id}&include_descendants=true&search=product&sort=id`);
      expect(searched.body.data.map((p: { id: number }) => p.id)).toEqual(ids);

      const exact = await list(`category_id=${root.id}`);
      expect(exact.body.data.map((p: { id: number }) => p.id)).toEqual([ids[0]]);
      const middle = await list(`category_id=${child.id}&include_descendants=true`);
      expect(middle.body.meta.total).toBe(4);

      // A move changes the subtree at once: the total is counted again, not kept.
      await put(child.id, { parent_id: outside.id }).expect(200);
      const moved = await list(`category_id=${root.id}&include_descendants=true&page_size=3`);
      expect(moved.body.data.map((p: { id: number }) => p.id)).toEqual([ids[0]]);
      expect(moved.body.meta.total).toBe(1);
      const outsideTree = await list(`category_id=${outside.id}&include_descendants=true&page_size=3`);
      expect(outsideTree.body.meta.total).toBe(5);
    });

    it('include_descendants without category_id is 400 naming it', async () => {
      const res = await api()
        .get('/api/v1/products?include_descendants=true')
        .auth(user.token, { type: 'bearer' })
        .expect(400);
      expect(res.body.data.errors).toEqual([
        {
          field: 'include_descendants',
          rule: 'needsCategory',
          message: 'include_descendants needs a category_id',
        },
      ]);
    });
  });
});

// Apps with other settings, each started after the one above is closed (one app at a time per process).
describe('categories under other settings', () => {
  it('with CATEGORIES_STRICT=true an unknown category_id is a 400 naming category_id; nothing written', async () => {
    const strict = await startTestApp({ ...ADMIN_ENV, CATEGORIES_STRICT: 'true' });
    try {
      const token = (await loginAdmin(strict)).token;
      const res = await request(strict.url)
        .post('/api/v1/products')
        .auth(token, { type: 'bearer' })
        .send({ name: 'Strict', price: 1, stock: 1, category_id: 8888 })
        .expect(400);
      expect(res.body.data.errors).toEqual([
        { field: 'category_id', rule: 'categoryExists', message: 'category_id 8888 is not a category' },
      ]);
      const counts = await strict.dataSource.query(
        'SELECT (SELECT COUNT(*) FROM products) AS products, (SELECT COUNT(*) FROM categories) AS categories',
      );
      expect(Number(counts[0].products)).toBe(0);
      expect(Number(counts[0].categories)).toBe(0);

      const category = await request(strict.url)
        .post('/api/v1/categories')
        .auth(token, { type: 'bearer' })
        .send({ name: 'Real' })
        .expect(201);
      await request(strict.url)
        .post('/api/v1/products')
        .auth(token, { type: 'bearer' })
        .send({ name: 'Strict', price: 1, stock: 1, category_id: category.body.data.id })
        .expect(201);
      const update = await request(strict.url)
        .put('/api/v1/products/1')
        .auth(token, { type: 'bearer' })
        .send({ category_id: 8889 })
        .expect(400);
      expect(update.body.data.errors[0]).toMatchObject({ field: 'category_id', rule: 'categoryExists' });
    } finally {
      await strict.close();
    }
  });

  it('with CATALOG_PUBLIC=true categories are read without a token, as a user sees them', async () => {
    const open = await startTestApp({ ...ADMIN_ENV, CATALOG_PUBLIC: 'true' });
    try {
      const token = (await loginAdmin(open)).token;
      const shown = await request(open.url)
        .post('/api/v1/categories')
        .auth(token, { type: 'bearer' })
        .send({ name: 'Shown' })
        .expect(201);
      const hidden = await request(open.url)
        .post('/api/v1/categories')
        .auth(token, { type: 'bearer' })
        .send({ name: 'Not yet', is_active: false })
        .expect(201);
      const list = await request(open.url).get('/api/v1/categories').expect(200);
      expect(list.body.data.map((c: { id: number }) => c.id)).toEqual([shown.body.data.id]);
      await request(open.url).get(`/api/v1/categories/${hidden.body.data.id}`).expect(404);
      await request(open.url).post('/api/v1/categories').send({ name: 'x' }).expect(401);
    } finally {
      await open.close();
    }
  });
});
