import { randomBytes } from 'node:crypto';
import { isAbsolute, resolve } from 'node:path';
import { DETECTABLE_TYPES } from '../upload/file-type.js';

export type LogLevelName = 'silent' | 'fatal' | 'error' | 'warn' | 'log' | 'debug' | 'verbose';

export type DatabaseConfig =
  | { type: 'sqlite'; path: string }
  | { type: 'mysql'; url: string; host: string; port: number; database: string };

export interface AppConfig {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  database: DatabaseConfig;
  databasePoolSize: number;
  migrationsRun: boolean;
  jwt: { secret: string; generated: boolean; expiresInSeconds: number };
  admin: { username: string; email: string; password: string } | null;
  throttle: { ttlMs: number; limit: number; authLimit: number };
  pageSizeMax: number;
  paymentMethods: string[];
  upload: { dir: string; maxBytes: number; allowedTypes: string[] };
  redisUrl: string | null;
  /** Prepended to every Redis key and pub/sub channel, so several deployments can share one Redis. */
  redisKeyPrefix: string;
  ws: { messagesPerSecond: number; heartbeatMs: number };
  corsOrigins: string[] | '*' | null;
  trustProxy: boolean | number | string;
  logLevel: LogLevelName;
  /** A separate port for `GET /metrics`; null serves it on `port`. */
  metricsPort: number | null;
  /** OTLP/HTTP collector base URL; tracing is on only when it is set. */
  otlpEndpoint: string | null;
}

export type Env = Record<string, string | undefined>;

export const DEFAULT_SQLITE_PATH = './data/commerce.sqlite';

