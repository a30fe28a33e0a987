import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/config/app-config.js';
import { buildDataSourceOptions } from '../src/database/data-source-options.js';
import { RecordOrderHistory1763803700000 } from '../src/database/migrations/1763803700000-record-order-history.js';
import { migrations } from '../src/database/migrations/index.js';
import { revertThrough } from './support/migrations.js';
import { ADMIN_ENV, loginAdmin } from './support/accounts.js';
import { createTestDatabase, startTestApp } from './support/test-app.js';

const UPTO = migrations.indexOf(RecordOrderHistory1763803700000) + 1;

/** A data source on `url` knowing the first `count` migrations (the database as that release left it). */
async function dataSourceAt(url: string, count: number): Promise<DataSource> {
  const config = loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: 'test-secret-test-secret-test-secret-0123',
    DATABASE_URL: url,
  });
  const dataSource = new DataSource({
    ...(await buildDataSourceOptions(config)),
    migrations: migrations.slice(0, count),
  });
  return dataSource.initialize();
}

// Orders marked paid by hand before manual payments were recorded get one by the migration, so that they are
// refunded through the payments module like any other; the outbox learns which order each event is about.
describe('the order history migration', () => {
  let url: string;
  let drop: () => Promise<void>;
  let db: DataSource;

  const order = (id: number, paymentStatus: string, status: string, total: number, giftCards = 0) =>
    db.query(
      'INSERT INTO orders (id, order_number, user_id, total_cents, gift_card_total_minor, status, payment_status, ' +
        "shipping_address, payment_method, currency_code, updated_at) VALUES (?, ?, 1, ?, ?, ?, ?, '1 Main St', " +
        "'bank_transfer', 'eur', '2026-11-01 10:00:00.000')",
      [id, `ORD-20261101-0000000${id}`, total, giftCards, status, paymentStatus],
    );
  const payment = (orderId: number, provider: string, status: string, amount: number, refunded = 0) =>
    db.query(
      'INSERT INTO payments (order_id, live_order_id, provider, status, amount_cents, currency, refunded_cents) ' +
        "VALUES (?, NULL, ?, ?, ?, 'eur', ?)",
      [orderId, provider, status, amount, refunded],
    );
  const payments = async () =>
    (
      await db.query(
        'SELECT order_id, provider, status, amount_cents, currency, refunded_cents, recorded_by, created_at ' +
          'FROM payments ORDER BY order_id, id',
      )
    ).map((row: Record<string, unknown>) => ({
      order_id: Number(row.order_id),
      provider: row.provider,
      status: row.status,
      amount_cents: Number(row.amount_cents),
      currency: row.currency,
      refunded_cents: Number(row.refunded_cents),
      recorded_by: row.recorded_by,
    }));

  beforeAll(async () => {
    ({ url, drop } = await createTestDatabase());
    db = await dataSourceAt(url, UPTO - 1);
    await db.runMigrations();
    await db.query(
      "INSERT INTO users (id, username, email, password_hash) VALUES (1, 'buyer', 'buyer@example.com', 'x')",
    );
    await order(1, 'paid', 'paid', 2500); // marked paid by hand, no payment row
    await order(2, 'refunded', 'cancelled', 1800); // paid and refunded by hand
    await order(3, 'partially_refunded', 'paid', 3000, 1000); // a gift card, the rest by hand; refunded to the card
    await payment(3, 'gift_card', 'partially_refunded', 1000, 400);
    await order(4, 'paid', 'paid', 4000); // paid through Stripe: has its payment
    await payment(4, 'stripe', 'paid', 4000);
    await order(5, 'pending', 'pending', 900); // nothing paid
    await order(6, 'paid', 'paid', 1200, 1200); // gift cards paid it all
    await payment(6, 'gift_card', 'paid', 1200);
    await order(7, 'paid', 'paid', 700); // its waiting manual payment was cancelled, then it was marked paid
    await payment(7, 'manual', 'cancelled', 700);
    await db.query(
      "INSERT INTO outbox_events (id, type, data, created_at, available_at) VALUES ('e1', 'order.updated', ?, " +
        "'2026-11-01 10:00:00.000', '2026-11-01 10:00:00.000'), ('e2', 'user.created', ?, " +
        "'2026-11-01 10:00:00.000', '2026-11-01 10:00:00.000')",
      [JSON.stringify({ userId: 1, order: { id: 7, status: 'paid' } }), JSON.stringify({ id: 1 })],
    );
    await db.destroy();
    db = await dataSourceAt(url, UPTO);
  });

  afterAll(async () => {
    if (db.isInitialized) await db.destroy();
    await drop();
  });

  it('gives each order that took money without a payment row a manual payment of its amount due, status as the order says', async () => {
    await db.runMigrations();
    expect(await payments()).toEqual([
      {
        order_id: 1,
        provider: 'manual',
        status: 'paid',
        amount_cents: 2500,
        currency: 'eur',
        refunded_cents: 0,
        recorded_by: null,
      },
      {
        order_id: 2,
        provider: 'manual',
        status: 'refunded',
        amount_cents: 1800,
        currency: 'eur',
        refunded_cents: 1800,
        recorded_by: null,
      },
      {
        order_id: 3,
        provider: 'gift_card',
        status: 'partially_refunded',
        amount_cents: 1000,
        currency: 'eur',
        refunded_cents: 400,
        recorded_by: null,
      },
      {
        order_id: 3,
        provider: 'manual',
        status: 'paid',
        amount_cents: 2000,
        currency: 'eur',
        refunded_cents: 0,
        recorded_by: null,
      },
      {
        order_id: 4,
        provider: 'stripe',
        status: 'paid',
        amount_cents: 4000,
        currency: 'eur',
        refunded_cents: 0,
        recorded_by: null,
      },
      {
        order_id: 6,
        provider: 'gift_card',
        status: 'paid',
        amount_cents: 1200,
        currency: 'eur',
        refunded_cents: 0,
        recorded_by: null,
      },
      {
        order_id: 7,
        provider: 'manual',
        status: 'cancelled',
        amount_cents: 700,
        currency: 'eur',
        refunded_cents: 0,
        recorded_by: null,
      },
      {
        order_id: 7,
        provider: 'manual',
        status: 'paid',
        amount_cents: 700,
        currency: 'eur',
        refunded_cents: 0,
        recorded_by: null,
      },
    ]);
    const events = await db.query('SELECT id, order_id FROM outbox_events ORDER BY id');
    expect(
      events.map((row: { id: string; order_id: unknown }) => [
        row.id,
        row.order_id === null ? null : Number(row.order_id),
      ]),
    ).toEqual([
      ['e1', 7],
      ['e2', null],
    ]);
  });

  it('reverts (keeping the payments, which record money taken) and applies again without a second backfill', async () => {
    await revertThrough(db, RecordOrderHistory1763803700000.name);
    await db.runMigrations();
    expect(await payments()).toHaveLength(8);
  });

  it('the service refunds a backfilled payment in part through the refunds endpoint', async () => {
    await db.destroy();
    const t = await startTestApp({ ...ADMIN_ENV, DATABASE_URL: url });
    try {
      const { token } = await loginAdmin(t);
      const refunded = await request(t.url)
        .post('/api/v1/admin/orders/1/refunds')
        .auth(token, { type: 'bearer' })
        .send({ amount: 5 })
        .expect(201);
      expect(refunded.body.data).toMatchObject({ amount: 5, status: 'succeeded' });
      const [row] = await t.dataSource.query(
        "SELECT status, refunded_cents FROM payments WHERE order_id = 1 AND provider = 'manual'",
      );
      expect({ status: row.status, refunded_cents: Number(row.refunded_cents) }).toEqual({
        status: 'partially_refunded',
        refunded_cents: 500,
      });
      const [orderRow] = await t.dataSource.query('SELECT payment_status FROM orders WHERE id = 1');
      expect(orderRow.payment_status).toBe('partially_refunded');
    } finally {
      await t.close();
    }
  });
});
