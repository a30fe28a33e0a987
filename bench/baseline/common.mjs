// What both bare baselines share: configuration, the mysql2 pool, the JWT check, the handlers (the same SQL
// as the service for the benchmarked routes), the envelope and the response headers. The framework files only
// route requests here. Plain JavaScript on purpose: this is the code a team would otherwise write by hand.
import argon2 from 'argon2';
import helmet from 'helmet';
import jwt from 'jsonwebtoken';
import mysql from 'mysql2/promise';
import { createHash, createSecretKey, randomBytes, randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { URL } from 'node:url';
// The service's search: its tokenizer and its SQL (from the build), so that the baselines run the same plans.
import * as productSearch from '../../dist/src/products/product-search.js';
import * as productFacets from '../../dist/src/products/product-facets.js';
import { searchQueryWords } from '../../dist/src/products/product-words.js';
import { WordDictionary } from '../../dist/src/products/word-dictionary.js';
// The service's pricing calculator (pure, from the build): carts and orders are priced by the same arithmetic.
import { fromMinor, priceDocument } from '../../dist/src/pricing/calculator.js';
// The service's pure rules of price lists, promotions and gift cards (from the build), fed by the same statements.
import { ListPrices } from '../../dist/src/price-lists/price-list-prices.js';
import { promotionsAdjuster } from '../../dist/src/promotions/promotion-rules.js';
import {
  heldOrder,
  PROMOTIONS_OF_DOCUMENT,
  termsOf,
} from '../../dist/src/promotions/promotion-statements.js';
import { allocate, cardState } from '../../dist/src/gift-cards/gift-card-statements.js';

/** The facets the benchmark asks for. */
const FACETS = 'category_id,options,price';
const DURATION_UNITS = { s: 1, m: 60, h: 3600, d: 86400 };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A Date as the service binds it in its raw statements (`2026-11-22 08:00:00.000`, UTC). */
const sqlDatetime = (date) => date.toISOString().replace('T', ' ').replace('Z', '');
const DEFAULT_PAYMENT_METHODS = 'credit_card,debit_card,paypal,bank_transfer,cash_on_delivery';

/** The subset of the service's settings the benchmarked routes use, read from the same variables. */
export function loadConfig(env = process.env) {
  const secret = env.JWT_SECRET ?? '';
  if (secret.length < 32) throw new Error('JWT_SECRET of at least 32 characters is required');
  const expires = /^(\d+)([smhd]?)$/.exec(env.JWT_EXPIRES_IN ?? '900');
  if (!expires) throw new Error('JWT_EXPIRES_IN must be a duration such as 3600 or 1h');
  return {
    port: Number(env.PORT ?? 3000),
    databaseUrl: new URL(env.DATABASE_URL ?? ''),
    poolSize: Number(env.DATABASE_POOL_SIZE ?? 10),
    jwtKey: createSecretKey(Buffer.from(secret, 'utf8')),
    jwtExpiresIn: Number(expires[1]) * DURATION_UNITS[expires[2] || 's'],
    refreshTtlSeconds: 30 * 86400,
    pageSizeMax: Number(env.PAGE_SIZE_MAX ?? 100),
    searchTotalLimit: Number(env.SEARCH_TOTAL_LIMIT ?? 10_000),
    searchRankLimit: Number(env.SEARCH_RANK_LIMIT ?? 500),
    paymentMethods: (env.PAYMENT_METHODS ?? DEFAULT_PAYMENT_METHODS).split(',').map((m) => m.trim()),
    maxPendingPerUser: Number(env.ORDER_MAX_PENDING_PER_USER ?? 20),
    currency: (env.CURRENCY ?? 'usd').toLowerCase(),
  };
}

/**
 * The same pool options as the service's TypeORM driver: utf8mb4, UTC, READ COMMITTED, numbers for BIGINT, no
 * stack capture per query (`trace: false`), the same size.
 */
export function createPool(config) {
  const url = config.databaseUrl;
  const pool = mysql.createPool({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: decodeURIComponent(url.pathname.slice(1)),
    connectionLimit: config.poolSize,
    charset: 'utf8mb4_unicode_ci',
    timezone: 'Z',
    supportBigNumbers: true,
    bigNumberStrings: false,
    stringifyObjects: true,
    trace: false,
  });
  pool.pool.on('connection', (connection) => {
    connection.query("SET time_zone = '+00:00'");
    connection.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED');
  });
  return pool;
}

export class HttpError extends Error {
  constructor(status, details) {
    super(details);
    this.status = status;
  }
}

const badRequest = (details) => new HttpError(400, details);
const unauthorized = (details) => new HttpError(401, details);

export function envelope(code, data, meta) {
  const body = { code, message: STATUS_CODES[code], data: data ?? null };
  if (meta !== undefined) body.meta = meta;
  return body;
}

export function errorEnvelope(error) {
  if (error instanceof HttpError) return envelope(error.status, { details: error.message });
  if (error?.type === 'entity.parse.failed' || error instanceof SyntaxError) {
    return envelope(400, { details: 'Malformed JSON in request body' });
  }
  console.error(error);
  return envelope(500, { details: 'Internal server error' });
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestId(incoming) {
  return typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** helmet's default headers as [name, value] pairs, captured once, for the baseline without middleware. */
export function helmetHeaders() {
  const headers = [];
  const response = {
    setHeader: (name, value) => headers.push([name, value]),
    removeHeader: () => undefined,
  };
  helmet()({}, response, () => undefined);
  return headers;
}

// ---------------------------------------------------------------------------------------------------------
// Validation: the service's DTO rules for the fields the benchmarked routes take, written out by hand.

const INTEGER_STRING = /^-?\d{1,16}$/;
const INT_MAX = 2_147_483_647;

function queryInteger(name, value, min, max) {
  if (typeof value !== 'string' || !INTEGER_STRING.test(value)) {
    throw badRequest(`${name} must be an integer number`);
  }
  const number = Number(value);
  if (number < min) throw badRequest(`${name} must not be less than ${min}`);
  if (number > max) throw badRequest(`${name} must not be greater than ${max}`);
  return number;
}

function refuseUnknown(object, allowed) {
  for (const key of Object.keys(object)) {
    if (!allowed.includes(key)) throw badRequest(`property ${key} should not exist`);
  }
}

function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function bodyInteger(object, name, label, min, max) {
  const value = object[name];
  if (!Number.isInteger(value)) throw badRequest(`${label} must be an integer number`);
  if (value < min) throw badRequest(`${label} must not be less than ${min}`);
  if (value > max) throw badRequest(`${label} must not be greater than ${max}`);
  return value;
}

function bodyString(object, name, min, max) {
  const value = object[name];
  if (typeof value !== 'string') throw badRequest(`${name} must be a string`);
  if (value.length < min || value.length > max) {
    throw badRequest(
      `${name} must be longer than or equal to ${min} and shorter than or equal to ${max} characters`,
    );
  }
  return value;
}

// ---------------------------------------------------------------------------------------------------------
// The handlers.

const PRODUCT_COLUMNS =
  'id, name, description, price_cents, prices, tax_class, stock, category_id, image, slug, is_active, created_at, ' +
  'updated_at';
/** A product read with its images, one row per image, as the service reads it (product-statements.ts). */
const productWithImages = (where) =>
  `SELECT ${PRODUCT_COLUMNS.replace(/(\w+)/g, 'p.$1')}, o.options, i.path AS image_path, i.alt AS image_alt, ` +
  'i.position AS image_position FROM products p LEFT JOIN product_options o ON o.product_id = p.id ' +
  `LEFT JOIN product_images i ON i.product_id = p.id WHERE ${where} AND p.deleted_at IS NULL`;
const MAX_ITEMS = 100;
const MAX_QUANTITY = 1000;
const MAX_CART_LINES = 100;
const ORDER_NUMBER_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const BAD_CREDENTIALS = 'Invalid username or password';
const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

/** A product's prices: the default currency's first, then the others by code (currencyPriceList). */
function priceList(defaultCurrency, priceCents, prices) {
  const others = Object.entries(prices === null ? {} : JSON.parse(prices))
    .filter(([code]) => code !== defaultCurrency)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([code, amount]) => ({ currency_code: code, amount: fromMinor(Number(amount), code) }));
  return [{ currency_code: defaultCurrency, amount: fromMinor(priceCents, defaultCurrency) }, ...others];
}

function toProduct(row, images, defaultCurrency) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    price: row.price_cents / 100,
    stock: row.stock,
    category_id: row.category_id,
    image: row.image,
    slug: row.slug,
    images,
    is_active: Boolean(row.is_active),
    prices: priceList(defaultCurrency, row.price_cents, row.prices),
    tax_class: row.tax_class,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function newOrderNumber(now) {
  const date = now.toISOString().slice(0, 10).replaceAll('-', '');
  const bytes = randomBytes(8);
  let suffix = '';
  for (let i = 0; i < 8; i++) suffix += ORDER_NUMBER_ALPHABET[bytes[i] & 31];
  return `ORD-${date}-${suffix}`;
}

function isTransientLockError(error) {
  return error?.code === 'ER_LOCK_DEADLOCK' || error?.code === 'ER_LOCK_WAIT_TIMEOUT';
}

// Pricing (DESIGN.md §16), as the service's regions, taxes and DocumentPricing do it for the benchmarked routes.

/** A region with its countries (or the default region for null): one statement, as region-statements.ts. */
const REGION_BY_ID =
  'SELECT r.id, r.name, r.currency_code, r.prices_include_tax, r.is_default, rc.country FROM regions r ' +
  'LEFT JOIN region_countries rc ON rc.region_id = r.id ' +
  'WHERE r.id = COALESCE(?, (SELECT d.id FROM regions d WHERE d.is_default = 1)) ORDER BY rc.position';
const RATES_OF_COUNTRY = 'SELECT subdivision, tax_class, rate, name, code FROM tax_rates WHERE country = ?';

async function regionOf(db, id) {
  const [rows] = await db.query(REGION_BY_ID, [id]);
  if (rows.length === 0) return null;
  return {
    id: rows[0].id,
    name: rows[0].name,
    currency: rows[0].currency_code,
    pricesIncludeTax: Number(rows[0].prices_include_tax) === 1,
    countries: rows.filter((row) => row.country !== null).map((row) => row.country),
  };
}

/** A unit price in the currency (minor units): the default currency's column, else the product's price map. */
function unitPriceIn(currency, defaultCurrency, priceCents, prices) {
  if (currency === defaultCurrency) return Number(priceCents);
  const amount = prices === null ? undefined : JSON.parse(prices)[currency];
  return amount === undefined || amount === null ? null : Number(amount);
}

/** The subdivision of an address's `region` field ("US-CA" or "CA"), or null when it holds a name. */
function subdivisionOf(region) {
  const code = /^(?:[A-Z]{2}-)?([A-Z0-9]{1,3})$/.exec((region ?? '').trim().toUpperCase());
  return code === null ? null : code[1];
}

/**
 * The price lists' prices for the products (no variants in the benchmark) that apply to the customer at `at`:
 * one statement, as price-list-lookup.ts (none without products).
 */
async function listPricesOf(db, currency, customerId, at, productIds) {
  if (productIds.length === 0) return new ListPrices([]);
  const ids = [...new Set(productIds)];
  const when = sqlDatetime(at);
  const forShopper =
    'NOT EXISTS (SELECT 1 FROM price_list_customer_groups g WHERE g.price_list_id = l.id)' +
    (customerId === null
      ? ''
      : ' OR EXISTS (SELECT 1 FROM price_list_customer_groups g WHERE g.price_list_id = l.id AND EXISTS ' +
        '(SELECT 1 FROM customer_group_members cgm WHERE cgm.customer_group_id = g.customer_group_id AND cgm.user_id = ?))');
  const [rows] = await db.query(
    'SELECT p.price_list_id, l.type, p.product_id, p.variant_id, p.amount_minor FROM (SELECT price_list_id, ' +
      `product_id, variant_id, amount_minor FROM price_list_prices WHERE product_id IN (${ids.map(() => '?').join(', ')}) ` +
      'AND currency_code = ? AND variant_id IS NULL) p JOIN price_lists l ON l.id = p.price_list_id ' +
      "WHERE l.status = 'active' AND (l.starts_at IS NULL OR l.starts_at <= ?) " +
      `AND (l.ends_at IS NULL OR l.ends_at > ?) AND (${forShopper})`,
    [...ids, currency, when, when, ...(customerId === null ? [] : [customerId])],
  );
  return new ListPrices(
    rows.map((row) => ({
      priceListId: Number(row.price_list_id),
      type: row.type,
      productId: row.product_id === null ? null : Number(row.product_id),
      variantId: row.variant_id === null ? null : Number(row.variant_id),
      amount: Number(row.amount_minor),
    })),
  );
}

/**
 * The promotions' adjuster of a document (none without a promotion): one statement, then the service's rules.
 * The benchmark's promotions need nothing of the customer (groups, earlier orders, uses) nor categories.
 */
async function promotionAdjusters(db, cartId) {
  const [rows] = await db.query(PROMOTIONS_OF_DOCUMENT, [cartId]);
  if (rows.length === 0) return [];
  const promotions = rows
    .sort((a, b) => heldOrder(a) - heldOrder(b) || Number(a.id) - Number(b.id))
    .map(termsOf);
  const needsMore = (promotion) =>
    promotion.firstOrderOnly ||
    promotion.usageLimitPerCustomer !== null ||
    (promotion.customerGroupIds ?? []).length > 0 ||
    (promotion.categoryIds ?? []).length > 0;
  if (promotions.some(needsMore)) {
    throw new Error('The benchmark baseline prices promotions without customer or category conditions only');
  }
  const shopper = {
    now: new Date(),
    groups: [],
    earlierOrders: 0,
    usesOf: () => 0,
    inCategories: () => false,
  };
  return [promotionsAdjuster('promotions', promotions, shopper)];
}

/** The cards applied to a cart, in the order applied (gift-card-statements.ts). */
const CARDS_OF_CART =
  'SELECT g.id, g.code_last4, g.currency_code, g.balance_minor, g.expires_at, g.is_active FROM cart_gift_cards c ' +
  'INNER JOIN gift_cards g ON g.id = c.gift_card_id WHERE c.cart_id = ? ORDER BY c.created_at, c.gift_card_id';

async function cardsOfCart(db, cartId) {
  const [rows] = await db.query(CARDS_OF_CART, [cartId]);
  return rows.map(cardState);
}

/**
 * Prices lines ({ id, productId, price, quantity, taxClass }) in the region for the address (null: the region's
 * first country stands in, none: untaxed), as DocumentPricing does: the promotions' adjuster, the gift cards'
 * balance (a cart's), the country's rates read once (the class's most specific rate, else the standard one),
 * then the calculator; with an adjuster, an untaxed pricing first (what the service tells its tax provider).
 * No shipping in the benchmarked requests.
 */
async function priceLines(db, region, address, lines, cartId) {
  const adjusters = await promotionAdjusters(db, cartId);
  const giftCardBalance =
    cartId === null
      ? 0
      : allocate(await cardsOfCart(db, cartId), Number.MAX_SAFE_INTEGER, region.currency, new Date()).reduce(
          (a, b) => a + b,
          0,
        );
  const input = {
    currency: region.currency,
    pricesIncludeTax: region.pricesIncludeTax,
    lines,
    shipping: null,
    adjusters,
    giftCardBalance,
  };
  const place =
    address ?? (region.countries.length === 0 ? null : { country: region.countries[0], subdivision: null });
  let taxRates = () => [];
  if (place !== null && lines.length > 0) {
    // The untaxed pricing whose amounts after discounts the service tells its tax provider.
    if (adjusters.length > 0) priceDocument({ ...input, taxRates });
    const [rows] = await db.query(RATES_OF_COUNTRY, [place.country]);
    const subdivision = place.subdivision ?? '';
    const find = (taxClass, where) =>
      rows.find((row) => row.tax_class === taxClass && row.subdivision === where);
    taxRates = ({ taxClass }) => {
      const row =
        (subdivision === '' ? undefined : find(taxClass, subdivision)) ??
        find(taxClass, '') ??
        (subdivision === '' ? undefined : find('standard', subdivision)) ??
        find('standard', '');
      return row === undefined ? [] : [{ code: row.code, name: row.name, rate: Number(row.rate) }];
    };
  }
  return priceDocument({ ...input, taxRates });
}

/**
 * A document's totals as the API shows them (documentTotals in priced.dto.ts); an order shows its gift cards
 * (`{ gift_cards }`) after gift_card_total.
 */
function documentTotals(document, regionId, giftCards = {}) {
  const money = (amount) => fromMinor(amount, document.currency);
  return {
    currency_code: document.currency,
    region_id: regionId,
    prices_include_tax: document.pricesIncludeTax,
    subtotal: money(document.subtotal),
    discount_total: money(document.discountTotal),
    shipping_total: money(document.shippingTotal),
    shipping_tax_total: money(document.shipping.taxTotal),
    tax_total: money(document.taxTotal),
    gift_card_total: money(document.giftCardTotal),
    ...giftCards,
    total: money(document.total),
    amount_due: money(document.amountDue),
  };
}

const taxLineResponse = (tax, currency) => ({
  code: tax.code,
  name: tax.name,
  rate: tax.rate,
  amount: fromMinor(tax.amount, currency),
});

const adjustmentResponse = (adjustment, currency) => ({
  code: adjustment.code,
  amount: fromMinor(adjustment.amount, currency),
  promotion_id: adjustment.promotionId ?? null,
  description: adjustment.description ?? null,
});

export function createHandlers(config, pool) {
  const decoyHash = argon2.hash('decoy password for unknown users', ARGON2_OPTIONS);

  /** Bearer token -> the active user behind it, as the service's JWT guard does (HS256, KeyObject, DB lookup). */
  async function authenticate(header) {
    if (header === undefined) throw unauthorized('Missing bearer token');
    const match = /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*)$/i.exec(header);
    if (match === null) throw unauthorized('Invalid bearer token');
    let claims;
    try {
      claims = jwt.verify(match[1], config.jwtKey, { algorithms: ['HS256'] });
    } catch (error) {
      throw unauthorized(error.name === 'TokenExpiredError' ? 'Token has expired' : 'Invalid bearer token');
    }
    if (
      typeof claims.exp !== 'number' ||
      typeof claims.sid !== 'string' ||
      !UUID.test(claims.sid) ||
      typeof claims.sub !== 'string' ||
      !/^[1-9][0-9]{0,15}$/.test(claims.sub)
    ) {
      throw unauthorized('Invalid token claims');
    }
    const [rows] = await pool.query(
      'SELECT u.id, u.username, u.role FROM sessions s INNER JOIN users u ON u.id = s.user_id ' +
        'WHERE s.id = ? AND s.user_id = ? AND s.revoked_at IS NULL AND s.expires_at > ? ' +
        'AND u.is_active = 1 AND u.deleted_at IS NULL LIMIT 1',
      [claims.sid, Number(claims.sub), sqlDatetime(new Date())],
    );
    if (rows.length === 0) throw unauthorized('Token is no longer valid');
    return { id: rows[0].id, username: rows[0].username, role: rows[0].role, sessionId: claims.sid };
  }

  /** The cart routes take a bearer token when one is sent (a customer's cart) and none otherwise. */
  function authenticateOptional(header) {
    return header === undefined ? Promise.resolve(undefined) : authenticate(header);
  }

  async function getProduct(user, idParam) {
    const id = queryInteger('id', idParam, 1, INT_MAX);
    const [rows] = await pool.query(
      productWithImages(user.role === 'admin' ? 'p.id = ?' : 'p.id = ? AND p.is_active = 1'),
      [id],
    );
    if (rows.length === 0) throw new HttpError(404, `Product ${id} not found`);
    const images = rows
      .filter((row) => row.image_path !== null)
      .map((row) => ({ url: row.image_path, alt: row.image_alt, position: row.image_position }))
      .sort((a, b) => a.position - b.position);
    // The seeded products have no options, so the service reads no variants either.
    if (rows[0].options !== null)
      throw new Error('The benchmark baseline reads products without options only');
    return {
      status: 200,
      body: envelope(200, { ...toProduct(rows[0], images, config.currency), options: [], variants: [] }),
    };
  }

  /**
   * The search's dictionary (search_words) and each word's variants, as the service's SearchDictionary keeps
   * them: loaded once (the benchmark writes no product), the variants resolved once per word. The seeded
   * catalogue has no synonyms.
   */
  const dictionary = new WordDictionary('english');
  const dictionaryLoaded = pool
    .query('SELECT word FROM search_words ORDER BY id')
    .then(([rows]) => dictionary.add(rows.map((row) => row.word)));
  const variants = new Map();
  async function searchTermsOf(words) {
    await dictionaryLoaded;
    return productSearch.searchTerms(words).map((term) => {
      const key = `${term.prefix ? '*' : '='}${term.word}`;
      if (!variants.has(key)) variants.set(key, dictionary.variants(term.word, term.prefix, true));
      return { ...term, variants: [...term.variants, ...variants.get(key)] };
    });
  }

  /** List totals per filter: { generation, total, countedAt }, least recently used first. */
  const totals = new Map();
  const TOTALS_TTL_MS = 60_000;
  /** Each search term's postings counted (product-list.query.ts), kept for a minute. */
  const postingCounts = new Map();

  async function postingsCount(term, cap) {
    const key = `${cap}${productSearch.termKey(term)}`;
    const known = postingCounts.get(key);
    if (known !== undefined && Date.now() - known.countedAt < 60_000) return known.count;
    const { sql, params } = productSearch.postingsCountSql(term, cap);
    const [rows] = await pool.query(sql, params);
    postingCounts.set(key, { count: Number(rows[0].n), countedAt: Date.now() });
    if (postingCounts.size > 10_000) postingCounts.delete(postingCounts.keys().next().value);
    return Number(rows[0].n);
  }

  const termPostings = (terms) => productSearch.termPostings(terms, config.searchRankLimit, postingsCount);

  /** A search's count when only the visibility filters it: in the word index alone (product-list.query.ts). */
  async function countInWords(words, active) {
    const terms = await searchTermsOf(words);
    const counts = await termPostings(terms);
    const plan = productSearch.searchPlan(counts, config.searchRankLimit, {
      relevance: true,
      fewProducts: false,
    });
    const driver = productSearch.driverOf(terms, counts);
    // As the service: a count checking its driver's postings reads a budget of them (then a lower bound).
    const budget =
      plan === 'postings' && terms.length > 1
        ? productSearch.countBudget(config.searchRankLimit, counts[driver])
        : undefined;
    const { sql, params } = productSearch.wordsCountSql(terms, plan, driver, {
      mysql: true,
      active: active ? true : undefined,
      cap: config.searchTotalLimit + 1,
      budget,
    });
    const [rows] = await pool.query(sql, params);
    return { total: Number(rows[0].n), lowerBound: budget !== undefined };
  }

  /** The service's search plan and SQL (product-list.query.ts) for a relevance page (`score`) or the count. */
  async function searchParts(words, where, params, score, visibility, pageRows, budgeted = true) {
    const terms = await searchTermsOf(words);
    const counts = await termPostings(terms);
    const plan = productSearch.searchPlan(counts, config.searchRankLimit, {
      relevance: true,
      fewProducts: false,
    });
    const driver = productSearch.driverOf(terms, counts);
    // A count walking postings reads a budget of its driver's (then a lower bound), as the service.
    let budget;
    if (!score && budgeted && plan === 'postings') {
      const driverPostings =
        terms.length > 1
          ? counts[driver]
          : await postingsCount(terms[driver], productSearch.budgetPostings(config.searchRankLimit));
      budget = productSearch.countBudget(config.searchRankLimit, driverPostings);
    }
    const search = productSearch.searchSql(terms, plan, driver, {
      mysql: true,
      score,
      ...visibility,
      page: score ? { rows: pageRows, where: [...where], params: [...params] } : undefined,
      distinct: !score,
      budget,
    });
    search.lowerBound = budget !== undefined;
    // Reading no product row, the filter is in the rank band or in the search's own statements.
    if (search.wordsOnly) {
      where.length = 0;
      params.length = 0;
    }
    where.push(...search.where);
    params.push(...search.whereParams);
    return search;
  }

  /**
   * page, page_size, category_id, search (relevance order) and cursor (id order): the list parameters the
   * benchmark uses, with the service's SQL.
   */
  async function listProducts(user, query) {
    refuseUnknown(query, ['page', 'page_size', 'category_id', 'search', 'cursor', 'facets']);
    if (query.facets !== undefined && (query.facets !== FACETS || query.category_id !== undefined)) {
      throw badRequest(`The baseline answers facets=${FACETS} without category_id only`);
    }
    const page = query.page === undefined ? 1 : queryInteger('page', query.page, 1, 1_000_000);
    const pageSize =
      query.page_size === undefined ? 10 : queryInteger('page_size', query.page_size, 1, INT_MAX);
    if (pageSize > config.pageSizeMax) {
      throw badRequest(`page_size must not be greater than ${config.pageSizeMax}`);
    }
    const searching = typeof query.search === 'string' && query.search.trim() !== '';
    const sort = searching ? 'relevance' : 'id';
    let after;
    if (query.cursor !== undefined) {
      if (searching) throw badRequest('cursor is not available with sort=relevance; use page');
      let decoded;
      try {
        decoded = JSON.parse(Buffer.from(String(query.cursor), 'base64url').toString());
      } catch {
        decoded = null;
      }
      if (decoded?.s !== 'id' || !Number.isSafeInteger(decoded.i) || decoded.i < 1) {
        throw badRequest('cursor must be a next_cursor returned by this list');
      }
      after = decoded.i;
    }
    const where = ['p.deleted_at IS NULL'];
    const params = [];
    if (user.role !== 'admin') where.push('p.is_active = 1');
    if (query.category_id !== undefined) {
      where.push('p.category_id = ?');
      params.push(queryInteger('category_id', query.category_id, 1, INT_MAX));
    }
    const words = searching ? searchQueryWords(query.search) : [];
    if (searching && words.length === 0) where.push('1 = 0');
    const searched = searching && words.length > 0;
    if (searching && page > 1 && (page - 1) * pageSize >= config.searchTotalLimit) {
      throw badRequest(
        `page must be at most ${Math.ceil(config.searchTotalLimit / pageSize)} with page_size ${pageSize}`,
      );
    }
    // As the service: the visibility in the word index's rank band; no product row read without other filters.
    const visibility = {
      active: user.role !== 'admin' ? true : undefined,
      wordsOnly: query.category_id === undefined,
    };
    const offset = after === undefined ? (page - 1) * pageSize : 0;
    const pageWhere = [...where];
    const pageParams = [...params];
    const search = searched
      ? await searchParts(words, pageWhere, pageParams, true, visibility, offset + pageSize + 1)
      : { id: 'p.id', from: '', fromParams: [], score: '0', scoreParams: [], productsFirst: true };
    const from = search.productsFirst ? `products p${search.from}` : search.from;
    const keyset = after === undefined ? '' : ' AND p.id > ?';
    const ordered = search.postingsOrder;
    const order = ordered?.inner ?? (sort === 'relevance' ? `score DESC, ${search.id} ASC` : 'p.id ASC');
    const outerOrder = ordered?.outer ?? (sort === 'relevance' ? 'page.score DESC, p.id ASC' : order);
    // Deferred join, as the service: the page's ids from the index, then those rows only.
    const [rows] = await pool.query(
      `SELECT ${PRODUCT_COLUMNS.replace(/(\w+)/g, 'p.$1')} FROM products p INNER JOIN (` +
        `SELECT ${search.id} AS id, ${search.score} AS score${ordered ? `, ${ordered.columns}` : ''} FROM ${from} ` +
        `WHERE ${pageWhere.join(' AND ')}${keyset} ORDER BY ${order} LIMIT ? OFFSET ?) page ON page.id = p.id ` +
        `ORDER BY ${outerOrder}`,
      [
        ...search.scoreParams,
        ...search.fromParams,
        ...pageParams,
        ...(after === undefined ? [] : [after]),
        pageSize + 1,
        offset,
      ],
    );
    const more = rows.length > pageSize;
    if (more) rows.pop();
    // The count only when it cannot be told from the page (as the service decides), and as the service keeps
    // it (product-list-totals.ts): per filter, under the catalogue generation read before counting; a search's
    // count stops past SEARCH_TOTAL_LIMIT.
    let total = offset + rows.length;
    let lowerBound = false;
    if (after !== undefined || more || (rows.length === 0 && offset > 0)) {
      const [[{ generation }]] = await pool.query('SELECT generation FROM catalog_state WHERE id = 1');
      const key = JSON.stringify([where, params, words]);
      const known = totals.get(key);
      totals.delete(key);
      if (known?.generation === Number(generation) && Date.now() - known.countedAt < TOTALS_TTL_MS) {
        ({ total, lowerBound } = known);
        totals.set(key, known);
      } else {
        const countWhere = [...where];
        const countParams = [...params];
        const wordsOnly = searched && query.category_id === undefined;
        const counted =
          searched && !wordsOnly
            ? await searchParts(words, countWhere, countParams, false, visibility)
            : null;
        const matches = `FROM ${counted === null ? 'products p' : counted.from} WHERE ${countWhere.join(' AND ')}`;
        if (wordsOnly) {
          ({ total, lowerBound } = await countInWords(words, user.role !== 'admin'));
        } else {
          const [rows] = await pool.query(
            counted === null
              ? `SELECT COUNT(*) AS n ${matches}`
              : `SELECT COUNT(*) AS n FROM (SELECT DISTINCT ${counted.id} ${matches} LIMIT ?) matches`,
            counted === null
              ? countParams
              : [...counted.fromParams, ...countParams, config.searchTotalLimit + 1],
          );
          total = Number(rows[0].n);
          lowerBound = counted?.lowerBound === true;
        }
        totals.set(key, { generation: Number(generation), total, lowerBound, countedAt: Date.now() });
        if (totals.size > 10_000) totals.delete(totals.keys().next().value);
      }
      // A lower bound is at least what this page has seen.
      if (lowerBound) total = Math.max(total, offset + rows.length + (more ? 1 : 0));
    }
    const exact = searching ? { total_exact: total <= config.searchTotalLimit && !lowerBound } : {};
    if (searching) total = Math.min(total, config.searchTotalLimit);
    const nextCursor =
      more && sort === 'id'
        ? Buffer.from(JSON.stringify({ s: 'id', i: rows.at(-1).id })).toString('base64url')
        : null;
    const meta = {
      page: after === undefined ? page : null,
      page_size: pageSize,
      total,
      ...exact,
      total_page: Math.ceil(total / pageSize),
      next_cursor: nextCursor,
    };
    const images = new Map();
    const withImages = rows.filter((row) => row.image !== '');
    if (withImages.length > 0) {
      const [imageRows] = await pool.query(
        `SELECT product_id, path, alt, position FROM product_images WHERE product_id IN (${withImages.map(() => '?').join(', ')}) ` +
          'ORDER BY product_id, position',
        withImages.map((row) => row.id),
      );
      for (const row of imageRows) {
        const list = images.get(row.product_id) ?? [];
        list.push({ url: row.path, alt: row.alt, position: row.position });
        images.set(row.product_id, list);
      }
    }
    const products = rows.map((row) => toProduct(row, images.get(row.id) ?? [], config.currency));
    if (query.facets !== undefined) {
      Object.assign(meta, await facetsOf(where, params, searched ? words : null, visibility));
    }
    return { status: 200, body: envelope(200, products, meta) };
  }

  /**
   * The three facets of a list filtered by its visibility and a search (the service's facets, with no filter of
   * their own to leave out): its matches' ids read once, then counted by primary key with the service's
   * statements, kept per filter and catalogue generation as the service keeps them.
   */
  async function facetsOf(where, params, words, visibility) {
    const [[{ generation }]] = await pool.query('SELECT generation FROM catalog_state WHERE id = 1');
    const key = JSON.stringify(['facets', where, params, words]);
    const known = totals.get(key);
    totals.delete(key);
    if (known?.generation === Number(generation) && Date.now() - known.countedAt < TOTALS_TTL_MS) {
      totals.set(key, known);
      return known.facets;
    }
    const matchWhere = [...where];
    const matchParams = [...params];
    const search =
      words === null ? null : await searchParts(words, matchWhere, matchParams, false, visibility, 0, false);
    const cap = config.searchTotalLimit;
    const [idRows] = await pool.query(
      `SELECT ${search === null ? '' : 'DISTINCT '}${search?.id ?? 'p.id'} AS id ` +
        `FROM ${search === null ? 'products p' : search.from} WHERE ${matchWhere.join(' AND ')} LIMIT ?`,
      [...(search?.fromParams ?? []), ...matchParams, cap + 1],
    );
    const ids = idRows.map((row) => Number(row.id));
    const categories = new Map();
    const buckets = new Map();
    const options = new Map();
    const counted = ids.slice(0, cap);
    for (let start = 0; start < counted.length; start += productFacets.FACET_ID_CHUNK) {
      const chunk = counted.slice(start, start + productFacets.FACET_ID_CHUNK);
      const [productRows] = await pool.query(productFacets.productFacetSql(chunk.length), chunk);
      for (const row of productRows) {
        categories.set(
          Number(row.category_id),
          (categories.get(Number(row.category_id)) ?? 0) + Number(row.n),
        );
        buckets.set(Number(row.bucket), (buckets.get(Number(row.bucket)) ?? 0) + Number(row.n));
      }
      const option = productFacets.optionFacetSql(chunk.length, { except: [] });
      const [optionRows] = await pool.query(option.sql, [...chunk, ...option.params]);
      for (const row of optionRows) {
        const values = options.get(row.name) ?? new Map();
        const seen = values.get(row.value_key);
        values.set(row.value_key, {
          value: seen === undefined || row.value < seen.value ? row.value : seen.value,
          count: (seen?.count ?? 0) + Number(row.n),
        });
        options.set(row.name, values);
      }
    }
    const names = [...options.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const facets = {
      facets: {
        category_id: productFacets.topValues(categories),
        price: [...buckets]
          .sort(([a], [b]) => a - b)
          .map(([bucket, n]) => productFacets.priceBucketOf(bucket, n)),
        options: Object.fromEntries(
          names.map((name) => [
            name,
            productFacets.topValues(new Map([...options.get(name).values()].map((v) => [v.value, v.count]))),
          ]),
        ),
      },
      facets_exact: ids.length <= cap,
    };
    totals.set(key, { generation: Number(generation), facets, countedAt: Date.now() });
    if (totals.size > 10_000) totals.delete(totals.keys().next().value);
    return facets;
  }

  function parseOrder(body) {
    if (!isObject(body)) throw badRequest('items must be an array');
    refuseUnknown(body, ['items', 'shipping_address', 'payment_method']);
    const items = body.items;
    if (!Array.isArray(items)) throw badRequest('items must be an array');
    if (items.length < 1) throw badRequest('items must contain at least 1 elements');
    if (items.length > MAX_ITEMS) throw badRequest(`items must contain no more than ${MAX_ITEMS} elements`);
    const quantities = new Map();
    items.forEach((item, index) => {
      if (!isObject(item)) throw badRequest(`items.${index} must be an object`);
      refuseUnknown(item, ['product_id', 'quantity']);
      const productId = bodyInteger(item, 'product_id', `items.${index}.product_id`, 1, INT_MAX);
      const quantity = bodyInteger(item, 'quantity', `items.${index}.quantity`, 1, MAX_QUANTITY);
      quantities.set(productId, (quantities.get(productId) ?? 0) + quantity);
    });
    const shippingAddress = bodyString(body, 'shipping_address', 1, 255);
    const paymentMethod = bodyString(body, 'payment_method', 1, 32);
    if (!config.paymentMethods.includes(paymentMethod)) {
      throw badRequest(`payment_method must be one of: ${config.paymentMethods.join(', ')}`);
    }
    const merged = [...quantities].map(([productId, quantity]) => ({ productId, quantity }));
    const tooMany = merged.find((item) => item.quantity > MAX_QUANTITY);
    if (tooMany !== undefined) {
      throw badRequest(
        `items: product ${tooMany.productId} totals ${tooMany.quantity} units, more than ${MAX_QUANTITY}`,
      );
    }
    return { items: merged.sort((a, b) => a.productId - b.productId), shippingAddress, paymentMethod };
  }

  /**
   * One transaction: the default region (a free-text address names no country), conditional stock UPDATE per
   * product in id order, SELECT name/price/tax class, the pending count, the price lists, the promotions, the
   * region's tax rates, the calculator, INSERT order, items and tax lines, the items and the owner read back for
   * the order event.
   */
  async function placeOrder(connection, user, order) {
    const { items } = order;
    await connection.query('START TRANSACTION');
    try {
      const now = new Date();
      const region = await regionOf(connection, null);
      for (const { productId, quantity } of items) {
        const [result] = await connection.query(
          'UPDATE products SET stock = stock - ?, updated_at = ? ' +
            'WHERE id = ? AND stock >= ? AND is_active IS TRUE AND deleted_at IS NULL AND NOT EXISTS ' +
            '(SELECT 1 FROM product_variants v WHERE v.product_id = products.id AND v.is_active = 1 AND v.deleted_at IS NULL)',
          [quantity, sqlDatetime(now), productId, quantity],
        );
        if (result.affectedRows === 0) {
          const [rows] = await connection.query(
            'SELECT id, stock, is_active FROM products WHERE id = ? AND deleted_at IS NULL LIMIT 1',
            [productId],
          );
          if (rows.length === 0) throw badRequest(`Product ${productId} not found`);
          if (!rows[0].is_active) throw badRequest(`Product ${productId} is not available`);
          throw badRequest(
            `Product ${productId} has insufficient stock: requested ${quantity}, available ${rows[0].stock}`,
          );
        }
      }
      const [products] = await connection.query(
        'SELECT id, name, price_cents, prices, tax_class FROM products WHERE id IN (?) AND deleted_at IS NULL',
        [items.map((item) => item.productId)],
      );
      const byId = new Map(products.map((row) => [row.id, row]));
      const [[{ pending }]] = await connection.query(
        "SELECT COUNT(*) AS pending FROM orders WHERE user_id = ? AND status = 'pending'",
        [user.id],
      );
      if (pending >= config.maxPendingPerUser) {
        throw badRequest(
          `At most ${config.maxPendingPerUser} pending orders per user (ORDER_MAX_PENDING_PER_USER): pay or cancel one first`,
        );
      }
      const bases = items.map((item) => {
        const product = byId.get(item.productId);
        const price = unitPriceIn(region.currency, config.currency, product.price_cents, product.prices);
        if (price === null) throw badRequest(`${product.name} has no price in ${region.currency}`);
        return price;
      });
      // The price lists that apply to the customer now give the lines' prices (one lookup for the order).
      const lists = await listPricesOf(
        connection,
        region.currency,
        user.id,
        now,
        items.map((item) => item.productId),
      );
      const lines = items.map((item, i) => ({
        id: i,
        productId: item.productId,
        price: lists.of({ productId: item.productId, variantId: null }, bases[i]).price,
        quantity: item.quantity,
        taxClass: byId.get(item.productId).tax_class,
      }));
      const document = await priceLines(connection, region, null, lines, null);
      if (document.lines.some((line) => line.adjustments.length > 0)) {
        throw new Error('The benchmark baseline places orders without promotions only');
      }
      const created = { orderNumber: newOrderNumber(now), document, region, createdAt: now };
      const [inserted] = await connection.query(
        'INSERT INTO orders (order_number, user_id, email, email_key, total_cents, shipping_total_cents, currency_code, ' +
          'region_id, prices_include_tax, subtotal_minor, discount_total_minor, tax_total_minor, ' +
          'shipping_tax_total_minor, gift_card_total_minor, tax_calculation_id, tax_transaction_id, status, ' +
          'payment_status, shipping_address, shipping_address_details, payment_method, idempotency_key, ' +
          'request_hash, order_token_hash, cart_id, placed_by_user_id, created_at, updated_at) ' +
          'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [
          created.orderNumber,
          user.id,
          null,
          null,
          document.total,
          document.shippingTotal,
          region.currency,
          region.id,
          region.pricesIncludeTax,
          document.subtotal,
          document.discountTotal,
          document.taxTotal,
          document.shipping.taxTotal,
          document.giftCardTotal,
          null,
          null,
          'pending',
          'pending',
          order.shippingAddress,
          null,
          order.paymentMethod,
          null,
          null,
          null,
          null,
          null,
          now,
          now,
        ],
      );
      created.id = inserted.insertId;
      await connection.query(
        'INSERT INTO order_items (order_id, product_id, product_name, unit_price_cents, original_unit_price_cents, ' +
          'quantity, variant_id, sku, variant_title, tax_class, discount_total_minor, tax_total_minor, total_minor) ' +
          'VALUES ?',
        [
          items.map((item, i) => {
            const priced = document.lines[i];
            const product = byId.get(item.productId);
            return [
              created.id,
              item.productId,
              product.name,
              priced.price,
              bases[i],
              item.quantity,
              null,
              null,
              null,
              product.tax_class,
              priced.discountTotal,
              priced.taxTotal,
              priced.total,
            ];
          }),
        ],
      );
      // The items as written, for the order.created event the service publishes in the transaction.
      const [written] = await connection.query(
        'SELECT id, order_id, product_id, product_name, unit_price_cents, original_unit_price_cents, quantity, ' +
          'variant_id, sku, ' +
          'variant_title, tax_class, discount_total_minor, tax_total_minor, total_minor FROM order_items ' +
          'WHERE order_id = ? ORDER BY id ASC',
        [created.id],
      );
      // Each line's taxes, kept with its item (line i is item i, ids ascending as inserted).
      const taxLines = document.lines.flatMap((line, i) =>
        line.taxLines.map((tax) => [created.id, written[i].id, tax.code, tax.name, tax.rate, tax.amount]),
      );
      if (taxLines.length > 0) {
        await connection.query(
          'INSERT INTO order_tax_lines (order_id, order_item_id, code, name, rate, amount_minor) VALUES ?',
          [taxLines],
        );
      }
      // The owner of the order event the service publishes in the transaction.
      await connection.query('SELECT id, username, email FROM users WHERE id = ?', [user.id]);
      await connection.query('COMMIT');
      return created;
    } catch (error) {
      await connection.query('ROLLBACK');
      throw error;
    }
  }

  async function createOrder(user, body) {
    const order = parseOrder(body);
    // Computed as the service does, for Idempotency-Key replays (not used by the benchmark's requests).
    createHash('sha256')
      .update(JSON.stringify([order.items, order.shippingAddress, order.paymentMethod]))
      .digest('hex');
    const connection = await pool.getConnection();
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          const created = await placeOrder(connection, user, order);
          const { document, region } = created;
          const data = {
            id: created.id,
            order_number: created.orderNumber,
            total_amount: fromMinor(document.total, document.currency),
            status: 'pending',
            shipping_address: order.shippingAddress,
            payment_method: order.paymentMethod,
            payment_status: 'pending',
            fulfillment_status: 'not_fulfilled',
            ...documentTotals(document, region.id, { gift_cards: [] }),
            email: null,
            shipping_address_details: null,
            created_at: created.createdAt.toISOString(),
            updated_at: created.createdAt.toISOString(),
          };
          return { status: 201, body: envelope(201, data) };
        } catch (error) {
          if (!isTransientLockError(error) || attempt === 5) throw error;
          await sleep(5 + Math.random() * 20 * attempt);
        }
      }
    } finally {
      connection.release();
    }
  }

  // Carts: the service's statements (carts.service.ts) for a customer's cart or an anonymous one with its token.
  const CART_COLUMNS =
    'id, user_id, token_hash, status, email, shipping_address, shipping_option_id, region_id, created_at, updated_at';
  // A line's product, or its variant and the variant's product: live price, stock and whether it is for sale
  // (a product sold in variants only through one of them), as joinLiveProduct in product-catalog.ts.
  const liveJoin = (productId, variantId) => ({
    join:
      `LEFT JOIN product_variants lv ON lv.id = ${variantId} ` +
      `LEFT JOIN products lp ON lp.id = COALESCE(lv.product_id, ${productId})`,
    columns:
      'lp.id AS product_id, lp.name AS product_name, lv.sku AS sku, lv.title AS variant_title, ' +
      'COALESCE(lv.price_cents, lp.price_cents) AS price_cents, ' +
      'CASE WHEN lv.id IS NULL THEN lp.prices ELSE lv.prices END AS prices, lp.tax_class AS tax_class, ' +
      'COALESCE(lv.stock, lp.stock) AS stock, ' +
      'CASE WHEN lp.is_active = 1 AND lp.deleted_at IS NULL AND (CASE WHEN lv.id IS NULL THEN ' +
      'NOT EXISTS (SELECT 1 FROM product_variants av WHERE av.product_id = lp.id AND av.is_active = 1 ' +
      'AND av.deleted_at IS NULL) ELSE lv.is_active = 1 AND lv.deleted_at IS NULL END) THEN 1 ELSE 0 END AS for_sale',
  });
  const lineJoin = liveJoin('ci.product_id', 'ci.variant_id');
  const LINES_OF_CART =
    'SELECT ci.id, ci.product_id AS line_product_id, ci.variant_id, ci.quantity, ci.added_price_cents, ' +
    `${lineJoin.columns} FROM cart_items ci ${lineJoin.join} WHERE ci.cart_id = ? ORDER BY ci.id`;
  const liveOne = liveJoin('?', '?');
  const LIVE_PRODUCT =
    `SELECT ${liveOne.columns}, lv.product_id AS variant_product_id ` +
    `FROM (SELECT 1 AS one) x ${liveOne.join}`;

  /** The cart when the caller may use it, otherwise 404 (no such cart, a wrong token, someone else's). */
  async function accessibleCart(db, user, token, id) {
    const [rows] = UUID.test(id)
      ? await db.query(`SELECT ${CART_COLUMNS} FROM carts WHERE id = ?`, [id])
      : [[]];
    const cart = rows[0];
    const hash = token === undefined ? null : createHash('sha256').update(token).digest('hex');
    const allowed =
      cart !== undefined &&
      (cart.user_id === null ? hash !== null && cart.token_hash === hash : user?.id === cart.user_id);
    if (!allowed) throw new HttpError(404, `Cart ${id} not found`);
    return cart;
  }

  async function linesOf(db, cartId) {
    const [rows] = await db.query(LINES_OF_CART, [cartId]);
    return rows.map((row) => {
      const forSale = Number(row.for_sale) === 1;
      return {
        id: row.id,
        productId: row.line_product_id,
        variantId: row.variant_id,
        sku: row.sku,
        variantTitle: row.variant_title,
        quantity: row.quantity,
        addedPriceCents: row.added_price_cents,
        name: row.product_name,
        priceCents: row.price_cents,
        prices: row.prices,
        taxClass: row.tax_class ?? 'standard',
        available: forSale ? row.stock : 0,
        forSale,
      };
    });
  }

  function problemsOf(line, unitPrice, region) {
    if (!line.forSale) return [{ code: 'unavailable', message: 'The product is no longer for sale' }];
    const currency = region.currency;
    if (unitPrice === null) {
      return [
        {
          code: 'no_price',
          message: `The product has no price in ${currency.toUpperCase()}, the currency of region ${region.name}`,
        },
      ];
    }
    const problems = [];
    if (unitPrice !== line.addedPriceCents) {
      problems.push({
        code: 'price_changed',
        message: `The price changed from ${fromMinor(line.addedPriceCents, currency)} to ${fromMinor(unitPrice, currency)}`,
      });
    }
    if (line.available < line.quantity) {
      problems.push({
        code: 'insufficient_stock',
        message: `Only ${line.available} left; the line asks for ${line.quantity}`,
      });
    }
    return problems;
  }

  /** The cart's shipping option while it is active and ships to the cart's address; otherwise null. */
  async function shippingOf(db, cart) {
    if (cart.shipping_option_id === null || cart.shipping_address === null) return null;
    const [rows] = await db.query(
      'SELECT id, name, price_cents, countries FROM shipping_options ' +
        'WHERE id = ? AND is_active = 1 AND deleted_at IS NULL LIMIT 1',
      [cart.shipping_option_id],
    );
    const countries = rows.length === 0 ? [] : JSON.parse(rows[0].countries);
    const { country } = JSON.parse(cart.shipping_address);
    return rows.length === 0 || (countries.length > 0 && !countries.includes(country))
      ? null
      : { id: rows[0].id, name: rows[0].name, price: rows[0].price_cents / 100 };
  }

  const NOT_PRICED = { discount_total: 0, tax_total: 0, total: 0, tax_lines: [], adjustments: [] };

  /**
   * The cart priced in its region for its address, as the service reads and shows it: the lines' prices with
   * the price lists applied (one lookup), the promotions, the gift cards' balance, the taxes, the calculator,
   * then the cards with what each pays.
   */
  async function toCart(db, cart, region, lines, option) {
    if (option !== null) throw new Error('The benchmark baseline prices carts without shipping only');
    const currency = region.currency;
    const money = (amount) => fromMinor(amount, currency);
    const address = cart.shipping_address === null ? null : JSON.parse(cart.shipping_address);
    const bases = new Map(
      lines.map((line) => [
        line.id,
        line.forSale ? unitPriceIn(currency, config.currency, line.priceCents, line.prices) : null,
      ]),
    );
    const keyOf = (line) => ({ productId: line.productId, variantId: line.variantId });
    if (lines.some((line) => line.variantId !== null)) {
      throw new Error('The benchmark baseline prices carts without variants only');
    }
    const lists = await listPricesOf(
      db,
      currency,
      cart.user_id,
      new Date(),
      lines.filter((line) => bases.get(line.id) !== null).map((line) => line.productId),
    );
    const unitPrices = new Map(lines.map((line) => [line.id, lists.of(keyOf(line), bases.get(line.id))]));
    const document = await priceLines(
      db,
      region,
      address === null ? null : { country: address.country, subdivision: subdivisionOf(address.region) },
      lines.flatMap((line) => {
        const listed = unitPrices.get(line.id);
        return listed === null
          ? []
          : [
              {
                id: line.id,
                productId: line.productId,
                price: listed.price,
                quantity: line.quantity,
                taxClass: line.taxClass,
              },
            ];
      }),
      cart.id,
    );
    const cards = await cardsOfCart(db, cart.id);
    const paid = allocate(cards, document.giftCardTotal, currency, new Date());
    const priced = new Map(document.lines.map((amounts) => [amounts.id, amounts]));
    return {
      id: cart.id,
      status: cart.status,
      items: lines.map((line) => {
        const listed = unitPrices.get(line.id);
        const unitPrice = listed?.price ?? null;
        const amounts = priced.get(line.id);
        return {
          id: line.id,
          product_id: line.productId,
          product_name: line.name,
          variant_id: line.variantId,
          sku: line.sku,
          variant_title: line.variantTitle,
          quantity: line.quantity,
          price: unitPrice === null ? null : money(unitPrice),
          original_price: listed === null ? null : money(listed.originalPrice),
          added_price: money(line.addedPriceCents),
          line_total: amounts === undefined ? 0 : money(amounts.lineTotal),
          ...(amounts === undefined
            ? NOT_PRICED
            : {
                discount_total: money(amounts.discountTotal),
                tax_total: money(amounts.taxTotal),
                total: money(amounts.total),
                tax_lines: amounts.taxLines.map((tax) => taxLineResponse(tax, currency)),
                adjustments: amounts.adjustments.map((adjustment) =>
                  adjustmentResponse(adjustment, currency),
                ),
              }),
          available: line.available,
          problems: problemsOf(line, unitPrice, region),
        };
      }),
      gift_cards: cards.map((card, i) => ({
        id: card.id,
        code_last4: card.codeLast4,
        balance: fromMinor(card.balance, card.currency),
        amount: money(paid[i]),
      })),
      ...documentTotals(document, region.id),
      shipping_option: null,
      shipping_tax_lines: [],
      shipping_adjustments: [],
      // By promotion id, as the service lists them.
      discounts: [...document.discounts]
        .sort((a, b) => a.promotionId - b.promotionId)
        .map((discount) => ({
          promotion_id: discount.promotionId,
          code: discount.code,
          description: discount.description,
          amount: money(discount.amount),
          applies: discount.applies,
          refusal: discount.refusal,
        })),
      shipping_address: address,
      email: cart.email,
      created_at: cart.created_at.toISOString(),
      updated_at: cart.updated_at.toISOString(),
    };
  }

  async function readCart(user, token, id) {
    const cart = await accessibleCart(pool, user, token, id);
    const region = (await regionOf(pool, cart.region_id)) ?? (await regionOf(pool, null));
    const lines = await linesOf(pool, id);
    return toCart(pool, cart, region, lines, await shippingOf(pool, cart));
  }

  async function getCart(user, token, id) {
    return { status: 200, body: envelope(200, await readCart(user, token, id)) };
  }

  /** One transaction: the cart, its row locked by the touch, its lines, the product's live state, the line. */
  async function addCartItem(user, token, id, body) {
    if (!isObject(body)) throw badRequest('quantity must be an integer number');
    refuseUnknown(body, ['product_id', 'variant_id', 'quantity']);
    const productId =
      body.product_id === undefined ? null : bodyInteger(body, 'product_id', 'product_id', 1, INT_MAX);
    const variantId =
      body.variant_id === undefined ? null : bodyInteger(body, 'variant_id', 'variant_id', 1, INT_MAX);
    const added = bodyInteger(body, 'quantity', 'quantity', 1, MAX_QUANTITY);
    const connection = await pool.getConnection();
    try {
      for (let attempt = 1; ; attempt++) {
        await connection.query('START TRANSACTION');
        try {
          await accessibleCart(connection, user, token, id);
          const now = new Date();
          const [touched] = await connection.query(
            "UPDATE carts SET updated_at = ? WHERE id = ? AND status = 'open'",
            [sqlDatetime(now), id],
          );
          if (touched.affectedRows === 0) throw badRequest(`Cart ${id} is completed: start a new cart`);
          const lines = await linesOf(connection, id);
          // The cart again, under the row lock the touch took.
          const [[locked]] = await connection.query(
            `SELECT ${CART_COLUMNS.replace('token_hash, ', '')} FROM carts WHERE id = ? LIMIT 1`,
            [id],
          );
          if (productId === null && variantId === null)
            throw badRequest('product_id or variant_id is required');
          const [[live]] = await connection.query(LIVE_PRODUCT, [variantId, productId]);
          const what = variantId === null ? `product ${productId}` : `variant ${variantId}`;
          if (variantId !== null && live.variant_product_id === null) {
            throw badRequest(`${what} does not exist or is not for sale`);
          }
          if (productId !== null && live.product_id !== null && live.product_id !== productId) {
            throw badRequest(`variant ${variantId} is not of product ${productId}`);
          }
          if (live.product_id === null || Number(live.for_sale) !== 1) {
            throw badRequest(`${what} does not exist or is not for sale`);
          }
          // The price as added: the cart's currency's (0 when it has none there).
          const region = (await regionOf(connection, locked.region_id)) ?? (await regionOf(connection, null));
          if (variantId !== null)
            throw new Error('The benchmark baseline adds products without variants only');
          const lists = await listPricesOf(connection, region.currency, locked.user_id, new Date(), [
            live.product_id,
          ]);
          // A price list's price when one applies (0 when it has none in the cart's currency).
          const addedPriceCents =
            lists.of(
              { productId: live.product_id, variantId },
              unitPriceIn(region.currency, config.currency, live.price_cents, live.prices),
            )?.price ?? 0;
          const existing = lines.find(
            (line) => line.productId === live.product_id && line.variantId === variantId,
          );
          const quantity = (existing?.quantity ?? 0) + added;
          if (quantity > MAX_QUANTITY) throw badRequest(`a line holds at most ${MAX_QUANTITY} units`);
          if (quantity > live.stock) {
            throw badRequest(`only ${live.stock} in stock; the line would hold ${quantity}`);
          }
          if (existing === undefined) {
            if (lines.length >= MAX_CART_LINES)
              throw badRequest(`a cart holds at most ${MAX_CART_LINES} lines`);
            await connection.query(
              'INSERT INTO cart_items (cart_id, product_id, variant_id, quantity, added_price_cents, created_at, ' +
                'updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
              [id, live.product_id, variantId, quantity, addedPriceCents, now, now],
            );
          } else {
            await connection.query(
              'UPDATE cart_items SET quantity = ?, added_price_cents = ?, updated_at = ? WHERE id = ?',
              [quantity, addedPriceCents, new Date(), existing.id],
            );
          }
          await connection.query('COMMIT');
          break;
        } catch (error) {
          await connection.query('ROLLBACK');
          if (!isTransientLockError(error) || attempt === 5) throw error;
          await sleep(5 + Math.random() * 20 * attempt);
        }
      }
    } finally {
      connection.release();
    }
    return { status: 201, body: envelope(201, await readCart(user, token, id)) };
  }

  async function login(body) {
    if (!isObject(body)) throw badRequest('username must be a string');
    refuseUnknown(body, ['username', 'password']);
    const username = bodyString(body, 'username', 1, 254);
    const password = bodyString(body, 'password', 1, 128);
    const [rows] = await pool.query(
      'SELECT id, username, email, first_name, last_name, phone, address, role, is_active, email_verified, ' +
        'created_at, updated_at, password_hash FROM users WHERE username = ? AND deleted_at IS NULL',
      [username],
    );
    const user = rows[0];
    // The same answer (and about the same time) whether the user is unknown or the password wrong.
    const ok = await argon2.verify(user?.password_hash ?? (await decoyHash), password);
    if (!ok || user === undefined) throw unauthorized(BAD_CREDENTIALS);
    if (!user.is_active) throw unauthorized('Account is deactivated');
    const now = new Date();
    const sessionId = randomUUID();
    const secret = randomBytes(32).toString('base64url');
    await pool.query(
      'INSERT INTO sessions (id, user_id, refresh_token_hash, created_at, last_used_at, expires_at, user_agent, ip) ' +
        'VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      [
        sessionId,
        user.id,
        createHash('sha256').update(secret).digest('hex'),
        now,
        now,
        new Date(now.getTime() + config.refreshTtlSeconds * 1000),
        '',
        '',
      ],
    );
    const token = jwt.sign(
      { sub: String(user.id), sid: sessionId, username: user.username, role: user.role },
      config.jwtKey,
      {
        algorithm: 'HS256',
        expiresIn: config.jwtExpiresIn,
      },
    );
    const data = {
      token,
      expires_in: config.jwtExpiresIn,
      refresh_token: `${sessionId}.${secret}`,
      refresh_expires_in: config.refreshTtlSeconds,
      user: {
        id: user.id,
        username: user.username,
        email: user.email,
        first_name: user.first_name,
        last_name: user.last_name,
        is_active: Boolean(user.is_active),
        email_verified: Boolean(user.email_verified),
        role: user.role,
        created_at: user.created_at.toISOString(),
        updated_at: user.updated_at.toISOString(),
      },
    };
    return { status: 200, body: envelope(200, data) };
  }

  async function health() {
    await pool.query('SELECT 1');
    return { status: 200, body: envelope(200, { status: 'ok', database: 'up' }) };
  }

  return {
    authenticate,
    authenticateOptional,
    getProduct,
    listProducts,
    createOrder,
    getCart,
    addCartItem,
    login,
    health,
  };
}
