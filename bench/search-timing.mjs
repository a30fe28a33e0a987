// One search at a time on one connection: the service (from the build, in this process) answers each search of
// the list below several times; printed per search are the median answer, its statements with their own median
// time, and each statement's EXPLAIN. Results: docs/benchmarks.md, "Search".
//
//   npm run build && node bench/search-timing.mjs --database=sqlite --products=1000000
//   npm run build && BENCH_DATABASE_URL=mysql://root@127.0.0.1:3306/bench_search_1m \
//     node bench/search-timing.mjs --database=mysql --products=1000000 [--explain] [--app-env=SEARCH_RANK_LIMIT=5000]
//
// The SQLite file is seeded under the system's temporary directory and kept for the next run; MariaDB/MySQL
// databases are seeded as the benchmark does (bench/lib/seed.mjs).
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { scriptOptions, startInProcess } from './lib/servers.mjs';
import {
  COMMON_WORDS,
  DATA_SET,
  prepareDatabase,
  SEARCH_WORDS,
  seedSqlite,
  setProductCount,
} from './lib/seed.mjs';

const TYPO_WORDS = SEARCH_WORDS.filter((word) => word.length >= 5);
const swapped = (word) => word[1] + word[0] + word.slice(2);
const dropped = (word) => word.slice(0, 2) + word.slice(3);

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = 7;
const { options, appEnv } = scriptOptions(process.argv.slice(2));
if (options.products !== undefined) setProductCount(Number(options.products));

const SEARCHES = [
  ['the commonest word', `search=${COMMON_WORDS[0]}`],
  ['the commonest word, 2nd page', `search=${COMMON_WORDS[0]}&page=2`],
  ['the commonest word by price', `search=${COMMON_WORDS[0]}&sort=price`],
  ['two common words', `search=${COMMON_WORDS[0]}%20${COMMON_WORDS[1]}`],
  ['a common word in a category', `search=${COMMON_WORDS[2]}&category_id=7`],
  ['a mid-frequency word', `search=${SEARCH_WORDS[300]}`],
  ['a word of about 2 000 products', `search=${SEARCH_WORDS[850]}`],
  ['a word of about 2 000 products by price', `search=${SEARCH_WORDS[850]}&sort=price`],
  ['a rare word', `search=${SEARCH_WORDS[3000]}`],
  ['a 1-letter prefix', 'search=b'],
  ['a 2-letter prefix', 'search=ba'],
  ['a 3-letter prefix', `search=${COMMON_WORDS[0].slice(0, 3)}`],
  ['a common word and a 3-letter prefix', `search=${COMMON_WORDS[1]}%20${SEARCH_WORDS[500].slice(0, 3)}`],
  // Pairs of common words searched once each in this run (the first answer is the one that counts).
  ['two common words, a fresh pair', `search=${SEARCH_WORDS[11]}%20${SEARCH_WORDS[12]}`],
  ['two common words, another fresh pair', `search=${SEARCH_WORDS[40]}%20${SEARCH_WORDS[95]}`],
  ['two common words, a third fresh pair', `search=${SEARCH_WORDS[150]}%20${SEARCH_WORDS[7]}`],
  ['two common words, a fourth fresh pair', `search=${SEARCH_WORDS[299]}%20${SEARCH_WORDS[3]}`],
  // Typos (words of 5 letters or more): a common word's prefix with a swap, a rare one's with a letter dropped,
  // a common word misspelled before another common word.
  ['a common word misspelled (prefix)', `search=${swapped(TYPO_WORDS[0])}`],
  ['a rare word misspelled (prefix)', `search=${swapped(TYPO_WORDS[2500])}`],
  ['a misspelled common word and a common word', `search=${dropped(TYPO_WORDS[1])}%20${SEARCH_WORDS[4]}`],
  ['a common word with the facets', `search=${COMMON_WORDS[5]}&facets=category_id,options,price`],
];

function get(url) {
  return new Promise((resolve, reject) => {
    request(url, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode, body: JSON.parse(Buffer.concat(chunks).toString()) }),
      );
    })
      .on('error', reject)
      .end();
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function explain(dataSource, mysql, sql, params) {
  const rows = await dataSource.query(`${mysql ? 'EXPLAIN' : 'EXPLAIN QUERY PLAN'} ${sql}`, params);
  return mysql
    ? rows.map(
        (r) => `${r.id} ${r.select_type} ${r.table} ${r.type} key=${r.key} rows=${r.rows} ${r.Extra ?? ''}`,
      )
    : rows.map((r) => `${r.id} ${r.parent} ${r.detail}`);
}

async function main() {
  const mysql = options.database === 'mysql';
  let databaseUrl;
  if (mysql) {
    databaseUrl = process.env.BENCH_DATABASE_URL ?? 'mysql://root@127.0.0.1:3306/bench_search_100k';
    await prepareDatabase({ databaseUrl, reseed: false, cwd: ROOT, log: console.log });
  } else {
    databaseUrl = await seedSqlite(join(tmpdir(), `commerce-search-${DATA_SET.products}.sqlite`), ROOT);
  }
  const { DataSource } = await import('typeorm');
  const { app, base: api } = await startInProcess(ROOT, {
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_SIZE: '2',
    SEARCH_CONCURRENCY: '1',
    SEARCH_TIMEOUT_MS: '60000',
    ...appEnv,
  });
  const dataSource = app.get(DataSource);
  const base = `${api}/products?`;
  const logger = dataSource.logger;
  const logQuery = logger.logQuery.bind(logger);
  console.log(`${mysql ? 'MariaDB/MySQL' : 'SQLite'}, ${DATA_SET.products} products, ${RUNS} runs each`);
  for (const [title, query] of SEARCHES.filter(([title]) => title.includes(options.only ?? ''))) {
    const statements = [];
    logger.logQuery = (sql, params) => {
      statements.push({ sql, params });
      return logQuery(sql, params);
    };
    const firstStarted = performance.now();
    const first = await get(base + query);
    const firstMs = performance.now() - firstStarted;
    const body = first.body;
    logger.logQuery = logQuery;
    const times = [];
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      await get(base + query);
      times.push(performance.now() - started);
    }
    console.log(
      `\n## ${title} (${query}): ${first.status}, first ${firstMs.toFixed(1)} ms, ` +
        `median ${median(times).toFixed(1)} ms warm; ` +
        `total ${body.meta?.total} exact ${body.meta?.total_exact}; first answer's statements:`,
    );
    for (const { sql, params } of statements) {
      if (
        !/^(WITH [^]*)?SELECT (p\.id|COUNT|CASE WHEN|\(SELECT COUNT|category_id|name, value_key|d\.product_id AS id)/.test(
          sql,
        )
      )
        continue;
      const own = [];
      for (let run = 0; run < RUNS; run++) {
        const started = performance.now();
        await dataSource.query(sql, params);
        own.push(performance.now() - started);
      }
      console.log(`- ${median(own).toFixed(1)} ms: ${sql.slice(0, 400)}`);
      if (options.explain !== undefined) {
        for (const line of await explain(dataSource, mysql, sql, params)) console.log(`    ${line}`);
      }
    }
  }
  await app.close();
}

await main();
process.exit(0);
