// The costly-search check: searches made of many one-letter words, 10 at once, against 100 000 products on
// SQLite and on MariaDB, with a product read sent while they run and the event loop's delay measured in the
// service's own process (the service runs in this process, from the build). Results: docs/benchmarks.md,
// "Costly searches".
//
//   npm run build && node bench/search-guard.mjs [--database=sqlite|mysql] [--app-env=NAME=VALUE,...]
//
// Environment: BENCH_DATABASE_URL (mysql://root@127.0.0.1:3306/bench_search_100k) for MariaDB/MySQL; the
// SQLite file is seeded under the system's temporary directory and kept for the next run.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { COMMON_WORDS, DATA_SET, PRODUCT_SEED, prepareDatabase, productText, prng } from './lib/seed.mjs';

// The service's own choice of SQLite driver for this Node.js (src/database/sqlite-driver.ts).
const { loadSqliteDriver } = await import('../dist/src/database/sqlite-driver.js');
const Database = await loadSqliteDriver();
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PARALLEL = 10;
const options = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const [name, value] = arg.replace(/^--/, '').split('=');
    return [name, value ?? 'true'];
  }),
);
const appEnv = Object.fromEntries(
  (options['app-env'] ?? '')
    .split(',')
    .filter(Boolean)
    .map((pair) => pair.split('=')),
);

/** 100 characters of one-letter words: the search of the finding. */
const ONE_LETTER_WORDS = 'a b c d e f g h i j k l m n o p q r s t u v w x y z '.repeat(4).slice(0, 100);
const SEARCHES = [
  ['100 characters of one-letter words', ONE_LETTER_WORDS],
  ['the most short words allowed (`a b c`)', 'a b c'],
  ['a one-letter prefix alone (`c`)', 'c'],
  ['the most words allowed, all common', COMMON_WORDS.slice(0, 8).join(' ')],
];

async function seedSqlite(path) {
  const url = `sqlite:${path}`;
  execFileSync(
    process.execPath,
    ['node_modules/typeorm/cli.js', 'migration:run', '-d', 'dist/ormconfig.js'],
    {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: url },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const db = new Database(path);
  const { n } = db.prepare('SELECT COUNT(*) AS n FROM products').get();
  if (n !== DATA_SET.products) {
    console.log(`Seeding ${path}`);
    db.exec('DELETE FROM products');
    const insert = db.prepare(
      'INSERT INTO products (id, name, description, price_cents, stock, category_id, image, is_active, ' +
        "created_at, updated_at) VALUES (?, ?, ?, ?, 1000000, ?, '', 1, ?, ?)",
    );
    const random = prng(PRODUCT_SEED);
    db.transaction(() => {
      for (let id = 1; id <= DATA_SET.products; id++) {
        const { name, description } = productText(random, id);
        const created = new Date(Date.UTC(2026, 9, 1) + id * 1000)
          .toISOString()
          .replace('T', ' ')
          .slice(0, 23);
        insert.run(
          id,
          name,
          description,
          100 + (id % 99_900),
          (id % DATA_SET.categories) + 1,
          created,
          created,
        );
      }
    })();
    db.exec('ANALYZE');
  }
  db.close();
  return url;
}

function get(url) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    request(url, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode, ms: performance.now() - started }));
    })
      .on('error', reject)
      .end();
  });
}

/** The load, sent from a worker thread so that its timings do not wait on the service's event loop. */
async function load({ base, path }) {
  const searches = Array.from({ length: PARALLEL }, () => get(path));
  await new Promise((resolve) => setTimeout(resolve, 50));
  const read = await get(`${base}/products/${1 + Math.floor(Math.random() * 1000)}`);
  return { answers: await Promise.all(searches), read };
}

function inWorker(data) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(fileURLToPath(import.meta.url), { workerData: data });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

async function measure(label, databaseUrl) {
  const { createApp } = await import(join(ROOT, 'dist/src/app.js'));
  const { loadConfig } = await import(join(ROOT, 'dist/src/config/app-config.js'));
  const config = loadConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: 'error',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
    THROTTLE_LIMIT: '1000000',
    CATALOG_PUBLIC: 'true',
    DATABASE_URL: databaseUrl,
    ...appEnv,
  });
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${app.getHttpServer().address().port}/api/v1`;
  await get(`${base}/products/1`);
  console.log(`\n${label}: ${PARALLEL} searches at once, a product read 50 ms after they start`);
  console.log('| Search | answers | slowest answer | product read | event loop delay: max | p99 |');
  console.log('| --- | --- | ---: | ---: | ---: | ---: |');
  for (const [title, text] of SEARCHES) {
    const path = `${base}/products?search=${encodeURIComponent(text)}`;
    await get(path); // warm
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const { answers, read } = await inWorker({ base, path });
    delay.disable();
    const statuses = Object.entries(
      answers.reduce((counts, { status }) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {}),
    )
      .map(([status, count]) => `${count} × ${status}`)
      .join(', ');
    const slowest = Math.max(...answers.map((answer) => answer.ms));
    console.log(
      `| ${title} | ${statuses} | ${slowest.toFixed(0)} ms | ${read.status}, ${read.ms.toFixed(0)} ms | ` +
        `${(delay.max / 1e6).toFixed(0)} ms | ${(delay.percentile(99) / 1e6).toFixed(0)} ms |`,
    );
  }
  await app.close();
}

if (!isMainThread) {
  parentPort.postMessage(await load(workerData));
  process.exit(0);
}

const which = options.database ?? 'both';
if (which !== 'mysql') {
  const path = join(tmpdir(), `commerce-search-guard-${DATA_SET.products}.sqlite`);
  if (!existsSync(dirname(path))) throw new Error(`${dirname(path)} does not exist`);
  await measure('SQLite', await seedSqlite(path));
}
if (which !== 'sqlite') {
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/bench_search_100k';
  await prepareDatabase({ databaseUrl, reseed: false, cwd: ROOT, log: console.log });
  await measure('MariaDB', databaseUrl);
}
process.exit(0);
