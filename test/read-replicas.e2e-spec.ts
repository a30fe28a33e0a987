import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { randomBytes } from 'node:crypto';
import { ADMIN_ENV, createAccount, loginAdmin, type Account } from './support/accounts.js';
import { eventually } from './support/eventually.js';
import { MariaDbServer } from './support/mariadb-server.js';
import { scrape } from './support/metrics.js';
import { createProduct } from './support/products.js';
import { guestCart } from './support/promotions.js';
import { startTestApp, type TestApp } from './support/test-app.js';

// Selected by jest.config.cjs only in the MariaDB pass (TEST_DATABASE_URL set), which has the MariaDB binaries;
// the test starts a primary and a replica of its own.
const DATABASE = 'replicas_test';
const QUERY_TIMEOUT_MS = 2000;
const STICKY_MS = 1500;
const REPLICA_COPY = 'Replica copy';

/**
 * Read replicas (docs/operations.md#read-replicas): catalogue reads go to a replica; writes, and every read of a
 * caller within DATABASE_REPLICA_STICKY_MS of its write, go to the primary; a replica that stops answering or
 * replicating is bypassed without a failed request, and taken again once it is back.
 *
 * One product's name is changed on the replica only, so an answer shows which server gave it.
 */
describe('read replicas', () => {
  let primary: MariaDbServer;
  let replica: MariaDbServer;
  let t: TestApp;
  let admin: Account;
  let productId: number;
  let primaryName: string;

  beforeAll(async () => {
    [primary, replica] = await Promise.all([
      MariaDbServer.start({ binlog: true, serverId: 1 }),
      MariaDbServer.start({ serverId: 2 }),
    ]);
    await replica.replicate(primary);
    const url = await primary.createDatabase(DATABASE);
    await replica.caughtUp(primary);
    t = await startTestApp({
      ...ADMIN_ENV,
      CATALOG_PUBLIC: 'true',
      DATABASE_URL: url,
      DATABASE_REPLICA_URLS: `mysql://root@127.0.0.1:${replica.port}/${DATABASE}`,
      DATABASE_REPLICA_CHECK_INTERVAL_MS: '200',
      DATABASE_REPLICA_STICKY_MS: String(STICKY_MS),
      DATABASE_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
      DATABASE_ACQUIRE_TIMEOUT_MS: '1000',
    });
    admin = await loginAdmin(t);
    const product = await createProduct(t, admin.token, { name: 'Espresso grinder zeta', stock: 50 });
    productId = product.id;
    primaryName = product.name;
    await replica.caughtUp(primary);
    // Not in the binary log of the replica (it keeps none) nor the primary's: the replica's row differs.
    await replica.query(`UPDATE ${DATABASE}.products SET name = ? WHERE id = ?`, [REPLICA_COPY, productId]);
    await replica.query(`UPDATE ${DATABASE}.categories SET name = ? WHERE id = 1`, [REPLICA_COPY]);
    await replicaUp(1);
  }, 60_000);

  afterAll(async () => {
    replica?.thaw();
    await t?.close();
    await Promise.all([replica?.stop(), primary?.stop()]);
  });

  const replicaUp = (up: 0 | 1) =>
    eventually(async () => (await scrape(t.url)).value('commerce_db_replica_up', { replica: '0' }) === up, {
      ms: 15_000,
    });
  const readProduct = (token?: string, cartToken?: string) => {
    const read = request(t.url).get(`/api/v1/products/${productId}`);
    if (token !== undefined) read.auth(token, { type: 'bearer' });
    if (cartToken !== undefined) read.set('X-Cart-Token', cartToken);
    return read;
  };
  const namesOnServers = async () => ({
    primary: (await primary.query(`SELECT name FROM ${DATABASE}.products WHERE id = ?`, [productId]))[0].name,
    replica: (await replica.query(`SELECT name FROM ${DATABASE}.products WHERE id = ?`, [productId]))[0].name,
  });

  it('answers catalogue reads (product, list, search, category) from the replica and everything else from the primary', async () => {
    const detail = await readProduct().expect(200);
    expect(detail.body.data).toMatchObject({ id: productId, name: REPLICA_COPY });
    const list = await request(t.url)
      .get('/api/v1/products')
      .query({ ids: String(productId) })
      .expect(200);
    expect(list.body.data.map((row: { name: string }) => row.name)).toEqual([REPLICA_COPY]);
    // The search index is the primary's words (replicated), the row the replica's.
    const search = await request(t.url).get('/api/v1/products').query({ search: 'zeta' }).expect(200);
    expect(search.body.data.map((row: { id: number; name: string }) => [row.id, row.name])).toEqual([
      [productId, REPLICA_COPY],
    ]);

    const category = await request(t.url).get('/api/v1/categories/1').expect(200);
    expect(category.body.data).toMatchObject({ id: 1, name: REPLICA_COPY });
    const [{ name: primaryCategory }] = await primary.query(
      `SELECT name FROM ${DATABASE}.categories WHERE id = 1`,
    );
    expect(primaryCategory).not.toBe(REPLICA_COPY);

    // A cart (not a catalogue read) prices its line from the primary's row.
    const cart = await guestCart(t, [[productId, 1]]);
    const read = await request(t.url)
      .get(`/api/v1/carts/${cart.id}`)
      .set('X-Cart-Token', cart.token!)
      .expect(200);
    expect(read.body.data.items.map((item: { product_name: string }) => item.product_name)).toEqual([
      primaryName,
    ]);
    expect(await namesOnServers()).toEqual({ primary: primaryName, replica: REPLICA_COPY });
  });

  it("reads a caller's catalogue from the primary for DATABASE_REPLICA_STICKY_MS after that caller wrote", async () => {
    // The admin writes: its reads now see the primary, an anonymous caller's still the replica.
    await createProduct(t, admin.token);
    const [own, anonymous] = await Promise.all([readProduct(admin.token), readProduct()]);
    expect(own.status).toBe(200);
    expect(own.body.data.name).toBe(primaryName);
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.data.name).toBe(REPLICA_COPY);

    // A guest who changed its cart, by its cart token.
    const cart = await guestCart(t, [[productId, 1]]);
    const guest = await readProduct(undefined, cart.token!).expect(200);
    expect(guest.body.data.name).toBe(primaryName);

    // Once the time has passed, the replica again.
    await new Promise((resolve) => setTimeout(resolve, STICKY_MS + 100));
    const later = await readProduct(admin.token).expect(200);
    expect(later.body.data.name).toBe(REPLICA_COPY);
  });

  it('takes a replica that stops replicating out, reads from the primary meanwhile, and takes it back once current', async () => {
    await replica.query('STOP SLAVE SQL_THREAD');
    await replicaUp(0);
    const added = await createProduct(t, admin.token, { name: 'Written while the replica lags' });
    expect(await replica.query(`SELECT id FROM ${DATABASE}.products WHERE id = ?`, [added.id])).toEqual([]);
    // Anonymous (not sticky): the primary answers, with the new product and the primary's name.
    const fresh = await request(t.url).get(`/api/v1/products/${added.id}`).expect(200);
    expect(fresh.body.data.name).toBe('Written while the replica lags');
    expect((await readProduct().expect(200)).body.data.name).toBe(primaryName);

    await replica.query('START SLAVE SQL_THREAD');
    await replica.caughtUp(primary);
    await replicaUp(1);
    expect((await readProduct().expect(200)).body.data.name).toBe(REPLICA_COPY);
    const replicated = await replica.query(`SELECT name FROM ${DATABASE}.products WHERE id = ?`, [added.id]);
    expect(replicated).toEqual([{ name: 'Written while the replica lags' }]);
  });

  it('takes a replica whose reported lag passes DATABASE_REPLICA_MAX_LAG_MS out, and back once it caught up', async () => {
    await replica.query('STOP SLAVE');
    await replica.query('CHANGE MASTER TO MASTER_DELAY = 3');
    await replica.query('START SLAVE');
    try {
      // Delayed but with nothing to apply: current, taken.
      await replicaUp(1);
      const added = await createProduct(t, admin.token, { name: 'Written while the replica is delayed' });
      await replicaUp(0);
      const lag = (await scrape(t.url)).value('commerce_db_replica_lag_seconds', { replica: '0' });
      expect(lag).toBeGreaterThanOrEqual(1);
      // Anonymous: the primary answers, with the new product the replica has not applied yet.
      const fresh = await request(t.url).get(`/api/v1/products/${added.id}`).expect(200);
      expect(fresh.body.data.name).toBe('Written while the replica is delayed');
      expect(await replica.query(`SELECT id FROM ${DATABASE}.products WHERE id = ?`, [added.id])).toEqual([]);
    } finally {
      await replica.query('STOP SLAVE');
      await replica.query('CHANGE MASTER TO MASTER_DELAY = 0');
      await replica.query('START SLAVE');
    }
    await replica.caughtUp(primary);
    await replicaUp(1);
    expect((await readProduct().expect(200)).body.data.name).toBe(REPLICA_COPY);
  });

  it('answers every read while the replica stops answering (SIGSTOP), from the primary, and uses it again after SIGCONT', async () => {
    const fallbacksBefore = (await scrape(t.url)).value('commerce_db_replica_fallbacks_total') ?? 0;
    // Connections to the replica exist and are idle: the first reads are sent to it and get no answer.
    await Promise.all(Array.from({ length: 3 }, () => readProduct().expect(200)));
    replica.freeze();
    try {
      const reads = await Promise.all(Array.from({ length: 4 }, () => readProduct()));
      expect(reads.map((res) => [res.status, res.body.data.name])).toEqual(
        Array.from({ length: 4 }, () => [200, primaryName]),
      );
      await replicaUp(0);
      const started = Date.now();
      expect((await readProduct().expect(200)).body.data.name).toBe(primaryName);
      expect(Date.now() - started).toBeLessThan(QUERY_TIMEOUT_MS);
      const fallbacks = (await scrape(t.url)).value('commerce_db_replica_fallbacks_total') ?? 0;
      expect(fallbacks).toBeGreaterThan(fallbacksBefore);
    } finally {
      replica.thaw();
    }
    await replicaUp(1);
    expect((await readProduct().expect(200)).body.data.name).toBe(REPLICA_COPY);
  }, 30_000);

  // TEST_REDIS_URL: set by .ci/run in the MariaDB pass.
  (process.env.TEST_REDIS_URL === undefined ? it.skip : it)(
    'with REDIS_URL, keeps a caller who wrote through one instance on the primary through another',
    async () => {
      const shared = {
        ...ADMIN_ENV,
        CATALOG_PUBLIC: 'true',
        DATABASE_URL: t.databaseUrl,
        DATABASE_REPLICA_URLS: t.config.databaseReplicas.urls.join(','),
        DATABASE_REPLICA_STICKY_MS: '60000',
        REDIS_URL: process.env.TEST_REDIS_URL!,
        REDIS_KEY_PREFIX: `replicas-${randomBytes(4).toString('hex')}:`,
      };
      const [a, b] = [await startTestApp(shared), await startTestApp(shared)];
      try {
        const readOn = (app: TestApp, token?: string) => {
          const read = request(app.url).get(`/api/v1/products/${productId}`);
          return token === undefined ? read : read.auth(token, { type: 'bearer' });
        };
        const customer = await createAccount(a);
        expect((await readOn(b, customer.token).expect(200)).body.data.name).toBe(REPLICA_COPY);
        // A write through a; then the next reads through b.
        await guestCart(a, [[productId, 1]], { bearer: customer.token });
        expect((await readOn(b, customer.token).expect(200)).body.data.name).toBe(primaryName);
        expect((await readOn(b).expect(200)).body.data.name).toBe(REPLICA_COPY);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    },
  );

  it('without DATABASE_REPLICA_URLS, reads everything from the primary and shows no replica series', async () => {
    const alone = await startTestApp({ ...ADMIN_ENV, CATALOG_PUBLIC: 'true', DATABASE_URL: t.databaseUrl });
    try {
      const read = await request(alone.url).get(`/api/v1/products/${productId}`).expect(200);
      expect(read.body.data.name).toBe(primaryName);
      const metrics = await scrape(alone.url);
      expect(metrics.samples.filter((sample) => sample.name.startsWith('commerce_db_replica_up'))).toEqual(
        [],
      );
    } finally {
      await alone.close();
    }
    expect(await namesOnServers()).toEqual({ primary: primaryName, replica: REPLICA_COPY });
  });
});