/** Thrown when the environment holds a bad value; its message is one line naming every bad variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

class EnvReader {
  readonly problems: string[] = [];

  constructor(private readonly env: Env) {}

  raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  int(name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max} (got "${value}")`);
      return fallback;
    }
    return Number(value);
  }

  bool(name: string, fallback: boolean): boolean {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (['true', '1', 'yes'].includes(value)) return true;
    if (['false', '0', 'no'].includes(value)) return false;
    this.problems.push(`${name} must be true or false (got "${value}")`);
    return fallback;
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')} (got "${value}")`);
      return fallback;
    }
    return value as T;
  }

  list(name: string, fallback: string[]): string[] {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    return value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
  }
}

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

function parseDuration(reader: EnvReader, name: string, fallback: number): number {
  const value = reader.raw(name);
  if (value === undefined) return fallback;
  const match = /^(\d+)([smhd]?)$/.exec(value);
  const seconds = match ? Number(match[1]) * DURATION_UNITS[match[2] || 's'] : 0;
  if (seconds < 1) {
    reader.problems.push(`${name} must be a positive duration such as 900, 15m, 1h or 7d (got "${value}")`);
    return fallback;
  }
  return seconds;
}

export function parseDatabaseUrl(value: string | undefined): DatabaseConfig | string {
  if (value === undefined) return { type: 'sqlite', path: resolve(DEFAULT_SQLITE_PATH) };
  if (value.startsWith('sqlite:')) {
    // sqlite:relative/or/absolute.sqlite, sqlite:///absolute/path.sqlite, sqlite://relative.sqlite
    let path = value.slice('sqlite:'.length);
    if (path.startsWith('///')) path = path.slice(2);
    else if (path.startsWith('//')) path = path.slice(2);
    if (path === '' || path === '/')
      return 'DATABASE_URL sqlite: needs a file path (e.g. sqlite:./data/commerce.sqlite)';
    return { type: 'sqlite', path: isAbsolute(path) ? path : resolve(path) };
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'DATABASE_URL must be sqlite:PATH or mysql://user:password@host:3306/database (not a valid URL)';
  }
  if (url.protocol !== 'mysql:' && url.protocol !== 'mariadb:') {
    return `DATABASE_URL scheme must be sqlite: or mysql: (got "${url.protocol}")`;
  }
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!url.hostname || !/^[A-Za-z0-9_$-]{1,64}$/.test(database)) {
    return 'DATABASE_URL must name a host and a database: mysql://user:password@host:3306/database';
  }
  const port = url.port === '' ? 3306 : Number(url.port);
  return { type: 'mysql', url: value, host: url.hostname, port, database };
}

function parseTrustProxy(value: string | undefined): boolean | number | string {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value; // an address list or a preset such as "loopback", passed to Express as is
}

/** Reads and validates every setting; throws one ConfigError listing all bad variables. */
export function loadConfig(env: Env): AppConfig {
  const read = new EnvReader(env);
  const nodeEnv = read.oneOf('NODE_ENV', 'development', ['development', 'production', 'test'] as const);

  const database = parseDatabaseUrl(read.raw('DATABASE_URL'));
  if (typeof database === 'string') read.problems.push(database);

  let jwtSecret = read.raw('JWT_SECRET');
  const generated = jwtSecret === undefined;
  if (jwtSecret === undefined) {
    if (nodeEnv === 'production') read.problems.push('JWT_SECRET is required when NODE_ENV=production');
    jwtSecret = randomBytes(32).toString('base64url');
  } else if (jwtSecret.length < 32) {
    read.problems.push('JWT_SECRET must be at least 32 characters long');
  }

  const adminUsername = read.raw('ADMIN_USERNAME');
  const adminEmail = read.raw('ADMIN_EMAIL');
  const adminPassword = read.raw('ADMIN_PASSWORD');
  const adminParts = [adminUsername, adminEmail, adminPassword].filter((part) => part !== undefined).length;
  if (adminParts > 0 && adminParts < 3) {
    read.problems.push('ADMIN_USERNAME, ADMIN_EMAIL and ADMIN_PASSWORD must be set together');
  }

  const corsList = read.list('CORS_ORIGINS', []);

  const config: AppConfig = {
    nodeEnv,
    port: read.int('PORT', 3000, 0, 65535),
    database: typeof database === 'string' ? { type: 'sqlite', path: '' } : database,
    databasePoolSize: read.int('DATABASE_POOL_SIZE', 10, 1, 1000),
    migrationsRun: read.bool('DATABASE_MIGRATIONS_RUN', true),
    jwt: {
      secret: jwtSecret,
      generated,
      expiresInSeconds: parseDuration(read, 'JWT_EXPIRES_IN', 3600),
    },
    admin:
      adminParts === 3 ? { username: adminUsername!, email: adminEmail!, password: adminPassword! } : null,
    throttle: {
      ttlMs: read.int('THROTTLE_TTL_MS', 60_000, 1),
      limit: read.int('THROTTLE_LIMIT', 120, 1),
      authLimit: read.int('THROTTLE_AUTH_LIMIT', 10, 1),
    },
    pageSizeMax: read.int('PAGE_SIZE_MAX', 100, 1, 10_000),
    paymentMethods: read.list('PAYMENT_METHODS', [
      'credit_card',
      'debit_card',
      'paypal',
      'bank_transfer',
      'cash_on_delivery',
    ]),
    upload: {
      dir: resolve(read.string('UPLOAD_DIR', './uploads')),
      maxBytes: read.int('UPLOAD_MAX_BYTES', 5_242_880, 1),
      allowedTypes: read
        .list('UPLOAD_ALLOWED_TYPES', [
          'image/jpeg',
          'image/png',
          'image/gif',
          'image/webp',
          'application/pdf',
        ])
        .map((type) => type.toLowerCase()),
    },
    redisUrl: read.raw('REDIS_URL') ?? null,
    redisKeyPrefix: read.string('REDIS_KEY_PREFIX', 'commerce:'),
    ws: {
      messagesPerSecond: read.int('WS_MESSAGES_PER_SECOND', 10, 1, 10_000),
      heartbeatMs: read.int('WS_HEARTBEAT_MS', 30_000, 10, 3_600_000),
    },
    corsOrigins: corsList.length === 0 ? null : corsList.includes('*') ? '*' : corsList,
    trustProxy: parseTrustProxy(read.raw('TRUST_PROXY')),
    logLevel: read.oneOf('LOG_LEVEL', nodeEnv === 'test' ? 'warn' : 'log', [
      'silent',
      'fatal',
      'error',
      'warn',
      'log',
      'debug',
      'verbose',
    ] as const),
    metricsPort: read.raw('METRICS_PORT') === undefined ? null : read.int('METRICS_PORT', 0, 0, 65535),
    otlpEndpoint: read.raw('OTEL_EXPORTER_OTLP_ENDPOINT') ?? null,
  };

  if (config.paymentMethods.some((method) => !/^[a-z0-9_]{1,32}$/.test(method))) {
    read.problems.push(
      'PAYMENT_METHODS must be a comma-separated list of names of 1-32 characters a-z, 0-9, _',
    );
  }

  const redisUrl = config.redisUrl;
  if (redisUrl !== null && !/^rediss?:\/\/[^/]+/.test(redisUrl)) {
    read.problems.push(`REDIS_URL must be redis://host:port or rediss://host:port (got "${redisUrl}")`);
  }
  if (!/^[A-Za-z0-9:_.-]{1,64}$/.test(config.redisKeyPrefix)) {
    read.problems.push(
      `REDIS_KEY_PREFIX must be 1 to 64 letters, digits or :_.- (got "${config.redisKeyPrefix}")`,
    );
  }

  if (config.metricsPort !== null && config.metricsPort !== 0 && config.metricsPort === config.port) {
    read.problems.push(`METRICS_PORT must differ from PORT (both ${config.port})`);
  }
  if (config.otlpEndpoint !== null && !/^https?:\/\/[^/?#]+/.test(config.otlpEndpoint)) {
    read.problems.push(
      `OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL (got "${config.otlpEndpoint}")`,
    );
  }

  // The type of an upload is detected from its bytes, so only detectable types can ever be accepted.
  const undetectable = config.upload.allowedTypes.filter((type) => !DETECTABLE_TYPES.includes(type));
  if (undetectable.length > 0 || config.upload.allowedTypes.length === 0) {
    read.problems.push(
      `UPLOAD_ALLOWED_TYPES must list one or more of ${DETECTABLE_TYPES.join(', ')} ` +
        `(got "${read.raw('UPLOAD_ALLOWED_TYPES')}")`,
    );
  }

  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return config;
}
