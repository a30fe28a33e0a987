// Seeds (or checks and reuses) a benchmark database without running the benchmark, e.g. a large catalogue ahead
// of a run:
//   npm run build && BENCH_DATABASE_URL=mysql://root@127.0.0.1:3306/bench_search_1m node bench/seed.mjs --products=1000000
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareDatabase, setProductCount } from './lib/seed.mjs';

const products = /^--products=(\d+)$/.exec(process.argv[2] ?? '');
if (products !== null) setProductCount(Number(products[1]));
const databaseUrl =
  process.env.BENCH_DATABASE_URL ?? 'mysql://commerce:commerce@127.0.0.1:3306/commerce_bench';
const started = Date.now();
const prepared = await prepareDatabase({
  databaseUrl,
  reseed: false,
  cwd: join(dirname(fileURLToPath(import.meta.url)), '..'),
  log: (line) => console.log(`${new Date().toISOString()} ${line}`),
});
console.log(`${prepared.seeded ? 'Seeded' : 'Reused'} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
