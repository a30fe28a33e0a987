// Benchmark: the service (production build) against two bare baselines (Express, node:http) doing the same
// SQL, in one invocation, alternating rounds. See docs/benchmarks.md for the method and the results.
//
//   npm run bench                  full run (about 20 minutes), rewrites the results part of docs/benchmarks.md
//   npm run bench -- --quick       short run (under 3 minutes), prints the table, leaves the docs alone
//   npm run bench -- --profile=read   the service alone under one scenario with --cpu-prof, then a summary
//   npm run bench -- --replica     the service on a MariaDB primary of the bench's own, once alone and once
//                                  reading from a replica of it (catalogue reads only); combines with the rest
//
// Options: --reseed, --products=N (catalogue size, 100 000 by default), --only=read,list, --rounds=N, --duration=S, --warmup=S, --jit-warmup=S, --no-build,
// --write-report; for experiments --servers=app,express, --app-env=NAME=VALUE,... and --compare-dist=DIR.
// Environment: BENCH_DATABASE_URL (mysql://commerce:commerce@127.0.0.1:3306/commerce_bench), BENCH_POOL_SIZE (10).
import autocannon from 'autocannon';
import jwt from 'jsonwebtoken';
import mysql from 'mysql2/promise';
import { execFileSync } from 'node:child_process';
import { createSecretKey, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { formatSummary, summariseProfile } from './profile.mjs';
import { writeReport } from './lib/report.mjs';
import { bufferPoolMiB, caughtUp, replicate, selectCount, startMariaDb } from './lib/mariadb.mjs';
import { scenarios as allScenarios, replicaScenarios } from './lib/scenarios.mjs';
import {
  BENCH_PASSWORD,
  cartIdOf,
  DATA_SET,
  databaseNameOf,
  emptyAddCarts,
  HOT_PRODUCT_ID,
  prepareDatabase,
  SEARCH_WORDS,
  setAutomaticPromotion,
  setProductCount,
} from './lib/seed.mjs';
import {
  cpuSeconds,
  databasePid,
  freePort,
  hasTaskset,
  peakRssMiB,
  pinSelf,
  resetPeakRss,
  startServer,
} from './lib/servers.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS_DIR = join(ROOT, 'bench', 'results');
const SERVER_CORE = 0;
const LOAD_CORE = 1;

const FLAGS = new Set([
  'quick',
  'reseed',
  'no-build',
  'write-report',
  'only',
  'rounds',
  'duration',
  'warmup',
  'jit-warmup',
  'hot-stock',
  'servers',
  'app-env',
  'compare-dist',
  'profile',
  'profile-server',
  'products',
  'replica',
]);

function parseArgs(argv) {
  const flags = new Map();
  for (const arg of argv) {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!match || !FLAGS.has(match[1])) throw new Error(`Unknown argument ${arg} (see bench/run.mjs)`);
    flags.set(match[1], match[2] ?? true);
  }
  const quick = flags.has('quick');
  const replica = flags.has('replica');
  if (replica && ['profile', 'servers', 'compare-dist', 'reseed'].some((name) => flags.has(name))) {
    throw new Error(
      '--replica runs app and app-replica on servers of its own: no --profile, --servers, --compare-dist or --reseed',
    );
  }
  const number = (name, fallback) => (flags.has(name) ? Number(flags.get(name)) : fallback);
  return {
    quick,
    reseed: flags.has('reseed'),
    products: number('products', DATA_SET.products),
    build: !flags.has('no-build'),
    only: flags.has('only') ? String(flags.get('only')).split(',') : null,
    replica,
    servers: replica
      ? ['app', 'app-replica']
      : flags.has('servers')
        ? String(flags.get('servers')).split(',')
        : ['app', 'express', 'node-http'],
    // A second build of the service (a copy of an earlier dist/) run as "app-b" beside the current one: A/B.
    compareDist: flags.has('compare-dist') ? String(flags.get('compare-dist')) : null,
    profile: flags.has('profile')
      ? String(flags.get('profile') === true ? 'read' : flags.get('profile'))
      : null,
    profileServer: String(flags.get('profile-server') ?? 'app'),
    // Extra settings for the service only, e.g. --app-env=LOG_LEVEL=log,DATABASE_POOL_SIZE=20 (experiments).
    appEnv: flags.has('app-env')
      ? Object.fromEntries(
          String(flags.get('app-env'))
            .split(',')
            .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
        )
      : {},
    // Quick runs spend their warm-up budget once, up front: per-scenario warm-ups of a second did less.
    warmup: number('warmup', quick ? 0 : 5),
    // Before the first scenario, each server runs the mixed load this long so that its JIT has compiled every
    // path and its heap has grown to its working size (the service has far more of both than the baselines).
    jitWarmup: number('jit-warmup', quick ? 9 : 15),
    duration: number('duration', quick ? 2 : 10),
    // A multiple of three, so that each server runs first, second and third equally often.
    rounds: number('rounds', quick ? 3 : 6),
    hotStock: number('hot-stock', quick ? 200 : 1000),
    // The report's tables compare the service with the baselines: replica mode only prints its own.
    writeReport:
      !replica &&
      (flags.has('write-report') ||
        (!quick &&
          !['only', 'profile', 'servers', 'app-env', 'rounds', 'duration', 'compare-dist'].some((name) =>
            flags.has(name),
          ))),
  };
}

