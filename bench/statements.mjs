// The SQL statements each benchmarked cart and order request sends, per server (the service and the Express
// baseline by default), counted by a preload (lib/count-statements.mjs) in each server's request context. Fails
// when a server answers the promo cart of 5 lines with more statements than the same cart of 1 line (a statement
// per line). Known differences: the service's cart add reads the inserted line back (TypeORM) and its order
// writes the order event to the outbox, which the baselines leave out (see docs/benchmarks.md).
//
//   node bench/statements.mjs [--servers=app,express] [--verbose]    (after a build; BENCH_DATABASE_URL as run.mjs)
import jwt from 'jsonwebtoken';
import mysql from 'mysql2/promise';
import { createSecretKey, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cartIdOf, prepareDatabase, setAutomaticPromotion } from './lib/seed.mjs';
import { scriptOptions, startServer } from './lib/servers.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ENTRIES = {
  app: 'dist/src/main.js',
  express: 'bench/baseline/express.mjs',
  'node-http': 'bench/baseline/node-http.mjs',
};

const { options } = scriptOptions(process.argv.slice(2));
const names = (options.servers ?? 'app,express').split(',');
const databaseUrl =
  process.env.BENCH_DATABASE_URL ?? 'mysql://commerce:commerce@127.0.0.1:3306/commerce_bench';
const { sessionIds } = await prepareDatabase({
  databaseUrl,
  reseed: false,
  cwd: ROOT,
  log: (message) => console.log(message),
});
const secret = randomBytes(32).toString('hex');
const key = createSecretKey(Buffer.from(secret, 'utf8'));
const tokenOf = (user) =>
  jwt.sign(
    {
      sub: String(user),
      sid: sessionIds[user - 1],
      username: `user${String(user).padStart(4, '0')}`,
      role: 'user',
    },
    key,
    { algorithm: 'HS256', expiresIn: '1h' },
  );

const db = await mysql.createConnection({ uri: databaseUrl });
// User 2's promo cart keeps one line of its five: the same cart and promotions, fewer lines.
await db.query('DELETE FROM cart_items WHERE cart_id = ? AND product_id <> 6', [cartIdOf(2, 'promo')]);

const probes = [
  { name: 'cart read (5 lines)', user: 1, path: `/api/v1/carts/${cartIdOf(1, 'read')}` },
  // With the automatic promotion on, as in the cart-promo scenario (off for the others, as there).
  { name: 'cart promo (5 lines)', user: 1, path: `/api/v1/carts/${cartIdOf(1, 'promo')}`, automatic: true },
  { name: 'cart promo (1 line)', user: 2, path: `/api/v1/carts/${cartIdOf(2, 'promo')}`, automatic: true },
  {
    name: 'cart add',
    user: 1,
    method: 'POST',
    path: `/api/v1/carts/${cartIdOf(1, 'add')}/items`,
    body: { product_id: 7, quantity: 1 },
  },
  {
    name: 'order (2 items)',
    user: 1,
    method: 'POST',
    path: '/api/v1/orders',
    body: {
      items: [
        { product_id: 3, quantity: 1 },
        { product_id: 2, quantity: 2 },
      ],
      shipping_address: '1 Benchmark Road, Springfield',
      payment_method: 'credit_card',
    },
  },
];

/** Sends the probe as its user; gives the status once the whole answer is read. */
function call(url, probe) {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${probe.path}`,
      {
        method: probe.method ?? 'GET',
        headers: { authorization: `Bearer ${tokenOf(probe.user)}`, 'content-type': 'application/json' },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode));
      },
    );
    req.on('error', reject);
    req.end(probe.body === undefined ? undefined : JSON.stringify(probe.body));
  });
}

const counts = {};
const dir = mkdtempSync(join(os.tmpdir(), 'bench-statements-'));
try {
  for (const [i, name] of names.entries()) {
    const log = join(dir, `${name}.log`);
    const server = await startServer({
      name,
      args: ['--import=./bench/lib/count-statements.mjs', ENTRIES[name]],
      env: {
        DATABASE_URL: databaseUrl,
        JWT_SECRET: secret,
        NODE_ENV: 'production',
        LOG_LEVEL: 'warn',
        DATABASE_MIGRATIONS_RUN: 'false',
        ORDER_MAX_PENDING_PER_USER: '100000',
        STATEMENT_LOG: log,
      },
      port: 3990 + i,
      core: null,
      cwd: ROOT,
    });
    try {
      for (const probe of probes) {
        await setAutomaticPromotion(db, probe.automatic === true);
        const status = await call(server.url, probe);
        if (status >= 300) throw new Error(`${name}: ${probe.name} answered ${status}`);
      }
    } finally {
      await server.stop();
    }
    const entries = readFileSync(log, 'utf8')
      .split(/\n(?=[A-Z]+ \/)/)
      .filter((entry) => !entry.startsWith('GET /api/v1/health'));
    counts[name] = entries.map((entry) => Number(entry.split('\n')[0].split(' ')[3]));
    if (options.verbose !== undefined) console.log(`${name}:\n${entries.join('\n')}`);
  }
} finally {
  await setAutomaticPromotion(db, false);
  await db.end();
}

console.log(`\n${'request'.padEnd(22)} ${names.map((name) => name.padStart(10)).join(' ')}`);
probes.forEach((probe, i) =>
  console.log(
    `${probe.name.padEnd(22)} ${names.map((name) => String(counts[name][i]).padStart(10)).join(' ')}`,
  ),
);
const perLine = names.filter((name) => counts[name][1] !== counts[name][2]);
const differ = probes.filter((_, i) => names.some((name) => counts[name][i] !== counts[names[0]][i]));
if (perLine.length > 0) console.error(`A statement per line: ${perLine.join(', ')}`);
if (differ.length > 0) console.log(`The servers differ on: ${differ.map((probe) => probe.name).join(', ')}`);
process.exitCode = perLine.length > 0 ? 1 : 0;
