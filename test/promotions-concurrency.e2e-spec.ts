import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import mysql from 'mysql2/promise';
import request from 'supertest';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { buildService, startAppProcess, type AppProcess } from './support/app-process.js';
import { concurrentClient } from './support/http.js';
import { createProduct } from './support/products.js';
import { applyCode, checkout, createPromotion, guestCart, type GuestCart } from './support/promotions.js';
import { createTestDatabase, startTestApp, type TestApp } from './support/test-app.js';

const onMysql = /^(mysql|mariadb):/.test(process.env.TEST_DATABASE_URL ?? '');
const ENV = {
  ...ADMIN_ENV,
  DATABASE_ACQUIRE_TIMEOUT_MS: '60000',
  DATABASE_QUERY_TIMEOUT_MS: '60000',
  ORDER_MAX_PENDING_PER_USER: '1000',
  THROTTLE_CART_LIMIT: '100000',
  THROTTLE_LIMIT: '100000',
  THROTTLE_AUTH_LIMIT: '100000',
};

/** The statuses and refusal rules of concurrent checkouts: [201 count, rules of the 400s]. */
async function outcomes(checkouts: Array<Promise<request.Response>>) {
  const responses = await Promise.all(checkouts);
  const placed = responses.filter((res) => res.status === 201);
  const refused = responses.filter((res) => res.status !== 201);
  return {
    placed: placed.map((res) => res.body.data.id as number),
    refusals: refused.map(
      (res) => `${res.status} ${res.body.data?.errors?.[0]?.field}/${res.body.data?.errors?.[0]?.rule}`,
    ),
  };
}

/** Usage limits under concurrent checkouts (DESIGN.md §16): exact, whatever arrives at once. */
describe('promotion usage under concurrency', () => {
  let t: TestApp;
  let admin: Account;
  let agent = concurrentClient();
  const query = (sql: string, parameters: unknown[] = []) =>
    t.dataSource.query(sql, parameters) as Promise<Array<Record<string, unknown>>>;
  const countOf = async (sql: string, parameters: unknown[]) => Number((await query(sql, parameters))[0].n);

  beforeAll(async () => {
    t = await startTestApp(ENV);
    admin = await loginAdmin(t);
  });

  beforeEach(() => {
    agent.destroy();
    agent = concurrentClient();
  });

  afterAll(async () => {
    agent.destroy();
    await t.close();
  });

  /** `count` carts of `product` holding `code` (guests unless `options` names an account or an e-mail). */
  async function cartsWith(
    count: number,
    productId: number,
    code: string,
    options: { bearer?: string; email?: string } = {},
  ) {
    const carts: GuestCart[] = [];
    for (let i = 0; i < count; i++) {
      const cart = await guestCart(t, [[productId, 1]], options);
      await applyCode(t, cart, code).expect(201);
      carts.push(cart);
    }
    return carts;
  }

  it('50 checkouts of a code limited to 5 uses: exactly 5 orders carry it, 45 are 400 usageLimit and place nothing', async () => {
    const product = await createProduct(t, admin.token, { price: 10, stock: 1000 });
    const code = await createPromotion(t, admin.token, {
      code: 'FIVEONLY',
      type: 'percentage',
      value: 10,
      usage_limit: 5,
    });
    const carts = await cartsWith(50, product.id, 'fiveonly');
    const { placed, refusals } = await outcomes(carts.map((cart) => checkout(t, cart, agent)));
    expect(placed).toHaveLength(5);
    expect(refusals).toEqual(new Array(45).fill('400 code/usageLimit'));
    expect(
      Number((await query('SELECT used_count FROM promotions WHERE id = ?', [code.id]))[0].used_count),
    ).toBe(5);
    expect(
      await countOf(
        'SELECT COUNT(*) AS n FROM promotion_usages WHERE promotion_id = ? AND released_at IS NULL',
        [code.id],
      ),
    ).toBe(5);
    const ids = carts.map((cart) => cart.id);
    const marks = ids.map(() => '?').join(', ');
    expect(await countOf(`SELECT COUNT(*) AS n FROM orders WHERE cart_id IN (${marks})`, ids)).toBe(5);
    expect(
      await countOf(
        `SELECT COUNT(DISTINCT a.order_id) AS n FROM order_adjustments a WHERE a.promotion_id = ?`,
        [code.id],
      ),
    ).toBe(5);
    expect(
      await countOf(`SELECT COUNT(*) AS n FROM carts WHERE status = 'open' AND id IN (${marks})`, ids),
    ).toBe(45);
    expect(Number((await query('SELECT stock FROM products WHERE id = ?', [product.id]))[0].stock)).toBe(995);
  });

  it('a limit of one use per customer holds for one account and for one guest e-mail checking out at once', async () => {
    const product = await createProduct(t, admin.token, { price: 10, stock: 1000 });
    const code = await createPromotion(t, admin.token, {
      code: 'ONEEACH',
      type: 'percentage',
      value: 10,
      usage_limit_per_customer: 1,
    });
    const customer = await createAccount(t);
    const accountCarts = await cartsWith(10, product.id, 'ONEEACH', { bearer: customer.token });
    const byAccount = await outcomes(accountCarts.map((cart) => checkout(t, cart, agent)));
    expect(byAccount.placed).toHaveLength(1);
    expect(byAccount.refusals).toEqual(new Array(9).fill('400 code/usageLimitPerCustomer'));

    const guestCarts = await cartsWith(10, product.id, 'ONEEACH', { email: 'same-shopper@example.com' });
    const byEmail = await outcomes(guestCarts.map((cart) => checkout(t, cart, agent)));
    expect(byEmail.placed).toHaveLength(1);
    expect(byEmail.refusals).toEqual(new Array(9).fill('400 code/usageLimitPerCustomer'));

    expect(
      Number((await query('SELECT used_count FROM promotions WHERE id = ?', [code.id]))[0].used_count),
    ).toBe(2);
    const usages = await query(
      'SELECT user_id, email FROM promotion_usages WHERE promotion_id = ? ORDER BY id',
      [code.id],
    );
    expect(usages.map((row) => [row.user_id === null ? null : Number(row.user_id), row.email])).toEqual([
      [customer.id, `${customer.username}@example.com`.toLowerCase()],
      [null, 'same-shopper@example.com'],
    ]);
  });

  it('concurrent cancellations of one order give its use back once', async () => {
    const product = await createProduct(t, admin.token, { price: 10, stock: 1000 });
    const code = await createPromotion(t, admin.token, { code: 'BACKONCE', type: 'percentage', value: 10 });
    const customer = await createAccount(t);
    const [cart] = await cartsWith(1, product.id, 'BACKONCE', { bearer: customer.token });
    const order = (await checkout(t, cart).expect(201)).body.data;
    const cancels = await Promise.all(
      [1, 2, 3, 4, 5].map(() =>
        request(t.url)
          .post(`/api/v1/orders/${order.id}/cancel`)
          .agent(agent)
          .auth(customer.token, { type: 'bearer' }),
      ),
    );
    expect(cancels.filter((res) => res.status === 200)).toHaveLength(1);
    expect(
      Number((await query('SELECT used_count FROM promotions WHERE id = ?', [code.id]))[0].used_count),
    ).toBe(0);
    expect(
      await countOf(
        'SELECT COUNT(*) AS n FROM promotion_usages WHERE promotion_id = ? AND released_at IS NOT NULL',
        [code.id],
      ),
    ).toBe(1);
  });
});

