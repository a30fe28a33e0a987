// Bare baseline on plain Express: the peer a team would otherwise write by hand. Same SQL, JWT check,
// envelope, headers and argon2 parameters as the service (see common.mjs); no framework beyond Express.
import express from 'express';
import helmet from 'helmet';
import { createHandlers, createPool, errorEnvelope, HttpError, loadConfig, requestId } from './common.mjs';

const config = loadConfig();
const pool = createPool(config);
const handlers = createHandlers(config, pool);

const app = express();
app.set('x-powered-by', false);
// As the service: no 304, which is outside the API's code set.
app.set('etag', false);
Object.defineProperty(app.request, 'fresh', { get: () => false });
app.use((request, response, next) => {
  request.id = requestId(request.headers['x-request-id']);
  response.setHeader('X-Request-Id', request.id);
  next();
});
app.use(helmet());
app.use(express.json());

const authenticated = (request, _response, next) => {
  handlers.authenticate(request.headers.authorization).then((user) => {
    request.user = user;
    next();
  }, next);
};

const optionallyAuthenticated = (request, _response, next) => {
  handlers.authenticateOptional(request.headers.authorization).then((user) => {
    request.user = user;
    next();
  }, next);
};

const send = (response, result) => response.status(result.status).json(result.body);

const router = express.Router();
router.get('/health', async (_request, response) => send(response, await handlers.health()));
router.post('/login', async (request, response) => send(response, await handlers.login(request.body)));
router.get('/products', authenticated, async (request, response) =>
  send(response, await handlers.listProducts(request.user, request.query)),
);
router.get('/products/:id', authenticated, async (request, response) =>
  send(response, await handlers.getProduct(request.user, request.params.id)),
);
router.post('/orders', authenticated, async (request, response) =>
  send(response, await handlers.createOrder(request.user, request.body)),
);
router.get('/carts/:id', optionallyAuthenticated, async (request, response) =>
  send(response, await handlers.getCart(request.user, request.headers['x-cart-token'], request.params.id)),
);
router.post('/carts/:id/items', optionallyAuthenticated, async (request, response) =>
  send(
    response,
    await handlers.addCartItem(
      request.user,
      request.headers['x-cart-token'],
      request.params.id,
      request.body,
    ),
  ),
);
app.use('/api/v1', router);

app.use((request, _response, next) => next(new HttpError(404, `Cannot ${request.method} ${request.path}`)));
app.use((error, _request, response, _next) => {
  const body = errorEnvelope(error);
  response.status(body.code).json(body);
});

const server = app.listen(config.port, () => console.log(`express baseline listening on ${config.port}`));
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