function call(url, { method = 'GET', path, headers = {}, body }) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      `${url}${path}`,
      {
        method,
        headers: payload === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

function machine(mariadbVersion, taskset) {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    database: mariadbVersion,
    pinned: taskset,
  };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/**
 * The database servers whose CPU time each load measures: the one on this machine, or in replica mode the
 * primary and the replica, whose SELECT statements are counted too (over `connection`).
 */
let databases = [{ name: 'database', pid: databasePid() }];

const databaseCounters = () =>
  Promise.all(
    databases.map(async ({ pid, connection }) => ({
      cpu: pid === null ? null : cpuSeconds(pid),
      selects: connection === undefined ? null : await selectCount(connection),
    })),
  );

async function load(server, scenario, { duration, amount }) {
  const cpuBefore = server.pid === undefined ? null : cpuSeconds(server.pid);
  const databasesBefore = await databaseCounters();
  const started = performance.now();
  let lastResponse = started;
  const instance = autocannon({
    url: server.url,
    connections: scenario.connections,
    ...(amount === undefined ? { duration } : { amount }),
    timeout: 30,
    requests: [{ setupRequest: scenario.build }],
  });
  // autocannon notices the end of a fixed amount only on its 1 s tick: time that run by its last response.
  if (amount !== undefined) instance.on('response', () => (lastResponse = performance.now()));
  const result = await instance;
  const seconds = amount === undefined ? result.duration : (lastResponse - started) / 1000;
  const statuses = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count]),
  );
  const cpuAfter = server.pid === undefined ? null : cpuSeconds(server.pid);
  const databasesAfter = await databaseCounters();
  const perRequest = (before, after) =>
    before === null || after === null || result.requests.total === 0
      ? null
      : ((after - before) * 1e6) / result.requests.total;
  return {
    rps: result.requests.total / seconds,
    // CPU time of the server per request: steadier than req/s on a shared machine.
    cpuMicros: perRequest(cpuBefore, cpuAfter),
    // The database servers' CPU time per request (the shared one serves the rest of the machine too), e.g.
    // databaseCpuMicros; in replica mode also the SELECT statements each server ran, e.g. replicaSelects.
    ...Object.fromEntries(
      databases.flatMap(({ name }, i) => [
        [`${name}CpuMicros`, perRequest(databasesBefore[i].cpu, databasesAfter[i].cpu)],
        ...(databasesBefore[i].selects === null
          ? []
          : [[`${name}Selects`, databasesAfter[i].selects - databasesBefore[i].selects]]),
      ]),
    ),
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statuses,
  };
}

/** Runs the hot-product scenario once and checks it: exactly `stock` orders succeed and the stock ends at 0. */
async function hotRound(server, scenario, db, stock) {
  const [[{ maxId }]] = await db.query('SELECT COALESCE(MAX(id), 0) AS maxId FROM orders');
  await db.query('UPDATE products SET stock = ? WHERE id = ?', [stock, HOT_PRODUCT_ID]);
  const run = await load(server, scenario, { amount: stock * 2 });
  const [[after]] = await db.query('SELECT stock FROM products WHERE id = ?', [HOT_PRODUCT_ID]);
  const [[created]] = await db.query(
    'SELECT COUNT(*) AS n, COALESCE(SUM(quantity), 0) AS units FROM order_items WHERE product_id = ? AND order_id > ?',
    [HOT_PRODUCT_ID, maxId],
  );
  const successes = run.statuses['201'] ?? 0;
  const refused = run.statuses['400'] ?? 0;
  const exact =
    successes === stock &&
    refused === stock &&
    Number(after.stock) === 0 &&
    Number(created.n) === stock &&
    Number(created.units) === stock &&
    run.errors === 0;
  return {
    ...run,
    hot: { stock, successes, refused, finalStock: Number(after.stock), orderItems: Number(created.n), exact },
  };
}

