// The benchmark's data set in its own MariaDB/MySQL database: schema from the service's migrations, rows from
// multi-row INSERTs. Seeded once and reused while the row counts match; each run first removes what earlier
// runs added (orders past the seeded ones) and restores the stock.
import argon2 from 'argon2';
import mysql from 'mysql2/promise';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { URL } from 'node:url';

export const DATA_SET = { users: 1000, products: 100_000, categories: 50, orders: 20_000 };
export const BENCH_PASSWORD = 'bench-password-1';
export const INITIAL_STOCK = 1_000_000;
/** The product the hot-product scenario fights over (the last one); the other scenarios never order it. */
export let HOT_PRODUCT_ID = DATA_SET.products;

/** `--products=N`: the size of the catalogue to seed and load (the database is seeded again when it differs). */
export function setProductCount(products) {
  if (!Number.isInteger(products) || products < 1000) {
    throw new Error(`--products must be an integer of at least 1000, not ${products}`);
  }
  DATA_SET.products = products;
  HOT_PRODUCT_ID = products;
}

const BATCH = 2000;
/** Products per INSERT: about 0.8 MB of SQL, well under the default max_allowed_packet (16 MiB). */
const PRODUCT_BATCH = 5000;
const BASE32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/**
 * The catalogue's vocabulary: 4 000 made-up words of 4-7 letters (consonant-vowel syllables, so none is an
 * English word or one of InnoDB's stopwords), drawn for names and descriptions with Zipf-Mandelbrot frequencies
 * (the word of rank r with weight 1 / (r + 10)): a few words are common, most are rare, as in a real catalogue.
 * Each product has 3 words in its name and 8 in its description. What a word matches is in docs/benchmarks.md.
 */
const VOCABULARY_SIZE = 4000;
const ZIPF_OFFSET = 10;
const NAME_WORDS = 3;
const DESCRIPTION_WORDS = 8;
const CONSONANTS = 'bcdfghjklmnprstvz';
const VOWELS = 'aeiou';

function vocabulary() {
  const random = prng(7);
  const letter = (letters) => letters[Math.floor(random() * letters.length)];
  const words = new Set();
  while (words.size < VOCABULARY_SIZE) {
    let word = '';
    for (let syllables = 2 + Math.floor(random() * 2); syllables > 0; syllables--) {
      word += letter(CONSONANTS) + letter(VOWELS);
    }
    if (random() < 0.5) word += letter(CONSONANTS);
    words.add(word);
  }
  return [...words];
}

/** The vocabulary, most frequent first: the search scenario draws from it. */
export const SEARCH_WORDS = vocabulary();
/** The ten most frequent words (each in 9-16 % of the products): the common-word search scenario. */
export const COMMON_WORDS = SEARCH_WORDS.slice(0, 10);

const cumulativeWeights = new Float64Array(VOCABULARY_SIZE);
for (let rank = 0, sum = 0; rank < VOCABULARY_SIZE; rank++) {
  sum += 1 / (rank + 1 + ZIPF_OFFSET);
  cumulativeWeights[rank] = sum;
}

/** A word drawn with the vocabulary's frequencies (binary search of the cumulative weights). */
function zipfWord(random) {
  const target = random() * cumulativeWeights[VOCABULARY_SIZE - 1];
  let low = 0;
  let high = VOCABULARY_SIZE - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (cumulativeWeights[middle] < target) low = middle + 1;
    else high = middle;
  }
  return SEARCH_WORDS[low];
}

function words(random, count) {
  return Array.from({ length: count }, () => zipfWord(random));
}

const capitalised = (word) => word[0].toUpperCase() + word.slice(1);

/** The name and description of product `id`; `random` is the seeding's generator. */
export function productText(random, id) {
  const name = `${words(random, NAME_WORDS).map(capitalised).join(' ')} ${id}`;
  const description = `${capitalised(words(random, DESCRIPTION_WORDS).join(' '))}.`;
  return { name, description };
}

/** The generator of the product rows, and the name of product 1 (to tell a data set of this vocabulary). */
export const PRODUCT_SEED = 20261123;
const FIRST_PRODUCT_NAME = productText(prng(PRODUCT_SEED), 1).name;
const STATES = [
  ['pending', 'pending'],
  ['paid', 'paid'],
  ['shipped', 'paid'],
  ['completed', 'paid'],
  ['cancelled', 'pending'],
];
const SEED_DATE = Date.UTC(2026, 9, 1);

