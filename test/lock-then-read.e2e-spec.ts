import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { TransactionRunner } from '../src/database/transaction-runner.js';
import { lockAccount } from '../src/users/user-accounts.js';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { concurrentClient } from './support/http.js';
import { createProduct } from './support/products.js';
import { startTestApp, TestApp } from './support/test-app.js';

const CONCURRENT = 6;
const LIMIT = 2;

/**
 * Rule (docs/extending.md, "Reads after a lock"): a plain read made after a row lock was granted sees every
 * change committed before it, on both databases. On MySQL/MariaDB that holds because the service's connections
 * run at READ COMMITTED; at the servers' default, REPEATABLE READ, the read would see the snapshot taken by the
 * transaction's first read, from before the lock wait, and a limit counted that way is passed by concurrent
 * requests. SQLite runs one transaction at a time: there the rule holds by construction.
 */
describe('a plain read after a row lock sees what the lock waited for', () => {
  let t: TestApp;
  let admin: Account;
  const mysql = () => t.dataSource.options.type === 'mysql';

  beforeAll(async () => {
    t = await startTestApp({
      ...ADMIN_ENV,
      THROTTLE_CART_LIMIT: '100000',
      DATABASE_ACQUIRE_TIMEOUT_MS: '60000',
      DATABASE_QUERY_TIMEOUT_MS: '60000',
    });
    admin = await loginAdmin(t);
    // A throwaway table of this file's own database: what a module would count per customer.
    await t.dataSource.query(
      mysql()
        ? 'CREATE TABLE limited_claims (id INT AUTO_INCREMENT PRIMARY KEY, user_id INT NOT NULL, ' +
            'product_id INT NOT NULL, KEY IDX_limited_claims_user (user_id)) ENGINE=InnoDB'
        : 'CREATE TABLE limited_claims (id INTEGER PRIMARY KEY AUTOINCREMENT, user_id INTEGER NOT NULL, ' +
            'product_id INTEGER NOT NULL)',
    );
  });

  afterAll(async () => {
    await t?.close();
  });

  /** Resolves once `parties` callers have arrived (on SQLite, where transactions run one at a time, at once). */
  const barrier = (parties: number) => {
    let arrived = 0;
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    return () => {
      arrived += 1;
      if (arrived === parties || !mysql()) open();
      return opened;
    };
  };

  it(`${CONCURRENT} concurrent claims, limit ${LIMIT} per customer counted under the customer's row lock: exactly ${LIMIT} pass`, async () => {
    const customer = await createAccount(t);
    const product = await createProduct(t, admin.token, { stock: 50 });
    const transactions = t.app.get(TransactionRunner);
    const allHaveRead = barrier(CONCURRENT);
    // A module's unit of work as it is usually written: read what is asked for, lock the customer (customers
    // take turns), count what they hold, refuse past the limit, write.
    const claim = () =>
      transactions.run('claim limited product', async (tx) => {
        const [wanted] = await tx.query('SELECT id, stock FROM products WHERE id = ?', [product.id]);
        // Every request has read before any takes the lock: the race, made certain instead of likely.
        await allHaveRead();
        await lockAccount(tx, customer.id);
        const [{ n }] = await tx.query('SELECT COUNT(*) AS n FROM limited_claims WHERE user_id = ?', [
          customer.id,
        ]);
        if (Number(n) >= LIMIT) return 'refused';
        await tx.query('INSERT INTO limited_claims (user_id, product_id) VALUES (?, ?)', [
          customer.id,
          Number(wanted.id),
        ]);
        return 'claimed';
      });

    const outcomes = await Promise.all(Array.from({ length: CONCURRENT }, claim));

    expect(outcomes.filter((outcome) => outcome === 'claimed')).toHaveLength(LIMIT);
    expect(outcomes.filter((outcome) => outcome === 'refused')).toHaveLength(CONCURRENT - LIMIT);
    const [{ n }] = await t.dataSource.query('SELECT COUNT(*) AS n FROM limited_claims WHERE user_id = ?', [
      customer.id,
    ]);
    expect(Number(n)).toBe(LIMIT);
  });

  it(`a cart line of 1 unit, then ${CONCURRENT} concurrent POST /carts/{id}/items of 1 more: one line of ${CONCURRENT + 1} units`, async () => {
    // Adding to a cart reads the cart, locks its row, then reads the lines again to merge into an existing one.
    const product = await createProduct(t, admin.token, { stock: 100 });
    const created = await request(t.url).post('/api/v1/carts').expect(201);
    const cart = { id: created.body.data.id as string, token: created.body.data.cart_token as string };
    const add = (req: request.Test) =>
      req.set('X-Cart-Token', cart.token).send({ product_id: product.id, quantity: 1 });
    await add(request(t.url).post(`/api/v1/carts/${cart.id}/items`)).expect(201);

    const agent = concurrentClient();
    try {
      const responses = await Promise.all(
        Array.from({ length: CONCURRENT }, () =>
          add(request(t.url).post(`/api/v1/carts/${cart.id}/items`).agent(agent)),
        ),
      );
      expect(responses.map((res) => res.status)).toEqual(new Array(CONCURRENT).fill(201));
    } finally {
      agent.destroy();
    }

    const lines = await t.dataSource.query('SELECT product_id, quantity FROM cart_items WHERE cart_id = ?', [
      cart.id,
    ]);
    expect(lines.map((line: { product_id: number; quantity: number }) => Number(line.quantity))).toEqual([
      CONCURRENT + 1,
    ]);
    const read = await request(t.url)
      .get(`/api/v1/carts/${cart.id}`)
      .set('X-Cart-Token', cart.token)
      .expect(200);
    expect(read.body.data.items).toEqual([
      expect.objectContaining({ product_id: product.id, quantity: CONCURRENT + 1 }),
    ]);
  });
});