/** The i-th word of 5 letters or more (one typo from 5), and a word with its first two letters swapped. */
const typoWord = (i) => SEARCH_WORDS.filter((word) => word.length >= 5)[i];
const swapped = (word) => word[1] + word[0] + word.slice(2);

/** The three servers must answer the benchmark's requests with the same bodies before they are compared. */
async function checkEquivalence(servers, token, db) {
  const auth = { authorization: `Bearer ${token}` };
  const probes = [
    { path: `/api/v1/products/${Math.floor(DATA_SET.products / 3)}`, headers: auth },
    { path: '/api/v1/products?page=7&page_size=20&category_id=13', headers: auth },
    { path: `/api/v1/products?search=${SEARCH_WORDS[0]}&page_size=20`, headers: auth },
    {
      path: `/api/v1/products?search=${SEARCH_WORDS[1]}%20${SEARCH_WORDS[40].slice(0, 3)}&page=3&page_size=20`,
      headers: auth,
    },
    { path: `/api/v1/products?search=${SEARCH_WORDS[2]}%20k&page_size=20`, headers: auth },
    { path: `/api/v1/products?search=${SEARCH_WORDS[3000]}&page_size=20`, headers: auth },
    // Typos: a prefix with one (a swap), a whole word with one (a letter dropped) before a prefix; a fresh pair.
    { path: `/api/v1/products?search=${swapped(typoWord(0))}&page_size=20`, headers: auth },
    {
      path: `/api/v1/products?search=${typoWord(1).slice(1)}%20${SEARCH_WORDS[5]}&page=2&page_size=20`,
      headers: auth,
    },
    {
      path: `/api/v1/products?search=${SEARCH_WORDS[120]}%20${SEARCH_WORDS[250]}&page_size=20`,
      headers: auth,
    },
    {
      path: `/api/v1/products?search=${SEARCH_WORDS[6]}&page_size=20&facets=category_id,options,price`,
      headers: auth,
    },
    { path: '/api/v1/products?page_size=20', headers: auth },
    { path: '/api/v1/products?page=4000&page_size=20', headers: auth },
    { path: '/api/v1/products?cursor=eyJzIjoiaWQiLCJpIjo3OTk4MH0&page_size=20', headers: auth },
    { path: '/api/v1/products/0', headers: auth },
    { path: '/api/v1/products/1' },
    // Token of user 1: their cart, then user 2's (404), then a malformed id (404).
    { path: `/api/v1/carts/${cartIdOf(1, 'read')}`, headers: auth },
    { path: `/api/v1/carts/${cartIdOf(2, 'read')}`, headers: auth },
    { path: '/api/v1/carts/1', headers: auth },
  ];
  for (const probe of probes) {
    const answers = await Promise.all(servers.map((server) => call(server.url, probe)));
    const reference = JSON.stringify(answers[0]);
    answers.forEach((answer, i) => {
      const same =
        answer.status === answers[0].status &&
        (answer.status >= 400
          ? answer.body.code === answers[0].body.code
          : JSON.stringify(answer) === reference);
      if (!same) {
        throw new Error(
          `${servers[i].name} answers ${probe.path} differently:\n${JSON.stringify(answer).slice(0, 400)}\n${reference.slice(0, 400)}`,
        );
      }
    });
  }
  // The promo cart with the automatic promotion on: both promotions apply, on every line; alike on all servers.
  await setAutomaticPromotion(db, true);
  try {
    const promo = { path: `/api/v1/carts/${cartIdOf(1, 'promo')}`, headers: auth };
    const answers = await Promise.all(servers.map((server) => call(server.url, promo)));
    answers.forEach((answer, i) => {
      const applied = answer.body.data?.discounts?.filter((discount) => discount.applies).length;
      const adjusted = answer.body.data?.items?.every((item) => item.adjustments.length === 2);
      if (answer.status !== 200 || applied !== 2 || !adjusted) {
        throw new Error(
          `${servers[i].name} does not apply both promotions:\n${JSON.stringify(answer).slice(0, 600)}`,
        );
      }
      if (JSON.stringify(answer) !== JSON.stringify(answers[0])) {
        throw new Error(
          `${servers[i].name} answers ${promo.path} differently:\n${JSON.stringify(answer).slice(0, 400)}\n${JSON.stringify(answers[0]).slice(0, 400)}`,
        );
      }
    });
  } finally {
    await setAutomaticPromotion(db, false);
  }
  const order = {
    items: [
      { product_id: 3, quantity: 1 },
      { product_id: 2, quantity: 2 },
    ],
    shipping_address: 'x',
    payment_method: 'credit_card',
  };
  const login = { username: 'user0001', password: BENCH_PASSWORD };
  const shape = (body) => JSON.stringify(Object.keys(body.data ?? {}).sort());
  for (const server of servers) {
    const placed = await call(server.url, {
      method: 'POST',
      path: '/api/v1/orders',
      headers: auth,
      body: order,
    });
    const reference = await call(servers[0].url, {
      method: 'POST',
      path: '/api/v1/orders',
      headers: auth,
      body: order,
    });
    const loggedIn = await call(server.url, { method: 'POST', path: '/api/v1/login', body: login });
    const loginReference = await call(servers[0].url, { method: 'POST', path: '/api/v1/login', body: login });
    if (
      placed.status !== 201 ||
      shape(placed.body) !== shape(reference.body) ||
      placed.body.data.total_amount !== reference.body.data.total_amount ||
      loggedIn.status !== 200 ||
      JSON.stringify(loggedIn.body.data.user) !== JSON.stringify(loginReference.body.data.user)
    ) {
      throw new Error(`${server.name} answers POST /orders or POST /login differently`);
    }
  }
  // The same line added twice to an empty cart on each server: the second raises it; bodies alike but for ids
  // and times.
  const sansIdentity = (body) =>
    JSON.stringify({
      ...body.data,
      items: body.data.items.map((item) => ({ ...item, id: 0 })),
      created_at: '',
      updated_at: '',
    });
  let added;
  for (const server of servers) {
    await emptyAddCarts(db);
    const item = { method: 'POST', path: `/api/v1/carts/${cartIdOf(1, 'add')}/items`, headers: auth };
    await call(server.url, { ...item, body: { product_id: 7, quantity: 2 } });
    const answer = await call(server.url, { ...item, body: { product_id: 7, quantity: 1 } });
    added ??= answer;
    if (
      answer.status !== 201 ||
      answer.body.data.items[0]?.quantity !== 3 ||
      sansIdentity(answer.body) !== sansIdentity(added.body)
    ) {
      throw new Error(
        `${server.name} answers POST /carts/{id}/items differently:\n${JSON.stringify(answer).slice(0, 400)}`,
      );
    }
  }
  await emptyAddCarts(db);
}

