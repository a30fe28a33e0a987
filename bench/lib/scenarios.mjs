// The load scenarios: what each request looks like. Every request picks its user, product, page or category at
// random, so that caches see a realistic spread; the same generators drive the service and both baselines.
import { BENCH_PASSWORD, DATA_SET, HOT_PRODUCT_ID } from './seed.mjs';

const JSON_HEADERS = { 'content-type': 'application/json' };
const randomInt = (min, max) => min + Math.floor(Math.random() * (max - min + 1));

/** Request builders over the seeded data; `tokens[i]` is a bearer token of user i + 1. */
export function requestBuilders(tokens) {
  const auth = () => ({ authorization: `Bearer ${tokens[randomInt(0, tokens.length - 1)]}` });
  return {
    read: (req) => {
      req.method = 'GET';
      req.path = `/api/v1/products/${randomInt(1, DATA_SET.products)}`;
      req.headers = auth();
      req.body = undefined;
      return req;
    },
    list: (req) => {
      const pages = Math.ceil(DATA_SET.products / DATA_SET.categories / 20);
      req.method = 'GET';
      req.path = `/api/v1/products?page=${randomInt(1, pages)}&page_size=20&category_id=${randomInt(1, DATA_SET.categories)}`;
      req.headers = auth();
      req.body = undefined;
      return req;
    },
    order: (req) => {
      const items = new Map();
      const lines = randomInt(1, 3);
      // The hot product is left out: its stock belongs to the hot-product scenario.
      while (items.size < lines) items.set(randomInt(1, HOT_PRODUCT_ID - 1), randomInt(1, 3));
      req.method = 'POST';
      req.path = '/api/v1/orders';
      req.headers = { ...auth(), ...JSON_HEADERS };
      req.body = JSON.stringify({
        items: [...items].map(([product_id, quantity]) => ({ product_id, quantity })),
        shipping_address: '1 Benchmark Road, Springfield',
        payment_method: 'credit_card',
      });
      return req;
    },
    hotOrder: (req) => {
      req.method = 'POST';
      req.path = '/api/v1/orders';
      req.headers = { ...auth(), ...JSON_HEADERS };
      req.body = JSON.stringify({
        items: [{ product_id: HOT_PRODUCT_ID, quantity: 1 }],
        shipping_address: '1 Benchmark Road, Springfield',
        payment_method: 'credit_card',
      });
      return req;
    },
    login: (req) => {
      req.method = 'POST';
      req.path = '/api/v1/login';
      req.headers = { ...JSON_HEADERS };
      req.body = JSON.stringify({
        username: `user${String(randomInt(1, DATA_SET.users)).padStart(4, '0')}`,
        password: BENCH_PASSWORD,
      });
      return req;
    },
  };
}

/** Mixed load: 70 % product reads, 20 % lists, 9 % orders, 1 % logins. */
function mixed(builders) {
  return (req) => {
    const roll = Math.random() * 100;
    if (roll < 70) return builders.read(req);
    if (roll < 90) return builders.list(req);
    if (roll < 99) return builders.order(req);
    return builders.login(req);
  };
}

/**
 * The six scenarios. `target` is the least acceptable ratio app / Express baseline (requests per second);
 * `hot` scenarios run a fixed number of requests against a product with a known stock and are checked for
 * exactness instead.
 */
export function scenarios(tokens) {
  const builders = requestBuilders(tokens);
  return [
    { key: 'read', title: 'GET /products/{id}', target: 0.8, connections: 32, build: builders.read },
    {
      key: 'list',
      title: 'GET /products?page&page_size=20&category_id',
      target: 0.8,
      connections: 32,
      build: builders.list,
    },
    { key: 'order', title: 'POST /orders (1-3 items)', target: 0.8, connections: 32, build: builders.order },
    {
      key: 'hot',
      title: 'POST /orders on one hot product',
      target: null,
      connections: 32,
      build: builders.hotOrder,
      hot: true,
    },
    { key: 'login', title: 'POST /login (argon2id)', target: 0.95, connections: 8, build: builders.login },
    {
      key: 'mixed',
      title: 'Mixed 70/20/9/1 read/list/order/login',
      target: null,
      connections: 32,
      build: mixed(builders),
    },
  ];
}
