import { describe, expect, it } from '@jest/globals';
import { isAbsolute, resolve } from 'node:path';
import { ConfigError, loadConfig } from './app-config.js';

function problemsOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.host).toBe('0.0.0.0');
    expect(config.corsOrigins).toBeNull();
    expect(config.trustProxy).toBe(false);
    expect(config.logLevel).toBe('log');
    expect(config.database.type).toBe('sqlite');
    expect(config.database.type === 'sqlite' && config.database.path).toMatch(/data\/commerce\.sqlite$/);
    expect(config.jwt.expiresInSeconds).toBe(900);
    expect(config.jwt.generated).toBe(true);
    expect(config.sessions).toEqual({
      refreshTtlSeconds: 2592000,
      purgeIntervalSeconds: 3600,
      cacheTtlMs: 5000,
      loginMaxFailures: 5,
      loginFailureWindowSeconds: 900,
    });
    expect(config.throttle).toEqual({
      ttlMs: 60000,
      limit: 120,
      staffLimit: 600,
      authLimit: 10,
      filesLimit: 1200,
      mailLimit: 5,
      cartLimit: 20,
    });
    expect(config.carts).toEqual({ ttlSeconds: 30 * 86400, cleanupIntervalSeconds: 3600 });
    expect(config.pageSizeMax).toBe(100);
    expect(config.upload.maxBytes).toBe(5242880);
    expect(config.upload.allowedTypes).toEqual([
      'image/jpeg',
      'image/png',
      'image/gif',
      'image/webp',
      'application/pdf',
    ]);
    expect(config.redisUrl).toBeNull();
    expect(config.redisKeyPrefix).toBe('commerce:');
    expect(config.ws).toEqual({
      chat: 'everyone',
      messagesPerSecond: 10,
      rateWarnings: 3,
      heartbeatMs: 30000,
      upgradeLimit: 60,
      maxConnectionsPerUser: 5,
      maxConnectionsPerIp: 50,
      chatMessagesPerSecond: 25,
      maxBufferedBytes: 1048576,
    });
    expect(config.admin).toBeNull();
    expect(config.migrationsRun).toBe(true);
    expect(config.paymentMethods).toEqual([
      'credit_card',
      'debit_card',
      'paypal',
      'bank_transfer',
      'cash_on_delivery',
    ]);
  });

  it('applies the documented timeouts and shutdown bounds, refusing values out of range', () => {
    const config = loadConfig({});
    expect(config.databaseTimeouts).toEqual({ queryMs: 10000, acquireMs: 5000 });
    expect(config.http).toEqual({
      keepAliveTimeoutMs: 65000,
      headersTimeoutMs: 20000,
      requestTimeoutMs: 120000,
    });
    expect(config.shutdown).toEqual({ drainMs: 5000, timeoutMs: 20000 });
    expect(loadConfig({ SHUTDOWN_DRAIN_MS: '0' }).shutdown.drainMs).toBe(0);
    expect(problemsOf({ DATABASE_QUERY_TIMEOUT_MS: '10s' })).toContain(
      'DATABASE_QUERY_TIMEOUT_MS must be an integer from 100 to 3600000 (got "10s")',
    );
  });

  it('reads PAYMENT_METHODS as a list of simple names', () => {
    expect(loadConfig({ PAYMENT_METHODS: 'card, invoice' }).paymentMethods).toEqual(['card', 'invoice']);
    expect(problemsOf({ PAYMENT_METHODS: 'Credit Card' })).toContain(
      'PAYMENT_METHODS must be a comma-separated list',
    );
  });

  it('reads PAYMENT_PROVIDERS as method:provider pairs; stripe only with both Stripe secrets', () => {
    const stripe = { STRIPE_SECRET_KEY: 'sk_test_1', STRIPE_WEBHOOK_SECRET: 'whsec_1' };
    expect(loadConfig({}).payments).toEqual({
      providers: {},
      currency: 'usd',
      stripe: null,
      reconcileAfterSeconds: 900,
    });
    const config = loadConfig({
      ...stripe,
      PAYMENT_PROVIDERS: 'credit_card:stripe, bank_transfer:manual',
      STRIPE_API_URL: 'http://127.0.0.1:12111',
    });
    expect(config.payments.providers).toEqual({ credit_card: 'stripe', bank_transfer: 'manual' });
    expect(config.payments.stripe).toEqual({
      secretKey: 'sk_test_1',
      webhookSecret: 'whsec_1',
      apiUrl: 'http://127.0.0.1:12111',
    });
    expect(problemsOf({ PAYMENT_PROVIDERS: 'credit_card:stripe' })).toContain(
      'PAYMENT_PROVIDERS names the stripe provider, which needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET',
    );
    expect(problemsOf({ ...stripe, PAYMENT_PROVIDERS: 'bitcoin:stripe' })).toContain(
      '(got "bitcoin:stripe")',
    );
    expect(problemsOf({ PAYMENT_PROVIDERS: 'credit_card:paypal' })).toContain('(got "credit_card:paypal")');
    expect(problemsOf({ CURRENCY: 'USD' })).toContain('CURRENCY must be a three-letter ISO 4217 code');
  });

  it('reads TAX_PROVIDER: the rate table by default; stripe only with STRIPE_SECRET_KEY, and its tax codes', () => {
    expect(loadConfig({}).taxes).toEqual({
      provider: 'rates',
      timeoutMs: 5000,
      stripe: null,
      stripeTaxCodes: {},
    });
    // Stripe Tax needs no webhook secret: it is called, never calls back.
    const config = loadConfig({
      TAX_PROVIDER: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_1',
      STRIPE_API_URL: 'http://127.0.0.1:12111',
      TAX_PROVIDER_TIMEOUT_MS: '800',
      TAX_STRIPE_TAX_CODES: 'reduced:txcd_99999999, standard:txcd_10000000',
    });
    expect(config.taxes).toEqual({
      provider: 'stripe',
      timeoutMs: 800,
      stripe: { secretKey: 'sk_test_1', apiUrl: 'http://127.0.0.1:12111' },
      stripeTaxCodes: { reduced: 'txcd_99999999', standard: 'txcd_10000000' },
    });
    expect(problemsOf({ TAX_PROVIDER: 'stripe' })).toContain(
      'TAX_PROVIDER names the stripe provider, which needs STRIPE_SECRET_KEY',
    );
    expect(problemsOf({ TAX_PROVIDER: 'avalara' })).toContain(
      'TAX_PROVIDER must be one of rates, stripe (got "avalara")',
    );
    expect(problemsOf({ TAX_PROVIDER_TIMEOUT_MS: '10' })).toContain(
      'TAX_PROVIDER_TIMEOUT_MS must be an integer from 100 to 600000 (got "10")',
    );
    expect(problemsOf({ TAX_STRIPE_TAX_CODES: 'reduced:99999999' })).toContain(
      'TAX_STRIPE_TAX_CODES must be a comma-separated list of tax_class:tax_code pairs such as reduced:txcd_99999999 (got "reduced:99999999")',
    );
    expect(problemsOf({ TAX_STRIPE_TAX_CODES: 'Reduced__x:txcd_99999999' })).toContain(
      '(got "Reduced__x:txcd_99999999")',
    );
    expect(loadConfig({ TAX_STRIPE_TAX_CODES: 'zero-rated:txcd_00000000' }).taxes.stripeTaxCodes).toEqual({
      'zero-rated': 'txcd_00000000',
    });
    expect(problemsOf({ TAX_STRIPE_TAX_CODES: 'reduced:txcd_99999999,reduced:txcd_10000000' })).toContain(
      'TAX_STRIPE_TAX_CODES names the tax class reduced twice',
    );
    // The key is not used, so the rate table needs none.
    expect(loadConfig({ STRIPE_SECRET_KEY: 'sk_test_1' }).taxes.stripe).toBeNull();
  });

  it('runs half the pool of searches at once by default, and never the whole pool', () => {
    expect(loadConfig({}).search).toEqual({
      concurrency: 5,
      queue: 20,
      totalLimit: 10_000,
      rankLimit: 500,
      timeoutMs: 2_000,
      synonymsPollMs: 5_000,
      typos: true,
      language: 'english',
    });
    expect(loadConfig({ SEARCH_TYPOS: 'false', SEARCH_LANGUAGE: 'German' }).search).toMatchObject({
      typos: false,
      language: 'german',
    });
    expect(problemsOf({ SEARCH_LANGUAGE: 'klingon' })).toContain('SEARCH_LANGUAGE must be one of');
    expect(loadConfig({ DATABASE_POOL_SIZE: '1' }).search.concurrency).toBe(1);
    expect(
      loadConfig({ DATABASE_POOL_SIZE: '20', SEARCH_CONCURRENCY: '19', SEARCH_QUEUE: '0' }).search,
    ).toMatchObject({
      concurrency: 19,
      queue: 0,
    });
    expect(problemsOf({ SEARCH_CONCURRENCY: '10' })).toBe(
      'Invalid configuration: SEARCH_CONCURRENCY must be less than DATABASE_POOL_SIZE (10)',
    );
  });

  it("polls for other instances' synonym changes every SEARCH_SYNONYMS_POLL_MS, 10 ms to an hour", () => {
    expect(loadConfig({ SEARCH_SYNONYMS_POLL_MS: '250' }).search.synonymsPollMs).toBe(250);
    expect(problemsOf({ SEARCH_SYNONYMS_POLL_MS: '5' })).toBe(
      'Invalid configuration: SEARCH_SYNONYMS_POLL_MS must be an integer from 10 to 3600000 (got "5")',
    );
  });

  it('rejects a non-numeric PORT in one line naming the variable', () => {
    const message = problemsOf({ PORT: 'abc' });
    expect(message).toBe('Invalid configuration: PORT must be an integer from 0 to 65535 (got "abc")');
    expect(message).not.toContain('\n');
  });

  it('rejects a malformed DATABASE_URL', () => {
    expect(problemsOf({ DATABASE_URL: 'postgres://x@y/z' })).toContain(
      'DATABASE_URL scheme must be sqlite: or mysql:',
    );
    expect(problemsOf({ DATABASE_URL: 'not a url' })).toContain(
      'DATABASE_URL must be sqlite:PATH or mysql://',
    );
    expect(problemsOf({ DATABASE_URL: 'mysql://user@host' })).toContain(
      'DATABASE_URL must name a host and a database',
    );
  });

  it('requires JWT_SECRET in production and a strong one when given', () => {
    expect(problemsOf({ NODE_ENV: 'production' })).toContain(
      'JWT_SECRET is required when NODE_ENV=production',
    );
    expect(problemsOf({ JWT_SECRET: 'short' })).toContain('JWT_SECRET must be at least 32 characters long');
    const config = loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) });
    expect(config.jwt).toEqual({ secret: 'x'.repeat(32), generated: false, expiresInSeconds: 900 });
  });

  it('stores uploads on the local disk by default and in S3_BUCKET with UPLOAD_STORAGE=s3, which requires it', () => {
    const defaults = loadConfig({});
    expect(defaults.upload.storage).toBe('local');
    expect(defaults.s3).toEqual({ bucket: null, endpoint: null, region: 'us-east-1', forcePathStyle: false });
    expect(problemsOf({ UPLOAD_STORAGE: 's3' })).toContain('S3_BUCKET is required when UPLOAD_STORAGE=s3');
    expect(problemsOf({ UPLOAD_STORAGE: 'nfs' })).toContain('UPLOAD_STORAGE must be one of local, s3');
    expect(problemsOf({ UPLOAD_STORAGE: 's3', S3_BUCKET: 'Uploads_1' })).toContain(
      'S3_BUCKET must be an S3 bucket name',
    );
    expect(problemsOf({ S3_ENDPOINT: 'minio:9000' })).toContain(
      'S3_ENDPOINT must be an http:// or https:// URL',
    );
    const s3 = loadConfig({
      UPLOAD_STORAGE: 's3',
      S3_BUCKET: 'shop-uploads',
      S3_ENDPOINT: 'http://minio:9000',
      S3_REGION: 'eu-west-1',
      S3_FORCE_PATH_STYLE: 'true',
    });
    expect(s3.upload.storage).toBe('s3');
    expect(s3.s3).toEqual({
      bucket: 'shop-uploads',
      endpoint: 'http://minio:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
    });
  });

  it('lists every bad variable at once', () => {
    const message = problemsOf({ PORT: '70000', THROTTLE_LIMIT: '0', LOG_LEVEL: 'loud' });
    expect(message).toContain('PORT');
    expect(message).toContain('THROTTLE_LIMIT');
    expect(message).toContain('LOG_LEVEL must be one of');
  });

  it('parses the sqlite URL forms and mysql URLs', () => {
    const relative = loadConfig({ DATABASE_URL: 'sqlite:./tmp/a.sqlite' }).database;
    expect(relative.type === 'sqlite' && isAbsolute(relative.path)).toBe(true);
    expect(loadConfig({ DATABASE_URL: 'sqlite:///var/db/a.sqlite' }).database).toEqual({
      type: 'sqlite',
      path: '/var/db/a.sqlite',
    });
    expect(loadConfig({ DATABASE_URL: 'mysql://u:p@db.example:3307/shop' }).database).toEqual({
      type: 'mysql',
      url: 'mysql://u:p@db.example:3307/shop',
      host: 'db.example',
      port: 3307,
      database: 'shop',
    });
  });

  it('reads DATABASE_REPLICA_URLS and the replica settings, only beside a mysql:// DATABASE_URL', () => {
    expect(loadConfig({}).databaseReplicas).toEqual({
      urls: [],
      maxLagMs: 1000,
      checkIntervalMs: 1000,
      stickyMs: 2000,
    });
    const config = loadConfig({
      DATABASE_URL: 'mysql://u:p@primary:3306/shop',
      DATABASE_REPLICA_URLS: ' mysql://u:p@replica-a:3306/shop , mysql://u:p@replica-b/shop ',
      DATABASE_REPLICA_MAX_LAG_MS: '3000',
      DATABASE_REPLICA_CHECK_INTERVAL_MS: '500',
      DATABASE_REPLICA_STICKY_MS: '0',
    });
    expect(config.databaseReplicas).toEqual({
      urls: ['mysql://u:p@replica-a:3306/shop', 'mysql://u:p@replica-b/shop'],
      maxLagMs: 3000,
      checkIntervalMs: 500,
      stickyMs: 0,
    });
    expect(problemsOf({ DATABASE_REPLICA_URLS: 'mysql://u@replica:3306/shop' })).toContain(
      'DATABASE_REPLICA_URLS needs a mysql:// DATABASE_URL',
    );
    expect(
      problemsOf({ DATABASE_URL: 'mysql://u@primary/shop', DATABASE_REPLICA_URLS: 'mysql://u@replica' }),
    ).toContain(
      'DATABASE_REPLICA_URLS must name a host and a database: mysql://user:password@host:3306/database (got "mysql://u@replica")',
    );
    expect(
      problemsOf({
        DATABASE_URL: 'mysql://u@primary/shop',
        DATABASE_REPLICA_URLS: 'sqlite:./replica.sqlite',
      }),
    ).toContain('DATABASE_REPLICA_URLS must list mysql:// URLs (got "sqlite:./replica.sqlite")');
    expect(problemsOf({ DATABASE_REPLICA_MAX_LAG_MS: '500' })).toContain(
      'DATABASE_REPLICA_MAX_LAG_MS must be an integer from 1000 to 3600000 (got "500")',
    );
  });

  it('parses durations, lists, booleans and the admin trio', () => {
    expect(loadConfig({ JWT_EXPIRES_IN: '15m' }).jwt.expiresInSeconds).toBe(900);
    expect(loadConfig({ JWT_EXPIRES_IN: '7d' }).jwt.expiresInSeconds).toBe(604800);
    expect(problemsOf({ JWT_EXPIRES_IN: '1y' })).toContain('JWT_EXPIRES_IN must be a positive duration');
    expect(loadConfig({ REFRESH_TOKEN_TTL: '7d' }).sessions.refreshTtlSeconds).toBe(604800);
    expect(problemsOf({ LOGIN_FAILURE_WINDOW: '0' })).toContain(
      'LOGIN_FAILURE_WINDOW must be a positive duration',
    );
    expect(loadConfig({}).orders).toEqual({
      pendingTtlSeconds: 86400,
      expiryIntervalSeconds: 60,
      maxPendingPerUser: 20,
      returnWindowDays: 30,
    });
    expect(loadConfig({ RETURN_WINDOW_DAYS: '0' }).orders.returnWindowDays).toBe(0);
    expect(problemsOf({ RETURN_WINDOW_DAYS: '-1' })).toContain(
      'RETURN_WINDOW_DAYS must be an integer from 0 to 3650 (got "-1")',
    );
    expect(loadConfig({}).outbox).toEqual({
      sweepIntervalSeconds: 5,
      redispatchAfterSeconds: 30,
      retentionSeconds: 604800,
    });
    expect(loadConfig({ OUTBOX_RETENTION: '0' }).outbox.retentionSeconds).toBe(0);
    expect(problemsOf({ OUTBOX_REDISPATCH_AFTER: '0' })).toContain(
      'OUTBOX_REDISPATCH_AFTER must be a positive duration',
    );
    expect(loadConfig({ ORDER_PENDING_TTL: '0' }).orders.pendingTtlSeconds).toBe(0);
    expect(loadConfig({ ORDER_PENDING_TTL: '2h' }).orders.pendingTtlSeconds).toBe(7200);
    expect(problemsOf({ ORDER_PENDING_TTL: '-1' })).toContain(
      'ORDER_PENDING_TTL must be 0 (off) or a duration such as 900, 15m, 1h or 7d (got "-1")',
    );
    expect(problemsOf({ ORDER_MAX_PENDING_PER_USER: '0' })).toContain(
      'ORDER_MAX_PENDING_PER_USER must be an integer from 1',
    );
    expect(problemsOf({ LOGIN_MAX_FAILURES: '0' })).toContain('LOGIN_MAX_FAILURES must be an integer from 1');
    expect(loadConfig({ CORS_ORIGINS: 'https://a.example, https://b.example' }).corsOrigins).toEqual([
      'https://a.example',
      'https://b.example',
    ]);
    expect(loadConfig({ DATABASE_MIGRATIONS_RUN: 'false' }).migrationsRun).toBe(false);
    expect(problemsOf({ DATABASE_MIGRATIONS_RUN: 'maybe' })).toContain(
      'DATABASE_MIGRATIONS_RUN must be true or false',
    );
    expect(problemsOf({ ADMIN_USERNAME: 'root' })).toBe(
      'Invalid configuration: ADMIN_EMAIL must be set too: ADMIN_USERNAME, ADMIN_EMAIL and ADMIN_PASSWORD ' +
        'are set together; ADMIN_PASSWORD must be set too: ADMIN_USERNAME, ADMIN_EMAIL and ADMIN_PASSWORD ' +
        'are set together',
    );
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: 'loopback' }).trustProxy).toBe('loopback');
    expect(problemsOf({ REDIS_URL: 'localhost:6379' })).toContain('REDIS_URL must be redis://');
  });

  it('reads the WebSocket limits and the Redis key prefix, refusing out-of-range values', () => {
    const config = loadConfig({
      WS_MESSAGES_PER_SECOND: '3',
      WS_HEARTBEAT_MS: '5000',
      WS_RATE_WARNINGS: '2',
      WS_UPGRADE_LIMIT: '20',
      WS_MAX_CONNECTIONS_PER_USER: '2',
      WS_MAX_CONNECTIONS_PER_IP: '10',
      WS_CHAT_MESSAGES_PER_SECOND: '40',
      WS_MAX_BUFFERED_BYTES: '262144',
      REDIS_KEY_PREFIX: 'shop-eu:',
    });
    expect(config.ws).toEqual({
      chat: 'everyone',
      messagesPerSecond: 3,
      rateWarnings: 2,
      heartbeatMs: 5000,
      upgradeLimit: 20,
      maxConnectionsPerUser: 2,
      maxConnectionsPerIp: 10,
      chatMessagesPerSecond: 40,
      maxBufferedBytes: 262144,
    });
    expect(config.redisKeyPrefix).toBe('shop-eu:');
    expect(problemsOf({ WS_MESSAGES_PER_SECOND: '0' })).toContain(
      'WS_MESSAGES_PER_SECOND must be an integer from 1 to 10000 (got "0")',
    );
    expect(problemsOf({ WS_HEARTBEAT_MS: 'often' })).toContain(
      'WS_HEARTBEAT_MS must be an integer from 10 to 3600000 (got "often")',
    );
    expect(problemsOf({ WS_MAX_CONNECTIONS_PER_USER: '0' })).toContain(
      'WS_MAX_CONNECTIONS_PER_USER must be an integer from 1 to 10000 (got "0")',
    );
    expect(problemsOf({ WS_MAX_BUFFERED_BYTES: '1024' })).toContain(
      'WS_MAX_BUFFERED_BYTES must be an integer from 65536 to 1073741824 (got "1024")',
    );
    expect(problemsOf({ REDIS_KEY_PREFIX: 'has space' })).toContain(
      'REDIS_KEY_PREFIX must be 1 to 64 letters, digits or :_.- (got "has space")',
    );
  });

  it('reads CORS_MAX_AGE in seconds: 600 by default, 0 to 86400', () => {
    expect(loadConfig({}).corsMaxAgeSeconds).toBe(600);
    expect(loadConfig({ CORS_MAX_AGE: '0' }).corsMaxAgeSeconds).toBe(0);
    expect(loadConfig({ CORS_MAX_AGE: '7200' }).corsMaxAgeSeconds).toBe(7200);
    expect(problemsOf({ CORS_MAX_AGE: '86401' })).toContain(
      'CORS_MAX_AGE must be an integer from 0 to 86400 (got "86401")',
    );
  });

  it('reads THROTTLE_STAFF_LIMIT: five times THROTTLE_LIMIT when unset, never below it', () => {
    expect(loadConfig({}).throttle.staffLimit).toBe(600);
    expect(loadConfig({ THROTTLE_LIMIT: '1000' }).throttle.staffLimit).toBe(5000);
    expect(loadConfig({ THROTTLE_LIMIT: String(Number.MAX_SAFE_INTEGER) }).throttle.staffLimit).toBe(
      Number.MAX_SAFE_INTEGER,
    );
    expect(loadConfig({ THROTTLE_STAFF_LIMIT: '2000' }).throttle).toMatchObject({
      limit: 120,
      staffLimit: 2000,
    });
    expect(loadConfig({ THROTTLE_STAFF_LIMIT: '120' }).throttle.staffLimit).toBe(120);
    expect(problemsOf({ THROTTLE_STAFF_LIMIT: '100' })).toBe(
      'Invalid configuration: THROTTLE_STAFF_LIMIT must not be less than THROTTLE_LIMIT (120): staff get a ' +
        'bucket at least as large as a customer\'s (got "100")',
    );
    expect(problemsOf({ THROTTLE_LIMIT: '1000', THROTTLE_STAFF_LIMIT: '600' })).toContain(
      'THROTTLE_STAFF_LIMIT must not be less than THROTTLE_LIMIT (1000)',
    );
    for (const bad of ['0', 'many', '-5', '1.5']) {
      expect(problemsOf({ THROTTLE_STAFF_LIMIT: bad })).toBe(
        `Invalid configuration: THROTTLE_STAFF_LIMIT must be an integer from 1 to 9007199254740991 (got "${bad}")`,
      );
    }
    // A bad THROTTLE_LIMIT is reported alone, not as a comparison with it.
    expect(problemsOf({ THROTTLE_LIMIT: 'x', THROTTLE_STAFF_LIMIT: '600' })).toBe(
      'Invalid configuration: THROTTLE_LIMIT must be an integer from 1 to 9007199254740991 (got "x")',
    );
  });

  it('reads WS_CHAT: everyone by default, admins or off', () => {
    expect(loadConfig({}).ws.chat).toBe('everyone');
    expect(loadConfig({ WS_CHAT: 'admins' }).ws.chat).toBe('admins');
    expect(loadConfig({ WS_CHAT: 'off' }).ws.chat).toBe('off');
    expect(problemsOf({ WS_CHAT: 'nobody' })).toContain(
      'WS_CHAT must be one of everyone, admins, off (got "nobody")',
    );
  });

  it('puts /metrics on a port of its own in production: METRICS_PORT 9464 unless set', () => {
    const production = { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) };
    expect(loadConfig(production).metricsPort).toBe(9464);
    expect(loadConfig({ ...production, METRICS_PORT: '9100' }).metricsPort).toBe(9100);
    expect(problemsOf({ ...production, PORT: '9464' })).toContain(
      'METRICS_PORT must differ from PORT (both 9464)',
    );
  });

  it('reads METRICS_PORT and OTEL_EXPORTER_OTLP_ENDPOINT, both off by default', () => {
    expect(loadConfig({})).toMatchObject({ metricsPort: null, otlpEndpoint: null });
    expect(
      loadConfig({ METRICS_PORT: '9464', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }),
    ).toMatchObject({ metricsPort: 9464, otlpEndpoint: 'http://collector:4318' });
    expect(problemsOf({ METRICS_PORT: 'x' })).toContain(
      'METRICS_PORT must be an integer from 0 to 65535 (got "x")',
    );
    expect(problemsOf({ PORT: '8080', METRICS_PORT: '8080' })).toContain(
      'METRICS_PORT must differ from PORT (both 8080)',
    );
    expect(problemsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toContain(
      'OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL (got "collector:4318")',
    );
  });

  it('reads the e-mail settings and the account token lifetimes, never echoing SMTP_URL (it may hold a password)', () => {
    expect(loadConfig({})).toMatchObject({
      mail: {
        smtpUrl: null,
        from: 'Commerce <no-reply@commerce.local>',
        linkBaseUrl: 'http://localhost:3000',
        attempts: 8,
        retryBackoffMs: 30000,
      },
      accountTokens: { passwordResetTtlSeconds: 3600, emailVerificationTtlSeconds: 172800 },
      requireVerifiedEmail: false,
    });
    expect(
      loadConfig({
        SMTP_URL: 'smtps://mailer:s3cret@smtp.example.com:465',
        MAIL_LINK_BASE_URL: 'https://shop.example/account/',
        PASSWORD_RESET_TTL: '15m',
        REQUIRE_VERIFIED_EMAIL: 'true',
      }),
    ).toMatchObject({
      mail: {
        smtpUrl: 'smtps://mailer:s3cret@smtp.example.com:465',
        linkBaseUrl: 'https://shop.example/account',
      },
      accountTokens: { passwordResetTtlSeconds: 900 },
      requireVerifiedEmail: true,
    });
    const problems = problemsOf({ SMTP_URL: 'http://mailer:s3cret@smtp.example.com' });
    expect(problems).toBe(
      'Invalid configuration: SMTP_URL must be smtp://[user:password@]host:port or smtps://… (got a value that is not)',
    );
    expect(problems).not.toContain('s3cret');
    expect(problemsOf({ MAIL_LINK_BASE_URL: 'shop.example' })).toContain(
      'MAIL_LINK_BASE_URL must be an http:// or https:// URL without query or fragment (got "shop.example")',
    );
    expect(problemsOf({ MAIL_SEND_ATTEMPTS: '0' })).toContain(
      'MAIL_SEND_ATTEMPTS must be an integer from 1 to 100 (got "0")',
    );
  });

  it('reads the webhook settings: timeout, retry schedule as durations, private networks off by default', () => {
    expect(loadConfig({}).webhooks).toEqual({
      timeoutMs: 10_000,
      retryScheduleSeconds: [10, 60, 300, 1800, 7200, 21600, 43200, 86400],
      allowPrivateNetworks: false,
      deliveryRetentionSeconds: 30 * 86400,
    });
    expect(
      loadConfig({
        WEBHOOK_TIMEOUT_MS: '2500',
        WEBHOOK_RETRY_SCHEDULE: '1s, 2, 1m,1d',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_DELIVERY_RETENTION: '0',
      }).webhooks,
    ).toEqual({
      timeoutMs: 2500,
      retryScheduleSeconds: [1, 2, 60, 86400],
      allowPrivateNetworks: true,
      deliveryRetentionSeconds: 0,
    });
    expect(problemsOf({ WEBHOOK_RETRY_SCHEDULE: '10s,0s' })).toContain(
      'WEBHOOK_RETRY_SCHEDULE must be a comma-separated list of positive durations such as 10s,1m,5m,2h,1d (got "10s,0s")',
    );
    expect(problemsOf({ WEBHOOK_RETRY_SCHEDULE: '1x' })).toContain(
      'WEBHOOK_RETRY_SCHEDULE must be a comma-separated list',
    );
    expect(problemsOf({ WEBHOOK_TIMEOUT_MS: '50' })).toContain(
      'WEBHOOK_TIMEOUT_MS must be an integer from 100 to 600000 (got "50")',
    );
  });

  it('accepts in UPLOAD_ALLOWED_TYPES only types that can be detected from file content', () => {
    expect(loadConfig({ UPLOAD_ALLOWED_TYPES: 'Image/PNG, application/pdf' }).upload.allowedTypes).toEqual([
      'image/png',
      'application/pdf',
    ]);
    expect(problemsOf({ UPLOAD_ALLOWED_TYPES: 'image/png,image/svg+xml' })).toBe(
      'Invalid configuration: UPLOAD_ALLOWED_TYPES must list one or more of image/jpeg, image/png, ' +
        'image/gif, image/webp, application/pdf (got "image/png,image/svg+xml")',
    );
    expect(problemsOf({ UPLOAD_ALLOWED_TYPES: 'text/html' })).toContain('UPLOAD_ALLOWED_TYPES must list');
    expect(problemsOf({ UPLOAD_ALLOWED_TYPES: ' , ' })).toContain('UPLOAD_ALLOWED_TYPES must list');
    expect(problemsOf({ UPLOAD_MAX_BYTES: '0' })).toContain('UPLOAD_MAX_BYTES must be an integer from 1');
  });

  it('serves the admin console from ./packages/admin/dist by default; ADMIN_CONSOLE=false switches it off', () => {
    expect(loadConfig({}).adminConsole).toEqual({ enabled: true, dir: resolve('packages/admin/dist') });
    expect(loadConfig({ ADMIN_CONSOLE: 'false', ADMIN_CONSOLE_DIR: '/srv/console' }).adminConsole).toEqual({
      enabled: false,
      dir: '/srv/console',
    });
    expect(problemsOf({ ADMIN_CONSOLE: 'maybe' })).toBe(
      'Invalid configuration: ADMIN_CONSOLE must be true or false (got "maybe")',
    );
  });

  it('treats blank values as unset and trims the others', () => {
    const config = loadConfig({ PORT: '  ', HOST: ' 127.0.0.1 ', JWT_SECRET: '', LOG_LEVEL: ' debug ' });
    expect(config.port).toBe(3000);
    expect(config.host).toBe('127.0.0.1');
    expect(config.jwt.generated).toBe(true);
    expect(config.logLevel).toBe('debug');
    expect(loadConfig({ NODE_ENV: 'test' }).logLevel).toBe('warn');
  });

  it('reads HOST as the bind address: an IP address or a host name', () => {
    expect(loadConfig({ HOST: '::' }).host).toBe('::');
    expect(loadConfig({ HOST: 'localhost' }).host).toBe('localhost');
    expect(problemsOf({ HOST: 'http://0.0.0.0' })).toBe(
      'Invalid configuration: HOST must be an IP address or a host name (got "http://0.0.0.0")',
    );
  });

  it('accepts in CORS_ORIGINS only exact origins, which is what a browser sends', () => {
    expect(
      loadConfig({ CORS_ORIGINS: 'https://shop.example,http://localhost:5173,http://[::1]:8080' })
        .corsOrigins,
    ).toEqual(['https://shop.example', 'http://localhost:5173', 'http://[::1]:8080']);
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toBe('*');
    // A trailing slash, a path or upper case never equals an Origin header, so the entry would silently never match.
    for (const origins of ['http://x/', 'https://shop.example/app', 'https://Shop.example', 'shop.example']) {
      expect(problemsOf({ CORS_ORIGINS: `https://ok.example, ${origins}` })).toBe(
        'Invalid configuration: CORS_ORIGINS must be * or origins such as https://shop.example or ' +
          'http://localhost:5173: scheme://host[:port] in lower case, no path or trailing slash ' +
          `(got "https://ok.example,${origins}")`,
      );
    }
  });

  it('refuses a list that is empty once blanks are dropped', () => {
    expect(problemsOf({ PAYMENT_METHODS: ', ,' })).toBe(
      'Invalid configuration: PAYMENT_METHODS must list at least one payment method (got "")',
    );
  });
});