const sum = (rounds, key) => rounds.reduce((total, round) => total + round[key], 0);

function summarise(scenario, servers, runs, rss) {
  const perServer = {};
  for (const server of servers) {
    const rounds = runs.filter((run) => run.server === server.name);
    perServer[server.name] = {
      rps: median(rounds.map((r) => r.rps)),
      p50: median(rounds.map((r) => r.p50)),
      p99: median(rounds.map((r) => r.p99)),
      cpuMicros: rounds.some((r) => r.cpuMicros === null) ? null : median(rounds.map((r) => r.cpuMicros)),
      ...Object.fromEntries(
        databases.flatMap(({ name, connection }) => {
          const cpu = `${name}CpuMicros`;
          const selects = `${name}Selects`;
          return [
            [cpu, rounds.some((r) => r[cpu] == null) ? null : median(rounds.map((r) => r[cpu]))],
            // All rounds' statements over all their requests.
            ...(connection === undefined
              ? []
              : [[`${selects}PerRequest`, sum(rounds, selects) / sum(rounds, 'requests')]]),
          ];
        }),
      ),
      non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
      errors: rounds.reduce((sum, r) => sum + r.errors, 0),
      peakRssMiB: rss[server.name],
      rounds: rounds.map(({ server: _server, ...round }) => round),
      ...(scenario.hot ? { exact: rounds.every((r) => r.hot.exact) } : {}),
    };
  }
  // No ratio when a server answered nothing (a database still busy with an earlier scenario's backlog).
  const ratio = (name) =>
    perServer.app && perServer[name]?.rps > 0 ? perServer.app.rps / perServer[name].rps : null;
  return {
    key: scenario.key,
    title: scenario.title,
    target: scenario.target,
    connections: scenario.connections,
    servers: perServer,
    ratioExpress: ratio('express'),
    ratioNodeHttp: ratio('node-http'),
  };
}