// Two processes of the built service on one MariaDB, as behind a load balancer: the limit is the database's.
(onMysql ? describe : describe.skip)('promotion usage across two instances (MariaDB)', () => {
  let a: AppProcess;
  let b: AppProcess;
  let dropDatabase: () => Promise<void>;
  let connection: mysql.Connection;

  beforeAll(async () => {
    buildService();
    const database = await createTestDatabase();
    dropDatabase = database.drop;
    const env = {
      ...ENV,
      DATABASE_URL: database.url,
      JWT_SECRET: 'promotions-two-instances-shared-secret-0123',
    };
    // One after the other: the first applies the migrations.
    a = await startAppProcess(env);
    b = await startAppProcess(env);
    connection = await mysql.createConnection(database.url);
  }, 180_000);

  afterAll(async () => {
    await connection?.end();
    await a?.stop();
    await b?.stop();
    await dropDatabase?.();
  });

  it('50 checkouts split over both instances of a code limited to 5: exactly 5 orders', async () => {
    const admin = await loginAdmin(a);
    const product = await createProduct(a, admin.token, { price: 10, stock: 1000 });
    const code = await createPromotion(b, admin.token, {
      code: 'TWOHOSTS',
      type: 'fixed',
      value: 1,
      currency_code: 'usd',
      usage_limit: 5,
    });
    const carts: GuestCart[] = [];
    for (let i = 0; i < 50; i++) {
      const instance = i % 2 === 0 ? a : b;
      const cart = await guestCart(instance, [[product.id, 1]]);
      await applyCode(instance, cart, 'TWOHOSTS').expect(201);
      carts.push(cart);
    }
    const agent = concurrentClient();
    const { placed, refusals } = await outcomes(
      carts.map((cart, i) => checkout(i % 2 === 0 ? b : a, cart, agent)),
    );
    agent.destroy();
    expect(placed).toHaveLength(5);
    expect(refusals).toEqual(new Array(45).fill('400 code/usageLimit'));
    const [[promotion]] = (await connection.query('SELECT used_count FROM promotions WHERE id = ?', [
      code.id,
    ])) as unknown as [Array<{ used_count: number }>];
    expect(Number(promotion.used_count)).toBe(5);
    const [[usages]] = (await connection.query(
      'SELECT COUNT(*) AS n FROM promotion_usages WHERE promotion_id = ?',
      [code.id],
    )) as unknown as [Array<{ n: number }>];
    expect(Number(usages.n)).toBe(5);
    const [[orders]] = (await connection.query('SELECT COUNT(*) AS n FROM orders')) as unknown as [
      Array<{ n: number }>,
    ];
    expect(Number(orders.n)).toBe(5);
  });
});
