import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import request from 'supertest';
import { joinLiveProduct } from '../src/products/product-catalog.js';
import { ProductsService } from '../src/products/products.service.js';
import { unitPriceIn } from '../src/pricing/currency-prices.js';
import { ShippingOptionCatalog } from '../src/shipping-options/shipping-option-catalog.js';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { startTestApp, TestApp } from './support/test-app.js';

interface Price {
  currency_code: string;
  amount: number;
}
interface Calculated {
  amount: number;
  original_amount: number;
  currency_code: string;
  price_list_id: number | null;
  includes_tax: boolean;
}
interface Variant {
  id: number;
  price: number;
  prices: Price[];
  tax_class: string;
  calculated_price?: Calculated | null;
}
interface Product {
  id: number;
  slug: string;
  price: number;
  prices: Price[];
  tax_class: string;
  calculated_price?: Calculated | null;
  variants: Variant[];
}

// Runs on SQLite, and on MariaDB/MySQL with a mysql:// TEST_DATABASE_URL. CURRENCY is the default `usd`.
describe('prices per currency and tax classes on the catalogue', () => {
  let t: TestApp;
  let admin: Account;
  let user: Account;
  /** An EUR region with tax-inclusive prices, and the default (USD) one. */
  let eurRegion: number;
  let defaultRegion: number;

  const api = () => request(t.url);
  const asAdmin = (req: request.Test) => req.auth(admin.token, { type: 'bearer' });
  const productRow = async (id: number) => {
    const [row] = await t.dataSource.query(
      'SELECT price_cents, prices, tax_class FROM products WHERE id = ?',
      [id],
    );
    return {
      price_cents: Number(row.price_cents),
      prices: row.prices === null ? null : (JSON.parse(row.prices) as Record<string, number>),
      tax_class: row.tax_class as string,
    };
  };
  const productCount = async () =>
    Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM products'))[0].n);
  const createProduct = async (body: object) =>
    (
      await asAdmin(api().post('/api/v1/products'))
        .send({ name: 'Mug', price: 19.99, stock: 10, category_id: 1, ...body })
        .expect(201)
    ).body.data as Product;
  const fields = (res: request.Response) =>
    (res.body.data.errors as Array<{ field: string; rule: string }>).map(({ field, rule }) => ({
      field,
      rule,
    }));

  beforeAll(async () => {
    t = await startTestApp({ ...ADMIN_ENV });
    admin = await loginAdmin(t);
    user = await createAccount(t);
    await t.dataSource.query(
      'INSERT INTO regions (name, currency_code, prices_include_tax, is_default) VALUES (?, ?, ?, ?)',
      ['Europe', 'eur', 1, 0],
    );
    const [eur] = await t.dataSource.query('SELECT id FROM regions WHERE currency_code = ?', ['eur']);
    eurRegion = Number(eur.id);
    await t.dataSource.query('INSERT INTO region_countries (country, region_id, position) VALUES (?, ?, ?)', [
      'DE',
      eurRegion,
      0,
    ]);
    const [usd] = await t.dataSource.query('SELECT id FROM regions WHERE is_default = 1');
    defaultRegion = Number(usd.id);
  });

  afterAll(async () => {
    await t?.close();
  });

  describe('products', () => {
    it('writes prices per currency: the default first (the same as price), the others by code, stored in minor units', async () => {
      const product = await createProduct({
        prices: [
          { currency_code: 'jpy', amount: 2900 },
          { currency_code: 'usd', amount: 19.99 },
          { currency_code: 'eur', amount: 18.5 },
        ],
        tax_class: 'reduced',
      });
      expect(product.price).toBe(19.99);
      expect(product.prices).toEqual([
        { currency_code: 'usd', amount: 19.99 },
        { currency_code: 'eur', amount: 18.5 },
        { currency_code: 'jpy', amount: 2900 },
      ]);
      expect(product.tax_class).toBe('reduced');
      expect(product).not.toHaveProperty('calculated_price');
      expect(await productRow(product.id)).toEqual({
        price_cents: 1999,
        prices: { eur: 1850, jpy: 2900 },
        tax_class: 'reduced',
      });
      const read = await api().get(`/api/v1/products/${product.id}`).auth(user.token, { type: 'bearer' });
      expect(read.status).toBe(200);
      expect(read.body.data.prices).toEqual(product.prices);
      expect(read.body.data.tax_class).toBe('reduced');
    });

    it('defaults: the default currency only, tax class standard', async () => {
      const product = await createProduct({ price: 5 });
      expect(product.prices).toEqual([{ currency_code: 'usd', amount: 5 }]);
      expect(product.tax_class).toBe('standard');
      expect(await productRow(product.id)).toEqual({ price_cents: 500, prices: null, tax_class: 'standard' });
    });

    it('PUT: prices replaces the whole list; a default-currency entry sets price; [] leaves price alone', async () => {
      const product = await createProduct({ prices: [{ currency_code: 'eur', amount: 18 }] });
      const res = await asAdmin(api().put(`/api/v1/products/${product.id}`)).send({
        prices: [
          { currency_code: 'gbp', amount: 15.5 },
          { currency_code: 'usd', amount: 21 },
        ],
        tax_class: 'zero-rated',
      });
      expect(res.status).toBe(200);
      expect(res.body.data.price).toBe(21);
      expect(res.body.data.prices).toEqual([
        { currency_code: 'usd', amount: 21 },
        { currency_code: 'gbp', amount: 15.5 },
      ]);
      expect(await productRow(product.id)).toEqual({
        price_cents: 2100,
        prices: { gbp: 1550 },
        tax_class: 'zero-rated',
      });
      // price and a matching entry together are fine.
      await asAdmin(api().put(`/api/v1/products/${product.id}`))
        .send({ price: 22, prices: [{ currency_code: 'usd', amount: 22 }] })
        .expect(200);
      const cleared = await asAdmin(api().put(`/api/v1/products/${product.id}`)).send({ prices: [] });
      expect(cleared.body.data.prices).toEqual([{ currency_code: 'usd', amount: 22 }]);
      expect(await productRow(product.id)).toEqual({
        price_cents: 2200,
        prices: null,
        tax_class: 'zero-rated',
      });
      // A price alone keeps the other currencies.
      await asAdmin(api().put(`/api/v1/products/${product.id}`))
        .send({ prices: [{ currency_code: 'eur', amount: 20 }] })
        .expect(200);
      await asAdmin(api().put(`/api/v1/products/${product.id}`))
        .send({ price: 23 })
        .expect(200);
      expect(await productRow(product.id)).toEqual({
        price_cents: 2300,
        prices: { eur: 2000 },
        tax_class: 'zero-rated',
      });
    });

    it("refuses amounts finer than the currency's minor unit, unknown or upper-case codes, repeats, a mismatch with price and bad tax classes; nothing is written", async () => {
      const before = await productCount();
      const bad = async (body: object) => {
        const res = await asAdmin(api().post('/api/v1/products')).send({
          name: 'Bad',
          price: 10,
          category_id: 1,
          ...body,
        });
        expect(res.status).toBe(400);
        return fields(res);
      };
      expect(
        await bad({
          prices: [
            { currency_code: 'jpy', amount: 12.5 },
            { currency_code: 'eur', amount: 1.234 },
            { currency_code: 'kwd', amount: 1.234 },
            { currency_code: 'eur', amount: -1 },
          ],
        }),
      ).toEqual([
        { field: 'prices.0.amount', rule: 'isAmountIn' },
        { field: 'prices.1.amount', rule: 'isAmountIn' },
        { field: 'prices.3.amount', rule: 'isAmountIn' },
      ]);
      expect(
        await bad({
          prices: [
            { currency_code: 'EUR', amount: 1 },
            { currency_code: 'xyz', amount: 1 },
            { currency_code: 7, amount: 1 },
          ],
        }),
      ).toEqual([
        { field: 'prices.0.currency_code', rule: 'isCurrencyCode' },
        { field: 'prices.1.currency_code', rule: 'isCurrencyCode' },
        { field: 'prices.2.currency_code', rule: 'isCurrencyCode' },
        { field: 'prices.2.currency_code', rule: 'isString' },
      ]);
      expect(
        await bad({
          prices: [
            { currency_code: 'eur', amount: 1 },
            { currency_code: 'eur', amount: 2 },
          ],
        }),
      ).toEqual([{ field: 'prices.1.currency_code', rule: 'unique' }]);
      expect(await bad({ prices: [{ currency_code: 'usd', amount: 9.99 }] })).toEqual([
        { field: 'prices', rule: 'matchesPrice' },
      ]);
      expect(await bad({ prices: [{ currency_code: 'eur', amount: '1' }] })).toEqual([
        { field: 'prices.0.amount', rule: 'isAmountIn' },
        { field: 'prices.0.amount', rule: 'isNumber' },
      ]);
      expect(await bad({ prices: ['eur'] })).toContainEqual({ field: 'prices', rule: 'isObject' });
      expect(await bad({ prices: [{ currency_code: 'eur', amount: 1, extra: 1 }] })).toEqual([
        { field: 'prices.0.extra', rule: 'whitelistValidation' },
      ]);
      expect(await bad({ tax_class: 'Reduced Rate' })).toEqual([{ field: 'tax_class', rule: 'matches' }]);
      expect(await bad({ tax_class: 'a'.repeat(33) })).toEqual([{ field: 'tax_class', rule: 'maxLength' }]);
      expect(await productCount()).toBe(before);
    });
  });

  describe('variants', () => {
    it("have their own prices; the product's are each currency's lowest among its active variants; tax_class is the product's", async () => {
      const product = await createProduct({
        tax_class: 'reduced',
        options: [{ name: 'Size', values: ['S', 'M', 'L'] }],
      });
      const variant = async (body: object) =>
        (
          await asAdmin(api().post(`/api/v1/products/${product.id}/variants`))
            .send(body)
            .expect(201)
        ).body.data as Variant;
      const s = await variant({
        sku: 'CUR-S',
        options: { Size: 'S' },
        price: 10,
        prices: [
          { currency_code: 'eur', amount: 9.5 },
          { currency_code: 'jpy', amount: 1600 },
        ],
      });
      const m = await variant({
        sku: 'CUR-M',
        options: { Size: 'M' },
        price: 12,
        prices: [
          { currency_code: 'eur', amount: 9 },
          { currency_code: 'gbp', amount: 8 },
        ],
      });
      expect(s.prices).toEqual([
        { currency_code: 'usd', amount: 10 },
        { currency_code: 'eur', amount: 9.5 },
        { currency_code: 'jpy', amount: 1600 },
      ]);
      expect(s.tax_class).toBe('reduced');
      const rowOf = async (id: number) =>
        (await t.dataSource.query('SELECT prices FROM product_variants WHERE id = ?', [id]))[0].prices;
      expect(JSON.parse(await rowOf(m.id))).toEqual({ eur: 900, gbp: 800 });
      expect(await productRow(product.id)).toEqual({
        price_cents: 1000,
        prices: { eur: 900, gbp: 800, jpy: 1600 },
        tax_class: 'reduced',
      });
      let read = (await api().get(`/api/v1/products/${product.id}`).auth(user.token, { type: 'bearer' })).body
        .data as Product;
      expect(read.prices).toEqual([
        { currency_code: 'usd', amount: 10 },
        { currency_code: 'eur', amount: 9 },
        { currency_code: 'gbp', amount: 8 },
        { currency_code: 'jpy', amount: 1600 },
      ]);
      expect(read.variants.map((v) => v.tax_class)).toEqual(['reduced', 'reduced']);

      // A default-currency entry sets the variant's price; deactivating M drops its prices from the product's.
      const changed = await asAdmin(api().put(`/api/v1/products/${product.id}/variants/${m.id}`)).send({
        prices: [{ currency_code: 'usd', amount: 8 }],
        is_active: false,
      });
      expect(changed.status).toBe(200);
      expect(changed.body.data.price).toBe(8);
      expect(changed.body.data.prices).toEqual([{ currency_code: 'usd', amount: 8 }]);
      expect(await productRow(product.id)).toEqual({
        price_cents: 1000,
        prices: { eur: 950, jpy: 1600 },
        tax_class: 'reduced',
      });
      // The product's prices are its variants' while it has active ones.
      const derived = await asAdmin(api().put(`/api/v1/products/${product.id}`)).send({
        prices: [{ currency_code: 'eur', amount: 1 }],
      });
      expect(derived.status).toBe(400);
      expect(fields(derived)).toEqual([{ field: 'prices', rule: 'derivedFromVariants' }]);
      // Its tax class is the product's own: written there, shown on the variants.
      await asAdmin(api().put(`/api/v1/products/${product.id}`))
        .send({ tax_class: 'standard' })
        .expect(200);
      read = (await asAdmin(api().get(`/api/v1/products/${product.id}`))).body.data as Product;
      expect(read.variants.map((v) => v.tax_class)).toEqual(['standard', 'standard']);
      const notHere = await asAdmin(api().put(`/api/v1/products/${product.id}/variants/${s.id}`)).send({
        tax_class: 'reduced',
      });
      expect(notHere.status).toBe(400);
      expect(fields(notHere)).toEqual([{ field: 'tax_class', rule: 'whitelistValidation' }]);
      const mismatch = await asAdmin(api().put(`/api/v1/products/${product.id}/variants/${s.id}`)).send({
        price: 11,
        prices: [{ currency_code: 'usd', amount: 12 }],
      });
      expect(mismatch.status).toBe(400);
      expect(fields(mismatch)).toEqual([{ field: 'prices', rule: 'matchesPrice' }]);
    });
  });

  describe('shipping options', () => {
    it('write and read prices and tax_class; the catalogue other modules use exposes them', async () => {
      const created = await asAdmin(api().post('/api/v1/shipping-options')).send({
        name: 'Express',
        price: 9.5,
        prices: [
          { currency_code: 'jpy', amount: 1200 },
          { currency_code: 'eur', amount: 0 },
        ],
        tax_class: 'shipping',
      });
      expect(created.status).toBe(201);
      expect(created.body.data).toMatchObject({
        price: 9.5,
        prices: [
          { currency_code: 'usd', amount: 9.5 },
          { currency_code: 'eur', amount: 0 },
          { currency_code: 'jpy', amount: 1200 },
        ],
        tax_class: 'shipping',
      });
      const id = created.body.data.id as number;
      const [row] = await t.dataSource.query(
        'SELECT price_cents, prices, tax_class FROM shipping_options WHERE id = ?',
        [id],
      );
      expect([Number(row.price_cents), JSON.parse(row.prices), row.tax_class]).toEqual([
        950,
        { eur: 0, jpy: 1200 },
        'shipping',
      ]);
      const updated = await asAdmin(api().put(`/api/v1/shipping-options/${id}`)).send({
        prices: [{ currency_code: 'usd', amount: 0 }],
      });
      expect(updated.status).toBe(200);
      expect(updated.body.data).toMatchObject({
        price: 0,
        prices: [{ currency_code: 'usd', amount: 0 }],
        tax_class: 'shipping',
      });
      const options = await t.app.get(ShippingOptionCatalog).applicableTo('DE');
      expect(options.find((option) => option.id === id)).toMatchObject({
        prices: [{ currency_code: 'usd', amount: 0 }],
        tax_class: 'shipping',
      });
      const bad = await asAdmin(api().post('/api/v1/shipping-options')).send({
        name: 'Bad',
        price: 1,
        prices: [
          { currency_code: 'usd', amount: 2 },
          { currency_code: 'jpy', amount: 0.5 },
        ],
        tax_class: '-x',
      });
      expect(bad.status).toBe(400);
      expect(fields(bad)).toEqual([
        { field: 'prices.1.amount', rule: 'isAmountIn' },
        { field: 'tax_class', rule: 'matches' },
      ]);
      const mismatch = await asAdmin(api().put(`/api/v1/shipping-options/${id}`)).send({
        price: 1,
        prices: [{ currency_code: 'usd', amount: 2 }],
      });
      expect(fields(mismatch)).toEqual([{ field: 'prices', rule: 'matchesPrice' }]);
    });
  });

  describe('calculated_price with region_id', () => {
    let priced: Product;
    let unpriced: Product;

    beforeAll(async () => {
      priced = await createProduct({
        name: 'Calculated priced',
        price: 30,
        prices: [{ currency_code: 'eur', amount: 27.5 }],
        options: [{ name: 'Size', values: ['S', 'M'] }],
      });
      for (const [size, price, eur] of [
        ['S', 30, 27.5],
        ['M', 32, null],
      ] as const) {
        await asAdmin(api().post(`/api/v1/products/${priced.id}/variants`))
          .send({
            sku: `CALC-${size}`,
            options: { Size: size },
            price,
            ...(eur === null ? {} : { prices: [{ currency_code: 'eur', amount: eur }] }),
          })
          .expect(201);
      }
      unpriced = await createProduct({ name: 'Calculated unpriced', price: 20 });
    });

    it("the list gives each product its price in the region's currency, null without one; sorted by the default currency", async () => {
      const res = await api()
        .get(`/api/v1/products?ids=${unpriced.id},${priced.id}&sort=price&region_id=${eurRegion}`)
        .auth(user.token, { type: 'bearer' });
      expect(res.status).toBe(200);
      const data = res.body.data as Product[];
      expect(data.map((p) => p.id)).toEqual([unpriced.id, priced.id]);
      expect(data[0].calculated_price).toBeNull();
      expect(data[1].calculated_price).toEqual({
        amount: 27.5,
        original_amount: 27.5,
        currency_code: 'eur',
        price_list_id: null,
        includes_tax: true,
      });
      const inDefault = await api()
        .get(`/api/v1/products?ids=${unpriced.id}&region_id=${defaultRegion}`)
        .auth(user.token, { type: 'bearer' });
      expect(inDefault.body.data[0].calculated_price).toEqual({
        amount: 20,
        original_amount: 20,
        currency_code: 'usd',
        price_list_id: null,
        includes_tax: false,
      });
      const without = await api()
        .get(`/api/v1/products?ids=${unpriced.id}`)
        .auth(user.token, { type: 'bearer' });
      expect(without.body.data[0]).not.toHaveProperty('calculated_price');
    });

    it('a product read (by id and by slug) gives the product and each variant theirs', async () => {
      for (const key of [priced.id, priced.slug]) {
        const res = await api()
          .get(`/api/v1/products/${key}?region_id=${eurRegion}`)
          .auth(user.token, { type: 'bearer' });
        expect(res.status).toBe(200);
        const product = res.body.data as Product;
        expect(product.calculated_price).toMatchObject({ amount: 27.5, currency_code: 'eur' });
        expect(product.variants.map((v) => v.calculated_price?.amount ?? null)).toEqual([27.5, null]);
        expect(product.variants[0].calculated_price).toEqual({
          amount: 27.5,
          original_amount: 27.5,
          currency_code: 'eur',
          price_list_id: null,
          includes_tax: true,
        });
      }
      const plain = await api().get(`/api/v1/products/${priced.id}`).auth(user.token, { type: 'bearer' });
      expect(plain.body.data).not.toHaveProperty('calculated_price');
      expect(plain.body.data.variants[0]).not.toHaveProperty('calculated_price');
    });

    it('an unknown region is 400 region_id rule exists; a malformed one is 400 too', async () => {
      for (const path of [
        '/api/v1/products?region_id=99999',
        `/api/v1/products/${priced.id}?region_id=99999`,
      ]) {
        const res = await api().get(path).auth(user.token, { type: 'bearer' });
        expect(res.status).toBe(400);
        expect(fields(res)).toEqual([{ field: 'region_id', rule: 'exists' }]);
      }
      const list = await api().get('/api/v1/products?region_id=abc').auth(user.token, { type: 'bearer' });
      expect(list.status).toBe(400);
      expect(fields(list).map((e) => e.field)).toContain('region_id');
      const one = await api()
        .get(`/api/v1/products/${priced.id}?region_id=0`)
        .auth(user.token, { type: 'bearer' });
      expect(fields(one)).toEqual([{ field: 'region_id', rule: 'min' }]);
    });

    it('a list page with region_id reads the region once, whatever the number of products', async () => {
      // Once before, so that both requests counted find the same caches.
      await api().get('/api/v1/products?page_size=50').auth(user.token, { type: 'bearer' }).expect(200);
      const logQuery = jest.spyOn(t.dataSource.logger, 'logQuery');
      await api()
        .get(`/api/v1/products?page_size=50&region_id=${eurRegion}`)
        .auth(user.token, { type: 'bearer' })
        .expect(200);
      const withRegion = logQuery.mock.calls.map(([sql]) => sql);
      logQuery.mockClear();
      await api().get('/api/v1/products?page_size=50').auth(user.token, { type: 'bearer' }).expect(200);
      const without = logQuery.mock.calls.map(([sql]) => sql);
      logQuery.mockRestore();
      // Background work (the job poller, the outbox's dispatch) may fall into either window: only the request's
      // own statements, on its session, the products and the regions, are compared.
      const own = (statements: string[]) =>
        statements.filter((sql) => /FROM (sessions|products|regions)\b/.test(sql));
      expect(withRegion.filter((sql) => sql.includes('FROM regions'))).toHaveLength(1);
      expect(own(withRegion)).toHaveLength(own(without).length + 1);
    });
  });

  describe('what carts and orders read', () => {
    it("joinLiveProduct gives a line's prices (the variant's for a variant line) and its product's tax class", async () => {
      const product = await createProduct({
        price: 40,
        prices: [{ currency_code: 'eur', amount: 36 }],
        tax_class: 'reduced',
      });
      const withVariant = await createProduct({
        tax_class: 'books',
        options: [{ name: 'Size', values: ['S'] }],
      });
      const variant = (
        await asAdmin(api().post(`/api/v1/products/${withVariant.id}/variants`))
          .send({
            sku: 'JOIN-S',
            options: { Size: 'S' },
            price: 7,
            stock: 5,
            prices: [{ currency_code: 'jpy', amount: 990 }],
          })
          .expect(201)
      ).body.data as Variant;
      const { join, columns } = joinLiveProduct('?', '?');
      const read = async (productId: number | null, variantId: number | null) =>
        (
          await t.dataSource.query(`SELECT ${columns} FROM (SELECT 1 AS one) x ${join}`, [
            variantId,
            productId,
          ])
        )[0] as { price_cents: number; prices: string | null; tax_class: string };
      const simple = await read(product.id, null);
      expect(simple.tax_class).toBe('reduced');
      expect(unitPriceIn('eur', 'usd', Number(simple.price_cents), simple.prices)).toBe(3600);
      expect(unitPriceIn('usd', 'usd', Number(simple.price_cents), simple.prices)).toBe(4000);
      expect(unitPriceIn('jpy', 'usd', Number(simple.price_cents), simple.prices)).toBeNull();
      const line = await read(null, variant.id);
      expect(line.tax_class).toBe('books');
      expect(unitPriceIn('jpy', 'usd', Number(line.price_cents), line.prices)).toBe(990);
      expect(unitPriceIn('eur', 'usd', Number(line.price_cents), line.prices)).toBeNull();

      const reserved = await t.dataSource.transaction((tx) =>
        t.app.get(ProductsService).reserveStock(tx, [
          { productId: product.id, quantity: 1 },
          { variantId: variant.id, quantity: 1 },
        ]),
      );
      expect(reserved.map(({ priceCents, prices, taxClass }) => ({ priceCents, prices, taxClass }))).toEqual([
        { priceCents: 4000, prices: { eur: 3600 }, taxClass: 'reduced' },
        { priceCents: 700, prices: { jpy: 990 }, taxClass: 'books' },
      ]);
    });
  });
});