function printTable(results) {
  const pad = (value, width) => String(value).padStart(width);
  const lines = [
    `${'scenario'.padEnd(8)} ${'server'.padEnd(10)} ${pad('req/s', 9)} ${pad('p50 ms', 8)} ${pad('p99 ms', 8)} ${pad('CPU µs', 8)} ${pad('DB µs', 8)} ${pad('non-2xx', 8)} ${pad('RSS MiB', 8)}`,
  ];
  for (const result of results) {
    for (const [name, s] of Object.entries(result.servers)) {
      lines.push(
        `${result.key.padEnd(8)} ${name.padEnd(10)} ${pad(s.rps.toFixed(0), 9)} ${pad(s.p50.toFixed(1), 8)} ${pad(s.p99.toFixed(1), 8)} ${pad(s.cpuMicros?.toFixed(0) ?? '-', 8)} ${pad(s.databaseCpuMicros?.toFixed(0) ?? '-', 8)} ${pad(s.non2xx, 8)} ${pad(s.peakRssMiB?.toFixed(0) ?? '-', 8)}${s.exact === undefined ? '' : s.exact ? '  exact' : '  NOT EXACT'}`,
      );
    }
  }
  lines.push('');
  lines.push(
    `${'scenario'.padEnd(8)} ${pad('app/express', 12)} ${pad('target', 7)} ${pad('app/node:http', 14)}`,
  );
  for (const result of results) {
    const verdict =
      result.target === null || result.ratioExpress === null
        ? ''
        : result.ratioExpress >= result.target
          ? '  met'
          : '  MISSED';
    lines.push(
      `${result.key.padEnd(8)} ${pad(result.ratioExpress?.toFixed(2) ?? '-', 12)} ${pad(result.target === null ? '-' : result.target.toFixed(2), 7)} ${pad(result.ratioNodeHttp?.toFixed(2) ?? '-', 14)}${verdict}`,
    );
  }
  console.log(lines.join('\n'));
}

function printReplicaTable(results) {
  const columns = [
    ['scenario', 10, (s, server, scenario) => scenario],
    ['server', 11, (s, server) => server],
    ['req/s', 7, (s) => s.rps.toFixed(0)],
    ['p50 ms', 7, (s) => s.p50.toFixed(1)],
    ['p99 ms', 7, (s) => s.p99.toFixed(1)],
    ['CPU µs', 7, (s) => s.cpuMicros?.toFixed(0) ?? '-'],
    ['primary µs', 11, (s) => s.primaryCpuMicros?.toFixed(0) ?? '-'],
    ['replica µs', 11, (s) => s.replicaCpuMicros?.toFixed(0) ?? '-'],
    ['primary SELECT/req', 19, (s) => s.primarySelectsPerRequest.toFixed(2)],
    ['replica SELECT/req', 19, (s) => s.replicaSelectsPerRequest.toFixed(2)],
    ['non-2xx', 8, (s) => s.non2xx],
  ];
  const line = (cells) =>
    cells
      .map((cell, i) => (i < 2 ? String(cell).padEnd(columns[i][1]) : String(cell).padStart(columns[i][1])))
      .join(' ');
  const lines = [line(columns.map(([title]) => title))];
  for (const result of results) {
    for (const [name, s] of Object.entries(result.servers)) {
      lines.push(line(columns.map(([, , cell]) => cell(s, name, result.key))));
    }
  }
  console.log(lines.join('\n'));
}

