// Bare baseline on node:http: the limit. Same SQL, JWT check, envelope, headers and argon2 parameters as the
// service (see common.mjs), with a hand-written router and body reader.
import { createServer } from 'node:http';
import { URLSearchParams } from 'node:url';
import {
  createHandlers,
  createPool,
  errorEnvelope,
  helmetHeaders,
  HttpError,
  loadConfig,
  requestId,
} from './common.mjs';

const config = loadConfig();
const pool = createPool(config);
const handlers = createHandlers(config, pool);
const securityHeaders = helmetHeaders();
const BODY_LIMIT = 100 * 1024;
const PREFIX = '/api/v1';

function readJson(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    request.on('data', (chunk) => {
      size += chunk.length;
      if (size > BODY_LIMIT) reject(new HttpError(400, `Request body is larger than ${BODY_LIMIT} bytes`));
      else chunks.push(chunk);
    });
    request.on('end', () => {
      if (chunks.length === 0) return resolve({});
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(error);
      }
    });
    request.on('error', reject);
  });
}

async function route(request) {
  const url = request.url;
  const queryStart = url.indexOf('?');
  const path = queryStart === -1 ? url : url.slice(0, queryStart);
  if (!path.startsWith(PREFIX)) throw new HttpError(404, `Cannot ${request.method} ${path}`);
  const rest = path.slice(PREFIX.length);
  const method = request.method;
  if (method === 'GET' && rest === '/health') return handlers.health();
  if (method === 'POST' && rest === '/login') return handlers.login(await readJson(request));
  if (method === 'GET' && rest === '/products') {
    const user = await handlers.authenticate(request.headers.authorization);
    const query = Object.fromEntries(new URLSearchParams(queryStart === -1 ? '' : url.slice(queryStart + 1)));
    return handlers.listProducts(user, query);
  }
  if (method === 'GET' && rest.startsWith('/products/') && rest.indexOf('/', 10) === -1) {
    const user = await handlers.authenticate(request.headers.authorization);
    return handlers.getProduct(user, decodeURIComponent(rest.slice(10)));
  }
  if (method === 'POST' && rest === '/orders') {
    const user = await handlers.authenticate(request.headers.authorization);
    return handlers.createOrder(user, await readJson(request));
  }
  const cart = /^\/carts\/([^/]+)(\/items)?$/.exec(rest);
  if (
    cart !== null &&
    (method === 'GET' ? cart[2] === undefined : method === 'POST' && cart[2] !== undefined)
  ) {
    const user = await handlers.authenticateOptional(request.headers.authorization);
    const id = decodeURIComponent(cart[1]);
    const token = request.headers['x-cart-token'];
    return method === 'GET'
      ? handlers.getCart(user, token, id)
      : handlers.addCartItem(user, token, id, await readJson(request));
  }
  throw new HttpError(404, `Cannot ${method} ${path}`);
}

function send(response, status, body) {
  const json = JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(json),
  });
  response.end(json);
}

const server = createServer((request, response) => {
  const id = requestId(request.headers['x-request-id']);
  response.setHeader('X-Request-Id', id);
  for (const [name, value] of securityHeaders) response.setHeader(name, value);
  route(request).then(
    (result) => send(response, result.status, result.body),
    (error) => {
      const body = errorEnvelope(error);
      send(response, body.code, body);
    },
  );
});

server.listen(config.port, () => console.log(`node:http baseline listening on ${config.port}`));
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
