import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { EntityMetadata } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { sampleFile } from './support/multipart.js';
import { orderBody, postOrder } from './support/orders.js';
import { createProduct } from './support/products.js';
import { eventually } from './support/eventually.js';
import { startTestApp, TestApp } from './support/test-app.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';
import { applyCode, checkout, createPromotion, guestCart } from './support/promotions.js';

/** A `WHERE` on the primary key of a row just created through the API. */
type RowKey = Record<string, string | number>;

/**
 * Rule (docs/api.md, Conventions): every timestamp keeps its milliseconds, on both databases. Checked for every
 * date column of every entity the data source knows. A row of each is created through the API: by a creator
 * below, or, for a table none names, through its module's create route as `npm run generate:module` lays it out
 * (`POST /api/v1/<table, with hyphens>`, read from the served OpenAPI document). A new entity with a date column
 * and neither fails the test, naming its table, until a creator is added.
 */
describe('timestamps keep milliseconds in every date column of every entity', () => {
  let t: TestApp;
  let admin: Account;
  let receiver: WebhookReceiver;
  const sqlite = () => t.dataSource.options.type === 'better-sqlite3';

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON document walked by path
  let openApi: Record<string, any>;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    t = await startTestApp({ ...ADMIN_ENV, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    admin = await loginAdmin(t);
    openApi = (await request(t.url).get('/api/docs-json').expect(200)).body;
  });

  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const registerWebhook = async (): Promise<number> => {
    const res = await request(t.url)
      .post('/api/v1/admin/webhooks')
      .auth(admin.token, { type: 'bearer' })
      .send({ url: `${receiver.url}/timestamps`, events: ['product.created'] })
      .expect(201);
    return res.body.data.id;
  };

  // Creates one row of a table through the API, as a client would.
  let codes = 0;
  const creators: Record<string, () => Promise<RowKey>> = {
    users: async () => ({ id: (await createAccount(t)).id }),
    // ends_at must come after starts_at: the generic creator would set both to now.
    price_lists: async () => {
      const now = Date.now();
      const res = await request(t.url)
        .post('/api/v1/price-lists')
        .auth(admin.token, { type: 'bearer' })
        .send({
          name: 'Timestamps',
          type: 'sale',
          starts_at: new Date(now).toISOString(),
          ends_at: new Date(now + 86_400_000).toISOString(),
        })
        .expect(201);
      return { id: res.body.data.id };
    },
    products: async () => ({ id: (await createProduct(t, admin.token)).id }),
    orders: async () => {
      const product = await createProduct(t, admin.token);
      const buyer = await createAccount(t);
      const res = await postOrder(t, buyer.token, orderBody([[product.id, 1]])).expect(201);
      return { id: res.body.data.id };
    },
    sessions: async () => {
      const account = await createAccount(t);
      const [row] = await t.dataSource.query(
        'SELECT id FROM sessions WHERE user_id = ? ORDER BY created_at DESC LIMIT 1',
        [account.id],
      );
      return { id: row.id };
    },
    uploads: async () => {
      const res = await request(t.url)
        .post('/api/v1/upload')
        .auth(admin.token, { type: 'bearer' })
        .attach('file', sampleFile('image/png'), { filename: 'a.png', contentType: 'image/png' })
        .expect(200);
      return { path: res.body.data.filename };
    },
    addresses: async () => {
      const account = await createAccount(t);
      const res = await request(t.url)
        .post('/api/v1/me/addresses')
        .auth(account.token, { type: 'bearer' })
        .send({ name: 'Ada Lovelace', line1: '12 Analytical Row', city: 'London', country: 'GB' })
        .expect(201);
      return { id: res.body.data.id };
    },
    shipping_options: async () => ({ id: (await createShippingOption(admin.token)).id }),
    carts: async () => ({ id: (await request(t.url).post('/api/v1/carts').expect(201)).body.data.id }),
    cart_items: async () => {
      const cart = (await request(t.url).post('/api/v1/carts').expect(201)).body.data;
      const product = await createProduct(t, admin.token);
      const res = await request(t.url)
        .post(`/api/v1/carts/${cart.id}/items`)
        .set('X-Cart-Token', cart.cart_token)
        .send({ product_id: product.id, quantity: 1 })
        .expect(201);
      return { id: res.body.data.items[0].id };
    },
    categories: async () => {
      const res = await request(t.url)
        .post('/api/v1/categories')
        .auth(admin.token, { type: 'bearer' })
        .send({ name: 'Timestamped' })
        .expect(201);
      return { id: res.body.data.id };
    },
    webhooks: async () => ({ id: await registerWebhook() }),
    promotions: async () => {
      const window = {
        starts_at: new Date(Date.now() - 1000).toISOString(),
        ends_at: new Date(Date.now() + 3600_000).toISOString(),
      };
      return { id: (await createPromotion(t, admin.token, { type: 'free_shipping', ...window })).id };
    },
    cart_discount_codes: async () => {
      const product = await createProduct(t, admin.token);
      const code = `STAMP${++codes}`;
      await createPromotion(t, admin.token, { code, type: 'percentage', value: 5 });
      const cart = await guestCart(t, [[product.id, 1]]);
      await applyCode(t, cart, code).expect(201);
      return { cart_id: cart.id };
    },
    promotion_usages: async () => {
      const product = await createProduct(t, admin.token);
      const code = `STAMP${++codes}`;
      await createPromotion(t, admin.token, { code, type: 'percentage', value: 5 });
      const cart = await guestCart(t, [[product.id, 1]]);
      await applyCode(t, cart, code).expect(201);
      return { order_id: (await checkout(t, cart).expect(201)).body.data.id };
    },
    // Registration queues the verification e-mail; its job stores the token.
    account_tokens: async () => {
      const account = await createAccount(t);
      const tokens = () =>
        t.dataSource.query('SELECT id FROM account_tokens WHERE user_id = ?', [account.id]);
      await eventually(async () => (await tokens()).length > 0);
      return { id: (await tokens())[0].id };
    },
    // A delivery is queued after the commit of an event the webhook subscribes to.
    webhook_deliveries: async () => {
      const webhookId = await registerWebhook();
      await createProduct(t, admin.token);
      const deliveries = () =>
        t.dataSource.query('SELECT id FROM webhook_deliveries WHERE webhook_id = ?', [webhookId]);
      await eventually(async () => (await deliveries()).length > 0);
      return { id: (await deliveries())[0].id };
    },
    payments: async () => ({ id: (await paidManualPayment()).paymentId }),
    payment_refunds: async () => {
      const { orderId } = await paidManualPayment();
      const res = await request(t.url)
        .post(`/api/v1/admin/orders/${orderId}/refunds`)
        .auth(admin.token, { type: 'bearer' })
        .send({})
        .expect(201);
      return { id: res.body.data.id };
    },
    fulfilments: async () => ({ id: (await shippedOrder()).fulfilmentId }),
    returns: async () => {
      const { orderId, itemId, buyer } = await shippedOrder();
      const res = await request(t.url)
        .post(`/api/v1/orders/${orderId}/returns`)
        .auth(buyer.token, { type: 'bearer' })
        .send({ items: [{ order_item_id: itemId, quantity: 1 }] })
        .expect(201);
      return { id: res.body.data.id };
    },
    order_notes: async () => {
      const { orderId } = await paidManualPayment();
      const res = await request(t.url)
        .post(`/api/v1/admin/orders/${orderId}/notes`)
        .auth(admin.token, { type: 'bearer' })
        .send({ text: 'Paid by bank transfer' })
        .expect(201);
      return { id: res.body.data.id };
    },
    search_synonyms: async () => {
      const res = await request(t.url)
        .post('/api/v1/search/synonyms')
        .auth(admin.token, { type: 'bearer' })
        .send({ words: ['tee', 't-shirt'] })
        .expect(201);
      return { id: res.body.data.id };
    },
  };

  /** A paid order of one unit, shipped: its item, buyer and fulfilment. */
  const shippedOrder = async () => {
    const { orderId, buyer } = await paidManualPayment();
    const asAdmin = (call: request.Test) => call.auth(admin.token, { type: 'bearer' });
    const itemId = (await asAdmin(request(t.url).get(`/api/v1/orders/${orderId}`)).expect(200)).body.data
      .items[0].id as number;
    const fulfilment = await asAdmin(request(t.url).post(`/api/v1/admin/orders/${orderId}/fulfilments`))
      .send({ items: [{ order_item_id: itemId, quantity: 1 }] })
      .expect(201);
    return { orderId, itemId, buyer, fulfilmentId: fulfilment.body.data.id as number };
  };

  /** An order paid by bank transfer: its manual payment, confirmed by the admin. */
  const paidManualPayment = async () => {
    const product = await createProduct(t, admin.token);
    const buyer = await createAccount(t);
    const body = { ...orderBody([[product.id, 1]]), payment_method: 'bank_transfer' };
    const orderId = (await postOrder(t, buyer.token, body).expect(201)).body.data.id as number;
    const payment = await request(t.url)
      .post(`/api/v1/orders/${orderId}/payments`)
      .auth(buyer.token, { type: 'bearer' })
      .expect(201);
    await request(t.url)
      .patch(`/api/v1/orders/${orderId}/status`)
      .auth(admin.token, { type: 'bearer' })
      .send({ status: 'paid', payment_status: 'paid' })
      .expect(200);
    return { orderId, buyer, paymentId: payment.body.data.id as number };
  };

  const createShippingOption = async (token: string) =>
    (
      await request(t.url)
        .post('/api/v1/shipping-options')
        .auth(token, { type: 'bearer' })
        .send({ name: 'Standard', price: 4.95 })
        .expect(201)
    ).body.data as { id: number };

  /**
   * A table no creator names: one row through `POST /api/v1/<table, with hyphens>` as an admin, the body made of
   * the request schema's examples of its required fields, and every date-time field set to now.
   */
  const createThroughModuleRoute = async (table: string): Promise<RowKey> => {
    const path = `/api/v1/${table.replaceAll('_', '-')}`;
    const schemaRef: string | undefined =
      openApi.paths[path]?.post?.requestBody?.content?.['application/json']?.schema?.$ref;
    if (schemaRef === undefined) {
      throw new Error(
        `No way to create a row of ${table}: its module has no POST ${path}; add a creator for it in test/timestamps.e2e-spec.ts`,
      );
    }
    const schema = openApi.components.schemas[schemaRef.split('/').pop()!];
    const body: Record<string, unknown> = {};
    for (const [name, property] of Object.entries<{ format?: string; example?: unknown }>(
      schema.properties,
    )) {
      if (property.format === 'date-time') body[name] = new Date().toISOString();
      else if ((schema.required ?? []).includes(name)) body[name] = property.example;
    }
    const res = await request(t.url).post(path).auth(admin.token, { type: 'bearer' }).send(body);
    expect({ table, status: res.status }).toEqual({ table, status: 201 });
    return { id: res.body.data.id };
  };

  const dateColumns = (metadata: EntityMetadata): ColumnMetadata[] =>
    metadata.columns.filter((column) => column.type === 'datetime' || column.type === Date);

  const readRow = async (table: string, columns: ColumnMetadata[], key: RowKey) => {
    const [[name, value]] = Object.entries(key);
    const list = columns.map((column) => column.databaseName).join(', ');
    const [row] = await t.dataSource.query(`SELECT ${list} FROM ${table} WHERE ${name} = ?`, [value]);
    return row as Record<string, Date | string | null>;
  };

  /** On SQLite the stored text itself (`2026-11-25 06:56:50.123`); on MySQL the column's fractional digits. */
  const expectMilliseconds = async (table: string, column: string, value: Date | string | null) => {
    if (sqlite()) {
      expect({ table, column, value }).toEqual({
        table,
        column,
        value: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$/),
      });
    } else {
      const [info] = await t.dataSource.query(
        'SELECT DATETIME_PRECISION AS digits FROM information_schema.COLUMNS ' +
          'WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME = ?',
        [table, column],
      );
      expect({ table, column, digits: Number(info.digits) }).toEqual({ table, column, digits: 3 });
      expect(value).toBeInstanceOf(Date);
    }
  };

  it('a freshly created row of every entity: each timestamp it has is stored with milliseconds', async () => {
    const tables = t.dataSource.entityMetadatas.filter((metadata) => dateColumns(metadata).length > 0);
    // A creator whose table is gone (or lost its dates) goes too.
    const names = tables.map((metadata) => metadata.tableName);
    expect(Object.keys(creators).filter((table) => !names.includes(table))).toEqual([]);
    for (const metadata of tables) {
      const columns = dateColumns(metadata);
      const create = creators[metadata.tableName] ?? (() => createThroughModuleRoute(metadata.tableName));
      const before = Date.now();
      const key = await create();
      const after = Date.now();
      const row = await readRow(metadata.tableName, columns, key);
      for (const column of columns) {
        const value = row[column.databaseName];
        if (value === null) continue; // not set at creation (deleted_at, revoked_at)
        await expectMilliseconds(metadata.tableName, column.databaseName, value);
        // A creation time cut to whole seconds lands before the request began (but in its first millisecond).
        if (['created_at', 'updated_at', 'last_used_at'].includes(column.databaseName)) {
          const at = typeof value === 'string' ? Date.parse(`${value.replace(' ', 'T')}Z`) : value.getTime();
          const name = `${metadata.tableName}.${column.databaseName}`;
          expect({ name, at, before, after, within: at >= before && at <= after }).toMatchObject({
            within: true,
          });
        }
      }
    }
  });

  it('the API shows them: created_at of a new user is the stored instant, milliseconds included', async () => {
    const account = await createAccount(t);
    const user = await request(t.url)
      .get(`/api/v1/users/${account.id}`)
      .auth(account.token, { type: 'bearer' })
      .expect(200);
    const [stored] = await t.dataSource.query('SELECT created_at FROM users WHERE id = ?', [account.id]);
    const storedAt =
      typeof stored.created_at === 'string' ? `${stored.created_at.replace(' ', 'T')}Z` : stored.created_at;
    expect(user.body.data.created_at).toBe(new Date(storedAt).toISOString());
    expect(user.body.data.created_at).toBe(user.body.data.updated_at);
  });

  it('soft deletion of a user, a product and a shipping option writes deleted_at and updated_at with milliseconds', async () => {
    for (const [table, key, path] of [
      ['users', { id: (await createAccount(t)).id }, 'users'],
      ['products', { id: (await createProduct(t, admin.token)).id }, 'products'],
      ['shipping_options', { id: (await createShippingOption(admin.token)).id }, 'shipping-options'],
    ] as const) {
      await request(t.url)
        .delete(`/api/v1/${path}/${key.id}`)
        .auth(admin.token, { type: 'bearer' })
        .expect(200);
      const metadata = t.dataSource.entityMetadatas.find((m) => m.tableName === table)!;
      const row = await readRow(table, dateColumns(metadata), key);
      expect(row.deleted_at).not.toBeNull();
      for (const [column, value] of Object.entries(row)) await expectMilliseconds(table, column, value);
    }
  });
});