async function runProfile(options, context) {
  const dir = join(RESULTS_DIR, 'profiles', new Date().toISOString().replace(/[:.]/g, '-'));
  mkdirSync(dir, { recursive: true });
  const scenario = context.scenarios.find((s) => s.key === options.profile);
  if (scenario === undefined) throw new Error(`No scenario ${options.profile}`);
  // Nest re-raises SIGTERM after its shutdown hooks, which would kill the process before V8 writes the profile.
  const exitOnTerm = 'data:text/javascript,process.on("SIGTERM",()=>process.exit(0))';
  const entry = {
    app: 'dist/src/main.js',
    'app-b': options.compareDist === null ? undefined : join(options.compareDist, 'src/main.js'),
    express: 'bench/baseline/express.mjs',
    'node-http': 'bench/baseline/node-http.mjs',
  }[options.profileServer];
  if (entry === undefined) {
    throw new Error('--profile-server must be app, express, node-http, or app-b with --compare-dist');
  }
  let measuredFrom = performance.now();
  let measuredMs = Infinity;
  let requests;
  const app = await startServer({
    name: options.profileServer,
    args: ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--import=${exitOnTerm}`, entry],
    env: options.profileServer.startsWith('app')
      ? { ...context.appEnv, ...options.appEnv, METRICS_PORT: String(await freePort()) }
      : context.sharedEnv,
    port: await freePort(),
    core: context.core,
    cwd: ROOT,
  });
  try {
    console.log(`Profiling ${options.profileServer} under "${scenario.key}" for ${options.duration} s`);
    await load(app, scenario, { duration: options.warmup });
    measuredFrom = performance.now();
    const run = await load(app, scenario, { duration: options.duration });
    requests = run.requests;
    console.log(`${run.rps.toFixed(0)} req/s, p50 ${run.p50} ms, p99 ${run.p99} ms, non-2xx ${run.non2xx}`);
  } finally {
    measuredMs = performance.now() - measuredFrom;
    await app.stop();
  }
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error(`No profile written in ${dir}`);
  // Only the measured load counts: --cpu-prof also records the start-up and the warm-up.
  const summary = summariseProfile(JSON.parse(readFileSync(join(dir, file), 'utf8')), { lastMs: measuredMs });
  const text = `${join(dir, file)} (last ${(measuredMs / 1000).toFixed(1)} s)\n${formatSummary(summary, requests)}\n`;
  writeFileSync(join(dir, 'summary.txt'), text);
  console.log(`\n${text}`);
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  setProductCount(options.products);
  const started = Date.now();
  const loadBefore = os.loadavg()[0];
  const log = (message) =>
    console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${message}`);

  if (options.build) {
    log('Building the service (tsc)');
    execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
      cwd: ROOT,
      stdio: 'inherit',
    });
  } else if (!statSync(join(ROOT, 'dist/src/main.js'), { throwIfNoEntry: false })) {
    throw new Error('dist/src/main.js is missing: run npm run build or drop --no-build');
  }

  const context = { log, started, loadBefore };
  if (!options.replica) {
    const databaseUrl =
      process.env.BENCH_DATABASE_URL ?? 'mysql://commerce:commerce@127.0.0.1:3306/commerce_bench';
    await bench(options, { ...context, databaseUrl, replicaSet: null });
    return;
  }
  // A primary and a replica of the bench's own, following the primary from its first statement: the seeding
  // below reaches the replica by replication.
  const settings = { bufferPoolMiB: bufferPoolMiB(DATA_SET.products), log };
  const primary = await startMariaDb({ ...settings, binlog: true, serverId: 1 });
  let replica;
  try {
    replica = await startMariaDb({ ...settings, serverId: 2 });
    await replicate(replica, primary);
    await bench(options, {
      ...context,
      databaseUrl: primary.url('commerce_bench'),
      replicaSet: { primary, replica },
    });
  } finally {
    await replica?.stop();
    await primary.stop();
  }
}

