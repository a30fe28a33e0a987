// The costly-search check: searches made of many one-letter words, 10 at once, against 100 000 products on
// SQLite and on MariaDB, with a product read sent while they run and the event loop's delay measured in the
// service's own process (the service runs in this process, from the build). Results: docs/benchmarks.md,
// "Costly searches".
//
//   npm run build && node bench/search-guard.mjs [--database=sqlite|mysql] [--app-env=NAME=VALUE,...]
//
// Environment: BENCH_DATABASE_URL (mysql://root@127.0.0.1:3306/bench_search_100k) for MariaDB/MySQL; the
// SQLite file is seeded under the system's temporary directory and kept for the next run.
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { scriptOptions, startInProcess } from './lib/servers.mjs';
import { COMMON_WORDS, DATA_SET, prepareDatabase, seedSqlite } from './lib/seed.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PARALLEL = 10;
const { options, appEnv } = scriptOptions(process.argv.slice(2));

/** 100 characters of one-letter words: the search of the finding. */
const ONE_LETTER_WORDS = 'a b c d e f g h i j k l m n o p q r s t u v w x y z '.repeat(4).slice(0, 100);
const SEARCHES = [
  ['100 characters of one-letter words', ONE_LETTER_WORDS],
  ['the most short words allowed (`a b c`)', 'a b c'],
  ['a one-letter prefix alone (`c`)', 'c'],
  ['the most words allowed, all common', COMMON_WORDS.slice(0, 8).join(' ')],
];

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
  const { app, base } = await startInProcess(ROOT, { DATABASE_URL: databaseUrl, ...appEnv });
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
  await measure('SQLite', await seedSqlite(path, ROOT));
}
if (which !== 'sqlite') {
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/bench_search_100k';
  await prepareDatabase({ databaseUrl, reseed: false, cwd: ROOT, log: console.log });
  await measure('MariaDB', databaseUrl);
}
process.exit(0);
