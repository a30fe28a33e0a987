// The product list's statements on the benchmark database: EXPLAIN (access type, index, estimated rows) and the
// median time of 5 runs, one at a time, as Markdown rows for docs/benchmarks.md ("Queries and indexes").
//   node bench/explain-catalog.mjs            (BENCH_DATABASE_URL as for npm run bench)
// The statements are the service's (src/products/product-list.query.ts) for a user, with typical values.
import mysql from 'mysql2/promise';
import { performance } from 'node:perf_hooks';
import { COMMON_WORDS, SEARCH_WORDS } from './lib/seed.mjs';

const url = process.env.BENCH_DATABASE_URL ?? 'mysql://commerce:commerce@127.0.0.1:3306/commerce_bench';
const VISIBLE = 'p.deleted_at IS NULL AND p.is_active = 1';
const match = (terms) => `MATCH (p.name, p.description, p.search_text) AGAINST ('${terms}' IN BOOLEAN MODE)`;
const ids = (score, where, order, offset = 0) =>
  `SELECT p.id AS id, ${score} AS score FROM products p WHERE ${where} ORDER BY ${order} LIMIT 21 OFFSET ${offset}`;

const connection = await mysql.createConnection({ uri: url });
const [[{ n }]] = await connection.query('SELECT COUNT(*) AS n FROM products');
const deep = Math.min(5000, Math.floor(n / 20)) * 20 - 20;

// Words of the seeded vocabulary (most frequent first): the commonest, one of median frequency, a rare one.
const common = COMMON_WORDS[0];
const median = SEARCH_WORDS[2000];
const rare = SEARCH_WORDS[3999];
// A search by page runs the third statement (the page and its count in one); the first two show what each part costs.
const search = (title, terms) => [
  [`search ${title}: page`, ids(match(terms), `${match(terms)} AND ${VISIBLE}`, 'score DESC, p.id ASC')],
  [`search ${title}: count`, `SELECT COUNT(*) AS n FROM products p WHERE ${match(terms)} AND ${VISIBLE}`],
  [
    `search ${title}: page and count`,
    `SELECT p.id AS id, ${match(terms)} AS score, COUNT(*) OVER () AS n FROM products p ` +
      `WHERE ${match(terms)} AND ${VISIBLE} ORDER BY score DESC, p.id ASC LIMIT 21`,
  ],
];

const statements = [
  ...search(`\`${median}\` (median word)`, `+${median}*`),
  ...search(`\`${rare}\` (rare word)`, `+${rare}*`),
  ...search(`\`${common}\` (commonest word)`, `+${common}*`),
  ...search(`\`${median.slice(0, 3)}\` (prefix)`, `+${median.slice(0, 3)}*`),
  ...search(`\`${common} ${median}\``, `+${common} +${median}*`),
  ['search `zzzz`: page', ids(match('+zzzz*'), `${match('+zzzz*')} AND ${VISIBLE}`, 'score DESC, p.id ASC')],
  [
    'search `tv` (short word): page',
    ids(
      '0',
      `${VISIBLE} AND CONCAT_WS(' ', p.name, p.description, p.search_text) REGEXP '\\\\btv'`,
      'score DESC, p.id ASC',
    ),
  ],
  ['sort=id, page 1', ids('0', VISIBLE, 'p.id ASC')],
  [`sort=id, page ${deep / 20 + 1} by page`, ids('0', VISIBLE, 'p.id ASC', deep)],
  [`sort=id, page ${deep / 20 + 1} by cursor`, ids('0', `${VISIBLE} AND p.id > ${deep}`, 'p.id ASC')],
  ['sort=price, category', ids('0', `${VISIBLE} AND p.category_id = 13`, 'p.price_cents ASC, p.id ASC')],
  [`sort=price, page ${deep / 20 + 1} by page`, ids('0', VISIBLE, 'p.price_cents ASC, p.id ASC', deep)],
  [
    'sort=price by cursor',
    ids(
      '0',
      `${VISIBLE} AND (p.price_cents > 90000 OR (p.price_cents = 90000 AND p.id > 4000))`,
      'p.price_cents ASC, p.id ASC',
    ),
  ],
  ['sort=-name', ids('0', VISIBLE, 'p.name DESC, p.id DESC')],
  [
    'sort=-name, category, by cursor',
    ids(
      '0',
      `${VISIBLE} AND p.category_id = 13 AND (p.name < 'Modern' OR (p.name = 'Modern' AND p.id < 4000))`,
      'p.name DESC, p.id DESC',
    ),
  ],
  [
    'sort=-created_at, category',
    ids('0', `${VISIBLE} AND p.category_id = 13`, 'p.created_at DESC, p.id DESC'),
  ],
  ['count, category', `SELECT COUNT(*) AS n FROM products p WHERE ${VISIBLE} AND p.category_id = 13`],
  // The total of an unfiltered list: every page of it, by page or by cursor, counts it.
  ['count, all visible', `SELECT COUNT(*) AS n FROM products p WHERE ${VISIBLE}`],
];

console.log(`${n} products, ${(await connection.query('SELECT VERSION() AS v'))[0][0].v}\n`);
console.log('| Statement | type | key | rows (estimate) | Extra | result | median ms |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const [title, sql] of statements) {
  const [[plan]] = await connection.query(`EXPLAIN ${sql}`);
  const times = [];
  let result;
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    [result] = await connection.query(sql);
    times.push(performance.now() - start);
  }
  // A count's number, or how many rows a page statement returned.
  const returned = result[0]?.n ?? `${result.length} rows`;
  times.sort((a, b) => a - b);
  console.log(
    `| ${title} | ${plan.type} | ${plan.key ?? '-'} | ${plan.rows} | ${plan.Extra ?? ''} | ${returned} | ${times[2].toFixed(1)} |`,
  );
}
await connection.end();