/** A small deterministic generator, so every seeding gives the same rows. */
export function prng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function serverUrlOf(databaseUrl) {
  const url = new URL(databaseUrl);
  url.pathname = '/';
  return url.toString();
}

export function databaseNameOf(databaseUrl) {
  return decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
}

async function insertRows(connection, table, columns, rows) {
  for (let start = 0; start < rows.length; start += BATCH) {
    await connection.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ?`, [
      rows.slice(start, start + BATCH),
    ]);
  }
}

const SIZES = ['XS', 'S', 'M', 'L', 'XL'];
const COLOURS = ['Black', 'White', 'Red', 'Blue', 'Green', 'Grey', 'Navy', 'Beige'];

/**
 * The option values of product i, as product_option_values rows (product_id, name, value_key, value): two in
 * three products come in 2-4 neighbouring sizes, one in two in 1-3 colours. They exist in that index only (the
 * products' `options` stay empty, so product reads are those of earlier runs): the facets and option filters
 * read nothing else.
 */
function optionValueRowsOf(i) {
  const rows = [];
  if (i % 3 !== 0) {
    const first = i % SIZES.length;
    for (const size of SIZES.slice(first, first + 2 + (i % 3)))
      rows.push([i, 'Size', size.toLowerCase(), size]);
  }
  if (i % 2 === 0) {
    for (let k = 0; k < 1 + (i % 3); k++) {
      const colour = COLOURS[(Math.floor(i / 2) + k) % COLOURS.length];
      rows.push([i, 'Colour', colour.toLowerCase(), colour]);
    }
  }
  return rows;
}

/** Fills product_option_values for every product when it is empty (a data set seeded before it existed). */
async function seedOptionValues(connection, log) {
  if ((await count(connection, 'SELECT COUNT(*) AS n FROM product_option_values')) > 0) return;
  for (let start = 1; start <= DATA_SET.products; start += PRODUCT_BATCH) {
    const rows = [];
    for (let i = start; i < Math.min(start + PRODUCT_BATCH, DATA_SET.products + 1); i++) {
      rows.push(...optionValueRowsOf(i));
    }
    await insertRows(connection, 'product_option_values', ['product_id', 'name', 'value_key', 'value'], rows);
  }
  log('  product_option_values: seeded');
}

async function count(connection, sql) {
  const [rows] = await connection.query(sql);
  return Number(rows[0].n);
}

async function isSeeded(connection) {
  const [tables] = await connection.query("SHOW TABLES LIKE 'products'");
  if (tables.length === 0) return false;
  return (
    (await count(connection, 'SELECT COUNT(*) AS n FROM users')) === DATA_SET.users &&
    (await count(connection, 'SELECT COUNT(*) AS n FROM products')) === DATA_SET.products &&
    (await count(connection, `SELECT COUNT(*) AS n FROM orders WHERE id <= ${DATA_SET.orders}`)) ===
      DATA_SET.orders &&
    (await count(connection, 'SELECT COUNT(DISTINCT category_id) AS n FROM products')) ===
      DATA_SET.categories &&
    (await connection.query('SELECT name FROM products WHERE id = 1'))[0][0]?.name === FIRST_PRODUCT_NAME &&
    (await count(
      connection,
      `SELECT COUNT(*) AS n FROM product_words WHERE product_id = ${DATA_SET.products}`,
    )) > 0
  );
}

function date(offsetMs) {
  return new Date(SEED_DATE + offsetMs);
}

async function seed(connection, log) {
  const random = prng(20261122);
  const passwordHash = await argon2.hash(BENCH_PASSWORD, {
    type: argon2.argon2id,
    memoryCost: 19_456,
    timeCost: 2,
    parallelism: 1,
  });
  // The search's word table, by the service's own tokenizer (from the build).
  const { productWordRows } = await import('../../dist/src/products/product-words.js');
  await connection.query('SET foreign_key_checks = 0, unique_checks = 0');
  for (const table of [
    'sessions',
    'order_items',
    'orders',
    'product_words',
    'search_words',
    'products',
    'users',
  ]) {
    await connection.query(`TRUNCATE TABLE ${table}`);
  }
  // The words' index is built once after the rows (a sort) rather than row by row in word order.
  await connection.query('ALTER TABLE product_words DROP INDEX IDX_product_words_word');

  const users = [];
  for (let i = 1; i <= DATA_SET.users; i++) {
    const name = `user${String(i).padStart(4, '0')}`;
    const created = date(i * 60_000);
    users.push([
      i,
      name,
      `${name}@bench.example`,
      passwordHash,
      'Bench',
      `User ${i}`,
      '+1 555 0100',
      `${i} Benchmark Road, Springfield`,
      'user',
      true,
      created,
      created,
    ]);
  }
  await insertRows(
    connection,
    'users',
    [
      'id',
      'username',
      'email',
      'password_hash',
      'first_name',
      'last_name',
      'phone',
      'address',
      'role',
      'is_active',
      'created_at',
      'updated_at',
    ],
    users,
  );
  log(`  users: ${users.length}`);

  // Generated and sent one batch at a time (a million rows held at once would take about a gigabyte), the next
  // batch built while the database writes the previous one.
  const prices = new Int32Array(DATA_SET.products + 1);
  const names = new Array(DATA_SET.products + 1);
  const productColumns = [
    'id',
    'name',
    'description',
    'price_cents',
    'stock',
    'category_id',
    'image',
    'slug',
    'is_active',
    'created_at',
    'updated_at',
  ];
  const productRandom = prng(PRODUCT_SEED);
  let inFlight = Promise.resolve();
  for (let start = 1; start <= DATA_SET.products; start += PRODUCT_BATCH) {
    const batch = [];
    const wordRows = [];
    for (let i = start; i < Math.min(start + PRODUCT_BATCH, DATA_SET.products + 1); i++) {
      const { name, description } = productText(productRandom, i);
      wordRows.push(...productWordRows(i, { name, description, searchText: null, active: true }));
      names[i] = name;
      prices[i] = 100 + Math.floor(random() * 99_900);
      const created = date(i * 1000);
      batch.push([
        i,
        name,
        description,
        prices[i],
        INITIAL_STOCK,
        ((i - 1) % DATA_SET.categories) + 1,
        '',
        // Unique by the id; shaped like a generated slug.
        `${name
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .replace(/^-|-$/g, '')}-${i}`,
        true,
        created,
        created,
      ]);
    }
    await inFlight;
    inFlight = connection
      .query(`INSERT INTO products (${productColumns.join(', ')}) VALUES ?`, [batch])
      .then(() =>
        insertRows(connection, 'product_words', ['product_id', 'word', 'weight', '`rank`'], wordRows),
      );
    if (start % 100_000 === 1 && start > 1) log(`  products: ${start - 1}`);
  }
  await inFlight;
  log(`  products: ${DATA_SET.products} in ${DATA_SET.categories} categories`);
  await connection.query(
    'ALTER TABLE product_words ADD INDEX IDX_product_words_word (word, `rank`, product_id)',
  );
  log('  product_words: indexed');
  // The search's dictionary: the catalogue's words of letters (product-words.ts), here the vocabulary.
  await connection.query('INSERT IGNORE INTO search_words (word) VALUES ?', [
    SEARCH_WORDS.map((word) => [word]),
  ]);

  const orders = [];
  const items = [];
  for (let i = 1; i <= DATA_SET.orders; i++) {
    const picked = new Map();
    const lines = 1 + Math.floor(random() * 3);
    while (picked.size < lines) {
      picked.set(1 + Math.floor(random() * (DATA_SET.products - 1)), 1 + Math.floor(random() * 3));
    }
    let total = 0;
    for (const [productId, quantity] of [...picked].sort((a, b) => a[0] - b[0])) {
      items.push([i, productId, names[productId], prices[productId], quantity]);
      total += prices[productId] * quantity;
    }
    let suffix = '';
    for (let n = i, k = 0; k < 8; k++, n = Math.floor(n / 32)) suffix = BASE32[n % 32] + suffix;
    const [status, paymentStatus] = STATES[Math.floor(random() * STATES.length)];
    const created = date(DATA_SET.users * 60_000 + i * 30_000);
    orders.push([
      i,
      `ORD-20261001-${suffix}`,
      1 + Math.floor(random() * DATA_SET.users),
      total,
      status,
      paymentStatus,
      '1 Benchmark Road, Springfield',
      'credit_card',
      created,
      created,
    ]);
  }
  await insertRows(
    connection,
    'orders',
    [
      'id',
      'order_number',
      'user_id',
      'total_cents',
      'status',
      'payment_status',
      'shipping_address',
      'payment_method',
      'created_at',
      'updated_at',
    ],
    orders,
  );
  await insertRows(
    connection,
    'order_items',
    ['order_id', 'product_id', 'product_name', 'unit_price_cents', 'quantity'],
    items,
  );
  log(`  orders: ${orders.length} with ${items.length} items`);
  await connection.query('SET foreign_key_checks = 1, unique_checks = 1');
  await connection.query('ANALYZE TABLE users, products, product_words, orders, order_items');
}

/** Removes what earlier runs added and restores every product's stock. */
export async function resetMutableState(connection) {
  await connection.query(`DELETE FROM order_items WHERE order_id > ${DATA_SET.orders}`);
  await connection.query(`DELETE FROM orders WHERE id > ${DATA_SET.orders}`);
  await connection.query(`UPDATE products SET stock = ${INITIAL_STOCK} WHERE stock <> ${INITIAL_STOCK}`);
  await connection.query('DELETE FROM sessions');
  // The service's order events and the confirmation mails they queue.
  await connection.query('DELETE FROM outbox_events');
  await connection.query('DELETE FROM jobs');
}

/**
 * The benchmark's pricing (DESIGN.md §16): the region 'Bench' in US dollars with prices before tax, listing the
 * United States, made the default region so that `POST /orders` (a free-text address, no region) is priced and
 * taxed by it too; and the United States' standard rate. Every cart and order pays tax on top of its prices.
 */
export const BENCH_REGION = {
  name: 'Bench',
  currency: 'usd',
  country: 'US',
  taxRate: { subdivision: '', taxClass: 'standard', rate: 7.25, name: 'Sales tax', code: 'US-SALES' },
};

/** The structured US address of every seeded cart (its `region` names the subdivision, as a shop's form would). */
export const CART_ADDRESS = {
  name: 'Bench User',
  line1: '1 Benchmark Road',
  line2: '',
  city: 'Springfield',
  region: 'CA',
  postal_code: '90001',
  country: 'US',
  phone: '',
};

/** Creates (or restores) the Bench region as the default region, its country and its tax rate; gives its id. */
async function createPricing(connection) {
  const { name, currency, country, taxRate } = BENCH_REGION;
  const [[found]] = await connection.query('SELECT id FROM regions WHERE name = ? ORDER BY id LIMIT 1', [
    name,
  ]);
  const now = new Date();
  const id =
    found?.id ??
    (
      await connection.query(
        'INSERT INTO regions (name, currency_code, prices_include_tax, is_default, created_at, updated_at) ' +
          'VALUES (?, ?, 0, 0, ?, ?)',
        [name, currency, now, now],
      )
    )[0].insertId;
  await connection.query(
    'UPDATE regions SET is_default = (id = ?), currency_code = IF(id = ?, ?, currency_code), ' +
      'prices_include_tax = IF(id = ?, 0, prices_include_tax)',
    [id, id, currency, id],
  );
  await connection.query('DELETE FROM region_countries WHERE region_id = ? OR country = ?', [id, country]);
  await connection.query('INSERT INTO region_countries (country, region_id, position) VALUES (?, ?, 0)', [
    country,
    id,
  ]);
  await connection.query('DELETE FROM tax_rates WHERE country = ?', [country]);
  await connection.query(
    'INSERT INTO tax_rates (country, subdivision, tax_class, rate, name, code, created_at, updated_at) ' +
      'VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    [country, taxRate.subdivision, taxRate.taxClass, taxRate.rate, taxRate.name, taxRate.code, now, now],
  );
  return Number(id);
}

/** Lines of each user's seeded cart (the cart-read scenario). */
export const CART_LINES = 5;

const CART_KINDS = { read: '8', add: '9', promo: 'a' };

/**
 * Each user's three carts, with fixed ids: `read` holds CART_LINES lines (products 5u-4..5u of user u), `add`
 * starts empty before every round of the cart-add scenario, `promo` holds the same lines as `read` and the
 * code BENCH_PROMOTIONS.code.
 */
export function cartIdOf(userId, kind) {
  return `00000000-0000-4000-${CART_KINDS[kind]}000-${String(userId).padStart(12, '0')}`;
}

/**
 * The promotions of the cart-promo scenario: an automatic one (10 % off the order, combinable), switched on only
 * while that scenario runs so that the other scenarios price as before, and a code (15 % off the items,
 * combinable) held by the promo carts only.
 */
export const BENCH_PROMOTIONS = {
  automatic: { description: 'Bench: 10 % off the order', type: 'percentage', value: 10, target: 'order' },
  code: {
    code: 'BENCH15',
    description: 'Bench: 15 % off the items',
    type: 'percentage',
    value: 15,
    target: 'items',
  },
};

/** Replaces the promotions by the benchmark's two (the automatic one off); gives the code's id. */
async function createPromotions(connection) {
  await connection.query('DELETE FROM cart_discount_codes');
  await connection.query('DELETE FROM promotion_usages');
  await connection.query('DELETE FROM promotions');
  const insert = (promotion, isActive) =>
    connection.query(
      'INSERT INTO promotions (code, code_key, description, type, value, target, combinable, is_active) ' +
        'VALUES (?, ?, ?, ?, ?, ?, 1, ?)',
      [
        promotion.code ?? null,
        promotion.code?.toLowerCase() ?? null,
        promotion.description,
        promotion.type,
        promotion.value,
        promotion.target,
        isActive,
      ],
    );
  await insert(BENCH_PROMOTIONS.automatic, 0);
  const [inserted] = await insert(BENCH_PROMOTIONS.code, 1);
  return inserted.insertId;
}

/** Switches the automatic promotion on (the cart-promo scenario) or off (every other scenario). */
export async function setAutomaticPromotion(connection, active) {
  await connection.query('UPDATE promotions SET is_active = ? WHERE code_key IS NULL', [active ? 1 : 0]);
}

/**
 * Replaces every cart by the three seeded carts per user, in the Bench region with a US address (so that tax
 * applies), the read and promo carts' lines at their products' prices, the promo carts holding the code.
 */
async function createCarts(connection, regionId) {
  const codeId = await createPromotions(connection);
  await connection.query('DELETE FROM cart_gift_cards');
  await connection.query('DELETE FROM cart_items');
  await connection.query('DELETE FROM carts');
  const now = new Date();
  const address = JSON.stringify(CART_ADDRESS);
  const carts = [];
  for (let user = 1; user <= DATA_SET.users; user++) {
    for (const kind of Object.keys(CART_KINDS)) {
      carts.push([cartIdOf(user, kind), user, 'open', address, regionId, now, now]);
    }
  }
  await insertRows(
    connection,
    'carts',
    ['id', 'user_id', 'status', 'shipping_address', 'region_id', 'created_at', 'updated_at'],
    carts,
  );
  for (const kind of ['read', 'promo']) {
    await connection.query(
      'INSERT INTO cart_items (cart_id, product_id, quantity, added_price_cents, created_at, updated_at) ' +
        `SELECT CONCAT('00000000-0000-4000-${CART_KINDS[kind]}000-', LPAD(CEIL(id / ${CART_LINES}), 12, '0')), id, 1, ` +
        'price_cents, ?, ? FROM products WHERE id <= ? ORDER BY id',
      [now, now, DATA_SET.users * CART_LINES],
    );
  }
  await insertRows(
    connection,
    'cart_discount_codes',
    ['cart_id', 'promotion_id', 'created_at'],
    Array.from({ length: DATA_SET.users }, (_, i) => [cartIdOf(i + 1, 'promo'), codeId, now]),
  );
}

/** Empties the add carts: every server's cart-add round starts from the same state. */
export async function emptyAddCarts(connection) {
  await connection.query("DELETE FROM cart_items WHERE cart_id LIKE '00000000-0000-4000-9000-%'");
}

/** One live session per user, as a login would open it; returns their ids (`sessionIds[i]` of user i + 1). */
async function createSessions(connection) {
  const now = new Date();
  const expires = new Date(now.getTime() + 86400_000);
  const rows = Array.from({ length: DATA_SET.users }, (_, i) => [
    randomUUID(),
    i + 1,
    createHash('sha256').update(randomBytes(32)).digest('hex'),
    now,
    now,
    expires,
  ]);
  await insertRows(
    connection,
    'sessions',
    ['id', 'user_id', 'refresh_token_hash', 'created_at', 'last_used_at', 'expires_at'],
    rows,
  );
  return rows.map((row) => row[0]);
}

/**
 * Creates the database if needed, applies the service's migrations (TypeORM CLI on the build), seeds unless
 * the seeded row counts are already there (or `reseed`), and resets what earlier runs changed.
 */
export async function prepareDatabase({ databaseUrl, reseed, cwd, log }) {
  const name = databaseNameOf(databaseUrl);
  const admin = await mysql.createConnection(serverUrlOf(databaseUrl));
  if (reseed) await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
  await admin.query(
    `CREATE DATABASE IF NOT EXISTS \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
  );
  await admin.end();

  execFileSync(
    process.execPath,
    ['node_modules/typeorm/cli.js', 'migration:run', '-d', 'dist/ormconfig.js'],
    {
      cwd,
      env: { ...process.env, DATABASE_URL: databaseUrl },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );

  const connection = await mysql.createConnection({
    uri: databaseUrl,
    timezone: 'Z',
    multipleStatements: false,
  });
  try {
    const started = Date.now();
    let seeded = false;
    if (!(await isSeeded(connection))) {
      log(`Seeding ${name}`);
      await seed(connection, log);
      seeded = true;
    } else {
      log(`Reusing the seeded data set in ${name}`);
    }
    await seedOptionValues(connection, log);
    await resetMutableState(connection);
    await createCarts(connection, await createPricing(connection));
    const sessionIds = await createSessions(connection);
    return { seeded, seconds: (Date.now() - started) / 1000, sessionIds };
  } finally {
    await connection.end();
  }
}

/**
 * The data set's products (and their words) in an SQLite file at `path`, schema from the service's migrations
 * (the build in `cwd`); seeded again when its product count differs. Gives the file's DATABASE_URL.
 */
export async function seedSqlite(path, cwd) {
  const url = `sqlite:${path}`;
  execFileSync(
    process.execPath,
    ['node_modules/typeorm/cli.js', 'migration:run', '-d', 'dist/ormconfig.js'],
    { cwd, env: { ...process.env, DATABASE_URL: url }, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  // The service's own choice of SQLite driver for this Node.js (src/database/sqlite-driver.ts), its tokenizer.
  const { loadSqliteDriver } = await import('../../dist/src/database/sqlite-driver.js');
  const { productWordRows } = await import('../../dist/src/products/product-words.js');
  const Database = await loadSqliteDriver();
  const db = new Database(path);
  const { n } = db.prepare('SELECT COUNT(*) AS n FROM products').get();
  const { words } = db
    .prepare('SELECT COUNT(*) AS words FROM product_words WHERE product_id = ?')
    .get(DATA_SET.products);
  if (n !== DATA_SET.products || words === 0) {
    console.log(`Seeding ${path}`);
    // As the MariaDB seeding: the categories are ids only (no rows).
    db.pragma('foreign_keys = OFF');
    db.exec('DELETE FROM product_words');
    db.exec('DELETE FROM search_words');
    db.exec('DELETE FROM product_option_values');
    db.exec('DELETE FROM products');
    db.exec('DROP INDEX IF EXISTS IDX_product_words_word');
    const insert = db.prepare(
      'INSERT INTO products (id, name, description, price_cents, stock, category_id, image, is_active, ' +
        "created_at, updated_at) VALUES (?, ?, ?, ?, 1000000, ?, '', 1, ?, ?)",
    );
    const insertWord = db.prepare(
      'INSERT INTO product_words (product_id, word, weight, `rank`) VALUES (?, ?, ?, ?)',
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
        for (const row of productWordRows(id, { name, description, searchText: null, active: true }))
          insertWord.run(...row);
      }
    })();
    db.exec('CREATE INDEX IDX_product_words_word ON product_words (word, `rank`, product_id)');
    const insertDictionaryWord = db.prepare('INSERT OR IGNORE INTO search_words (word) VALUES (?)');
    for (const word of SEARCH_WORDS) insertDictionaryWord.run(word);
    const insertOptionValue = db.prepare(
      'INSERT INTO product_option_values (product_id, name, value_key, value) VALUES (?, ?, ?, ?)',
    );
    db.transaction(() => {
      for (let id = 1; id <= DATA_SET.products; id++) {
        for (const row of optionValueRowsOf(id)) insertOptionValue.run(...row);
      }
    })();
    db.exec('ANALYZE');
  }
  db.close();
  return url;
}