async function bench(options, { log, started, loadBefore, databaseUrl, replicaSet }) {
  const poolSize = process.env.BENCH_POOL_SIZE ?? '10';
  const prepared = await prepareDatabase({ databaseUrl, reseed: options.reseed, cwd: ROOT, log });
  log(`Database ready in ${prepared.seconds.toFixed(1)} s`);
  const replicaCaughtUp = async () => {
    const waitStarted = Date.now();
    await caughtUp(replicaSet.replica, replicaSet.primary);
    log(`The replica has caught up (waited ${((Date.now() - waitStarted) / 1000).toFixed(1)} s)`);
  };
  if (replicaSet !== null) await replicaCaughtUp();

  const taskset = hasTaskset() && os.cpus().length > 1;
  const core = taskset ? SERVER_CORE : null;
  if (taskset) pinSelf(LOAD_CORE);
  else log('taskset is not available (or one core only): servers and load generator are not pinned');

  const secret = randomBytes(32).toString('hex');
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  const tokens = Array.from({ length: DATA_SET.users }, (_, i) =>
    jwt.sign(
      {
        sub: String(i + 1),
        sid: prepared.sessionIds[i],
        username: `user${String(i + 1).padStart(4, '0')}`,
        role: 'user',
      },
      key,
      { algorithm: 'HS256', expiresIn: '6h' },
    ),
  );
  const sharedEnv = {
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_SIZE: poolSize,
    JWT_SECRET: secret,
    NODE_ENV: 'production',
    // Out of reach, as the rate limits: a round places tens of orders per user, all left pending.
    ORDER_MAX_PENDING_PER_USER: '100000',
  };
  // Request logging off for all three: the service logs a request line at LOG_LEVEL=log, the baselines never.
  const appEnv = {
    ...sharedEnv,
    LOG_LEVEL: 'warn',
    THROTTLE_LIMIT: '1000000000',
    THROTTLE_AUTH_LIMIT: '1000000000',
    DATABASE_MIGRATIONS_RUN: 'false',
    // 32 connections searching at once are more than SEARCH_CONCURRENCY (5) + SEARCH_QUEUE (20 by default): the
    // rest would be 429s. Searches are bounded, so a longer queue only waits a few milliseconds per turn.
    SEARCH_QUEUE: '64',
    // Replica mode reads the catalogue without a token too. Its data set is seeded afresh each time, and the
    // seeded pending orders are long past ORDER_PENDING_TTL: the expiry job would cancel thousands of them
    // during the rounds, writes on the primary that the replica applies. Expiry off.
    ...(replicaSet === null ? {} : { CATALOG_PUBLIC: 'true', ORDER_PENDING_TTL: '0' }),
  };
  let scenarios = replicaSet === null ? allScenarios(tokens) : replicaScenarios(tokens);
  if (options.only !== null) {
    scenarios = scenarios.filter((s) => options.only.includes(s.key) || options.only.includes(s.group));
  }

  if (options.profile !== null) {
    await runProfile(options, { scenarios: allScenarios(tokens), appEnv, sharedEnv, core });
    return;
  }

  const db = await mysql.createConnection({ uri: databaseUrl });
  const [[{ version, bufferPool }]] = await db.query(
    'SELECT VERSION() AS version, @@innodb_buffer_pool_size AS bufferPool',
  );
  const [[{ dataBytes }]] = await db.query(
    'SELECT SUM(data_length + index_length) AS dataBytes FROM information_schema.tables WHERE table_schema = DATABASE()',
  );
  const mib = (bytes) => Math.round(Number(bytes) / 2 ** 20);
  const database = `${version} (innodb_buffer_pool_size ${mib(bufferPool)} MiB, the data set's tables and indexes ${mib(dataBytes)} MiB)`;
  // A pool smaller than the data set measures the disk and the page cache, not the queries.
  if (Number(bufferPool) < Number(dataBytes)) {
    log(`Warning: innodb_buffer_pool_size is smaller than the data set: ${database}`);
  }
  const servers = [];
  try {
    if (replicaSet !== null) {
      const connections = await Promise.all([replicaSet.primary.connect(), replicaSet.replica.connect()]);
      databases = [
        { name: 'primary', pid: replicaSet.primary.pid, connection: connections[0] },
        { name: 'replica', pid: replicaSet.replica.pid, connection: connections[1] },
      ];
    }
    log(replicaSet === null ? 'Starting the service and the baselines' : 'Starting the service twice');
    // Each build its own metrics port: in production both would take the default one.
    const metricsPort = async () => ({ METRICS_PORT: String(await freePort()) });
    const entries = [
      {
        name: 'app',
        args: ['dist/src/main.js'],
        env: { ...appEnv, ...options.appEnv, ...(await metricsPort()) },
      },
      { name: 'express', args: ['bench/baseline/express.mjs'], env: sharedEnv },
      { name: 'node-http', args: ['bench/baseline/node-http.mjs'], env: sharedEnv },
    ];
    if (replicaSet !== null) {
      entries.push({
        name: 'app-replica',
        args: ['dist/src/main.js'],
        env: {
          ...appEnv,
          ...options.appEnv,
          ...(await metricsPort()),
          DATABASE_REPLICA_URLS: replicaSet.replica.url(databaseNameOf(databaseUrl)),
        },
      });
    }
    if (options.compareDist !== null) {
      entries.push({
        name: 'app-b',
        args: [join(options.compareDist, 'src/main.js')],
        env: { ...appEnv, ...(await metricsPort()) },
      });
      options.servers.push('app-b');
    }
    for (const entry of entries.filter((e) => options.servers.includes(e.name))) {
      servers.push(await startServer({ ...entry, port: await freePort(), core, cwd: ROOT }));
    }
    // An earlier build beside the current one may lack routes the probes use (search, cursors): A/B runs
    // compare the two builds on the scenarios chosen, so only the current build and the baselines are checked.
    await checkEquivalence(
      servers.filter((server) => server.name !== 'app-b'),
      tokens[0],
      db,
    );
    log(`${servers.map((server) => server.name).join(', ')} answer the benchmark requests alike`);

    // Replica mode warms up on its own reads only: a write would keep its caller on the primary for a while.
    const warmUpLoad =
      replicaSet === null
        ? allScenarios(tokens).find((s) => s.key === 'mixed')
        : {
            key: 'reads',
            connections: 32,
            build: (req) => scenarios[Math.floor(Math.random() * scenarios.length)].build(req),
          };
    if (replicaSet !== null) await replicaCaughtUp();
    log(
      `Warm-up: ${warmUpLoad.key === 'mixed' ? 'mixed load' : 'the scenarios mixed'}, ${options.jitWarmup} s per server`,
    );
    for (const server of servers) await load(server, warmUpLoad, { duration: options.jitWarmup });

    const results = [];
    for (const scenario of scenarios) {
      const rss = {};
      const runs = [];
      if (scenario.before !== undefined) await scenario.before(db);
      for (const server of servers) resetPeakRss(server.pid);
      if (options.warmup > 0) {
        log(`${scenario.key}: warm-up ${options.warmup} s per server`);
        // The hot product warms up on ordinary orders: its stock is set per round.
        const warmScenario = scenario.hot ? allScenarios(tokens).find((s) => s.key === 'order') : scenario;
        for (const server of servers) {
          if (scenario.beforeRound !== undefined) await scenario.beforeRound(db);
          await load(server, warmScenario, { duration: options.warmup });
        }
      }
      for (let round = 0; round < options.rounds; round++) {
        const order = servers.map((_, i) => servers[(i + round) % servers.length]);
        for (const server of order) {
          if (scenario.beforeRound !== undefined) await scenario.beforeRound(db);
          const run = scenario.hot
            ? await hotRound(server, scenario, db, options.hotStock)
            : await load(server, scenario, { duration: options.duration });
          runs.push({ server: server.name, ...run });
          for (const s of servers) {
            if (s.exited !== null)
              throw new Error(`${s.name} exited: ${JSON.stringify(s.exited)}\n${s.stderr()}`);
          }
        }
        const line = order
          .map((server) => {
            const run = runs.findLast((r) => r.server === server.name);
            return `${server.name} ${run.rps.toFixed(0)}/s${run.hot ? (run.hot.exact ? ' exact' : ' NOT EXACT') : ''}`;
          })
          .join(', ');
        log(`${scenario.key}: round ${round + 1}/${options.rounds}: ${line}`);
      }
      if (scenario.after !== undefined) await scenario.after(db);
      for (const server of servers) rss[server.name] = peakRssMiB(server.pid);
      results.push(summarise(scenario, servers, runs, rss));
    }

    const report = {
      date: new Date().toISOString(),
      command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
      options,
      machine: machine(database, taskset),
      dataSet: DATA_SET,
      poolSize: Number(poolSize),
      // One-minute load average before and after: other work on the machine shows here.
      loadAverage: { before: loadBefore, after: os.loadavg()[0] },
      seconds: (Date.now() - started) / 1000,
      results,
    };
    console.log('');
    if (replicaSet === null) printTable(results);
    else printReplicaTable(results);
    mkdirSync(RESULTS_DIR, { recursive: true });
    const file = join(
      RESULTS_DIR,
      `bench-${replicaSet === null ? '' : 'replica-'}${report.date.replace(/[:.]/g, '-')}.json`,
    );
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    log(`Results written to ${file}`);
    if (options.writeReport) {
      await writeReport(join(ROOT, 'docs', 'benchmarks.md'), report);
      log('docs/benchmarks.md updated');
    }
    const inexact = results.some((r) => Object.values(r.servers).some((s) => s.exact === false));
    if (inexact) {
      console.error('The hot-product scenario was not exact: see the table above');
      process.exitCode = 1;
    }
    // Every request of app-replica runs at least one SELECT, and each of them on the replica.
    const notOnReplica = results.filter(
      (r) => r.servers['app-replica']?.replicaSelectsPerRequest < 1 || r.servers['app-replica']?.non2xx > 0,
    );
    if (notOnReplica.length > 0) {
      console.error(
        `app-replica answered an error or ran fewer SELECT statements on the replica than it answered requests in ${notOnReplica.map((r) => r.key).join(', ')}`,
      );
      process.exitCode = 1;
    }
  } finally {
    for (const server of servers) await server.stop();
    await db.end();
    for (const { connection } of databases) await connection?.end();
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});
