import { ConsoleLogger, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { WsAdapter } from '@nestjs/platform-ws';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import express from 'express';
import helmet from 'helmet';
import type { Server } from 'node:http';
import { mountAdminConsole } from './admin-console/admin-console.js';
import { AppModule } from './app.module.js';
import { CookieSessions } from './auth/cookie-sessions.js';
import { checkJsonBody } from './common/json-body.js';
import { addOpenApiComponents } from './common/openapi.js';
import { parseQuery } from './common/query-parser.js';
import { EXPOSED_HEADERS, RateLimiter } from './common/rate-limit.js';
import { requestIdMiddleware } from './common/request-id.middleware.js';
import type { AppConfig, LogLevelName } from './config/app-config.js';
import { installHttpMetrics } from './observability/http-metrics.js';
import { TraceContextLogger } from './observability/trace-context-logger.js';

export const API_PREFIX = 'api/v1';

const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];

function enabledLevels(level: LogLevelName): LogLevel[] {
  return level === 'silent' ? [] : LEVELS.slice(0, LEVELS.indexOf(level) + 1);
}

export function createLogger(config: AppConfig): ConsoleLogger {
  const options = { json: true, colors: false, logLevels: enabledLevels(config.logLevel) };
  return config.otlpEndpoint === null ? new ConsoleLogger(options) : new TraceContextLogger(options);
}

function buildOpenApiDocument(app: NestExpressApplication, config: AppConfig) {
  const options = new DocumentBuilder()
    .setTitle('Commerce service API')
    .setDescription(
      'Accounts, catalogue, orders, upload and a WebSocket channel. Every JSON response is the envelope ' +
        '`{code, message, data, meta}`; the HTTP status equals `code`. Errors carry `data.details`; a 400 also ' +
        'lists every problem in `data.errors` as `{field, rule, message}`. Browsers may use a cookie session ' +
        'instead of bearer tokens: `X-Session: cookie` on login, registration, refresh and the guest flows puts ' +
        'the secrets in HttpOnly cookies, and every unsafe call authenticated by a cookie sends `X-CSRF-Token` ' +
        '(`GET /auth/csrf`); docs/api.md#cookie-sessions.',
    )
    .setVersion('1.0.0')
    .addServer('/')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
    .addTag('health', 'Liveness')
    .addTag('auth', 'Registration and login')
    .addTag('upload', 'Files: upload and fetch')
    .addTag('users', 'Accounts')
    .addTag('products', 'Catalogue')
    .addTag('orders', 'Orders and their lifecycle')
    .addTag('admin', 'Back office')
    .build();
  const document = addOpenApiComponents(SwaggerModule.createDocument(app, options));
  // PAYMENT_METHODS is a setting, so its enum is filled in here rather than in a decorator.
  const schemas = document.components?.schemas as Record<string, { properties: Record<string, object> }>;
  schemas.CreateOrderDto.properties.payment_method = {
    ...schemas.CreateOrderDto.properties.payment_method,
    enum: config.paymentMethods,
  };
  schemas.PaymentMethodsResponseDto.properties.payment_methods = {
    type: 'array',
    items: { type: 'string', enum: config.paymentMethods },
  };
  return document;
}

/**
 * Node's defaults (keep-alive 5 s, headers 60 s, whole request 300 s, checked every 30 s) are replaced
 * deliberately; docs/operations.md#timeouts explains each value.
 */
function configureHttpServer(server: Server, http: AppConfig['http']): void {
  // Longer than a load balancer's idle timeout (60 s on most), so that the balancer, not this server,
  // closes idle connections: otherwise it may send a request on a connection being closed here.
  server.keepAliveTimeout = http.keepAliveTimeoutMs;
  server.headersTimeout = http.headersTimeoutMs;
  server.requestTimeout = http.requestTimeoutMs;
  // How often the two limits above are enforced (read when the server starts listening).
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = 1000;
}

/** Builds the whole HTTP application from a validated configuration; `main.ts` and the tests share it. */
export async function createApp(config: AppConfig): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.register(config), {
    logger: createLogger(config),
    // Parsers are mounted below, after the rate limit, so that a body that fails to parse still counts.
    bodyParser: false,
  });
  app.set('trust proxy', config.trustProxy);
  app.set('x-powered-by', false);
  app.set('query parser', parseQuery);
  // No 304: it is not in the API's code set and carries no envelope. Express answered one to a conditional
  // GET whose If-None-Match matched the ETag (which also cost a SHA-1 of every body) or was `*`.
  app.set('etag', false);
  Object.defineProperty(app.getHttpAdapter().getInstance().request, 'fresh', { get: () => false });
  installHttpMetrics(app, config.metricsPort);
  app.use(requestIdMiddleware(enabledLevels(config.logLevel).includes('log')));
  // The docs UI is served over plain HTTP in development: no upgrade of its assets to HTTPS.
  app.use(helmet({ contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } }));
  if (config.corsOrigins !== null) {
    app.enableCors({
      origin: config.corsOrigins === '*' ? '*' : config.corsOrigins,
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: config.corsMaxAgeSeconds,
      // Cookie sessions from the listed origins; `*` cannot carry credentials.
      credentials: config.corsOrigins !== '*',
    });
  }
  // Before the rate limit: a cookie's access token counts in its account's bucket like a bearer token.
  app.use(app.get(CookieSessions).middleware());
  app.use(app.get(RateLimiter).middleware());
  // Static files, so before the body parsers; outside the API prefix, so no envelope.
  mountAdminConsole(app, config.adminConsole);
  // Provider webhooks are verified over the exact bytes sent: read raw, so the JSON parser leaves them alone.
  app.use(`/${API_PREFIX}/payments/stripe/webhook`, express.raw({ type: () => true, limit: '1mb' }));
  app.use(express.json({ verify: checkJsonBody }));
  app.use(express.urlencoded({ extended: true }));
  app.setGlobalPrefix(API_PREFIX);
  // The realtime gateway reads raw frames itself; the adapter's own JSON dispatch is switched off.
  app.useWebSocketAdapter(new WsAdapter(app, { messageParser: () => undefined }));
  configureHttpServer(app.getHttpServer(), config.http);
  SwaggerModule.setup('api/docs', app, buildOpenApiDocument(app, config), {
    jsonDocumentUrl: 'api/docs-json',
  });
  return app;
}
