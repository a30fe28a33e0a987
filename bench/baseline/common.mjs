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
    paymentMethods: (env.PAYMENT_METHODS ?? DEFAULT_PAYMENT_METHODS).split(',').map((m) => m.trim()),
    maxPendingPerUser: Number(env.ORDER_MAX_PENDING_PER_USER ?? 20),
  };
}

/**
 * The same pool options as the service's TypeORM driver: utf8mb4, UTC, numbers for BIGINT, no stack capture
 * per query (`trace: false`), the same size.
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
  'id, name, description, price_cents, stock, category_id, image, slug, is_active, created_at, updated_at';
/** A product read with its images, one row per image, as the service reads it (product-statements.ts). */
const productWithImages = (where) =>
  `SELECT ${PRODUCT_COLUMNS.replace(/(\w+)/g, 'p.$1')}, i.path AS image_path, i.alt AS image_alt, ` +
  'i.position AS image_position FROM products p LEFT JOIN product_images i ON i.product_id = p.id ' +
  `WHERE ${where} AND p.deleted_at IS NULL`;
const MAX_ITEMS = 100;
const MAX_QUANTITY = 1000;
const ORDER_NUMBER_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const BAD_CREDENTIALS = 'Invalid username or password';
const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

function toProduct(row, images = []) {
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
    return { status: 200, body: envelope(200, toProduct(rows[0], images)) };
  }

  let minTokenSize;
  /** List totals per filter: { generation, total, countedAt }, least recently used first. */
  const totals = new Map();
  const TOTALS_TTL_MS = 60_000;

  /** The service's search condition on MySQL (product-list.query.ts): MATCH for indexed words, REGEXP for short ones. */
  async function searchSql(search, where, params) {
    const words = search.match(/[\p{L}\p{M}\p{N}_]+/gu) ?? [];
    if (words.length === 0) {
      where.push('1 = 0');
      return { score: '0', scoreParams: [] };
    }
    minTokenSize ??= pool
      .query('SELECT @@innodb_ft_min_token_size AS size')
      .then(([rows]) => Number(rows[0].size));
    const min = await minTokenSize;
    const terms = [];
    words.forEach((word, i) => {
      const last = i === words.length - 1;
      if ([...word].length >= min) {
        terms.push(`+${word}${last ? '*' : ''}`);
      } else {
        where.push(`CONCAT(p.name, ' ', p.description) REGEXP ?`);
        params.push(`\\b${word}${last ? '' : '\\b'}`);
      }
    });
    if (terms.length === 0) return { score: '0', scoreParams: [] };
    const match = 'MATCH (p.name, p.description) AGAINST (? IN BOOLEAN MODE)';
    where.unshift(match);
    params.unshift(terms.join(' '));
    return { score: match, scoreParams: [terms.join(' ')] };
  }

  /**
   * page, page_size, category_id, search (relevance order) and cursor (id order): the list parameters the
   * benchmark uses, with the service's SQL.
   */
  async function listProducts(user, query) {
    refuseUnknown(query, ['page', 'page_size', 'category_id', 'search', 'cursor']);
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
    const { score, scoreParams } = searching
      ? await searchSql(query.search, where, params)
      : { score: '0', scoreParams: [] };
    const filter = where.join(' AND ');
    const keyset = after === undefined ? '' : ' AND p.id > ?';
    const offset = after === undefined ? (page - 1) * pageSize : 0;
    const order = sort === 'relevance' ? 'score DESC, p.id ASC' : 'p.id ASC';
    // A search by page counts its matches in the page's statement, as the service does on MySQL.
    const countMatches = searching && after === undefined;
    // Deferred join, as the service: the page's ids from the index, then those rows only.
    const [rows] = await pool.query(
      `SELECT ${PRODUCT_COLUMNS.replace(/(\w+)/g, 'p.$1')}${countMatches ? ', page.matched' : ''} FROM products p INNER JOIN (` +
        `SELECT p.id AS id, ${score} AS score${countMatches ? ', COUNT(*) OVER () AS matched' : ''} FROM products p WHERE ${filter}${keyset} ` +
        `ORDER BY ${order} LIMIT ? OFFSET ?) page ON page.id = p.id ` +
        `ORDER BY ${sort === 'relevance' ? 'page.score DESC, p.id ASC' : order}`,
      [...scoreParams, ...params, ...(after === undefined ? [] : [after]), pageSize + 1, offset],
    );
    const more = rows.length > pageSize;
    if (more) rows.pop();
    // The count only when it cannot be told from the page (as the service decides), and as the service keeps
    // it (product-list-totals.ts): per filter, under the catalogue generation read before counting.
    let total = offset + rows.length;
    if (after !== undefined || more || (rows.length === 0 && offset > 0)) {
      if (countMatches && rows.length > 0) {
        total = Number(rows[0].matched);
      } else {
        const [[{ generation }]] = await pool.query('SELECT generation FROM catalog_state WHERE id = 1');
        const key = JSON.stringify([filter, params]);
        const known = totals.get(key);
        totals.delete(key);
        if (known?.generation === Number(generation) && Date.now() - known.countedAt < TOTALS_TTL_MS) {
          total = known.total;
          totals.set(key, known);
        } else {
          const [counted] = await pool.query(`SELECT COUNT(*) AS n FROM products p WHERE ${filter}`, params);
          total = Number(counted[0].n);
          totals.set(key, { generation: Number(generation), total, countedAt: Date.now() });
          if (totals.size > 10_000) totals.delete(totals.keys().next().value);
        }
      }
    }
    const nextCursor =
      more && sort === 'id'
        ? Buffer.from(JSON.stringify({ s: 'id', i: rows.at(-1).id })).toString('base64url')
        : null;
    const meta = {
      page: after === undefined ? page : null,
      page_size: pageSize,
      total,
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
    const products = rows.map((row) => toProduct(row, images.get(row.id) ?? []));
    return { status: 200, body: envelope(200, products, meta) };
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

  /** One transaction: conditional stock UPDATE per product in id order, SELECT name/price, INSERT order and items. */
  async function placeOrder(connection, user, order) {
    const { items } = order;
    await connection.query('START TRANSACTION');
    try {
      const now = new Date();
      for (const { productId, quantity } of items) {
        const [result] = await connection.query(
          'UPDATE products SET stock = stock - ?, updated_at = ? ' +
            'WHERE id = ? AND stock >= ? AND is_active IS TRUE AND deleted_at IS NULL',
          [quantity, now, productId, quantity],
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
        'SELECT id, name, price_cents FROM products WHERE id IN (?) AND deleted_at IS NULL',
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
      const created = {
        orderNumber: newOrderNumber(now),
        totalCents: items.reduce(
          (sum, item) => sum + byId.get(item.productId).price_cents * item.quantity,
          0,
        ),
        createdAt: now,
      };
      const [inserted] = await connection.query(
        'INSERT INTO orders (order_number, user_id, total_cents, status, payment_status, shipping_address, ' +
          'payment_method, idempotency_key, request_hash, created_at, updated_at) ' +
          'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [
          created.orderNumber,
          user.id,
          created.totalCents,
          'pending',
          'pending',
          order.shippingAddress,
          order.paymentMethod,
          null,
          null,
          now,
          now,
        ],
      );
      created.id = inserted.insertId;
      await connection.query(
        'INSERT INTO order_items (order_id, product_id, product_name, unit_price_cents, quantity) VALUES ?',
        [
          items.map((item) => [
            created.id,
            item.productId,
            byId.get(item.productId).name,
            byId.get(item.productId).price_cents,
            item.quantity,
          ]),
        ],
      );
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
          // The owner of the order event the service announces after the commit.
          await connection.query('SELECT id, username, email FROM users WHERE id = ?', [user.id]);
          const data = {
            id: created.id,
            order_number: created.orderNumber,
            total_amount: created.totalCents / 100,
            status: 'pending',
            shipping_address: order.shippingAddress,
            payment_method: order.paymentMethod,
            payment_status: 'pending',
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

  async function login(body) {
    if (!isObject(body)) throw badRequest('username must be a string');
    refuseUnknown(body, ['username', 'password']);
    const username = bodyString(body, 'username', 1, 254);
    const password = bodyString(body, 'password', 1, 128);
    const [rows] = await pool.query(
      'SELECT id, username, email, first_name, last_name, phone, address, role, is_active, created_at, ' +
        'updated_at, password_hash FROM users WHERE username = ? AND deleted_at IS NULL',
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

  return { authenticate, getProduct, listProducts, createOrder, login, health };
}
