import { ConfigModule } from '@nestjs/config';
import { plainToInstance, Transform } from 'class-transformer';
import {
  ArrayNotEmpty,
  IsDefined,
  IsIn,
  IsOptional,
  isFQDN,
  isIP,
  Matches,
  MinLength,
  ValidateBy,
  ValidateIf,
  validateSync,
} from 'class-validator';
import { randomBytes } from 'node:crypto';
import { algorithms as stemmerLanguages } from 'snowball-stemmers';
import { isAbsolute, resolve } from 'node:path';
import { TAX_CLASS_MAX_LENGTH, TAX_CLASS_PATTERN } from '../common/tax-class.js';
import { DETECTABLE_TYPES } from '../upload/file-type.js';
import {
  BooleanVariable,
  DurationVariable,
  IntegerVariable,
  ListVariable,
  OneOfVariable,
  listMessage,
  parseDuration,
  VariableRule,
} from './variable-rules.js';

export type LogLevelName = 'silent' | 'fatal' | 'error' | 'warn' | 'log' | 'debug' | 'verbose';

export type DatabaseConfig =
  | { type: 'sqlite'; path: string }
  | { type: 'mysql'; url: string; host: string; port: number; database: string };

/** The typed configuration handed to the application (`APP_CONFIG`), built from `EnvironmentVariables`. */
export interface AppConfig {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  /** Address the HTTP server binds to. */
  host: string;
  database: DatabaseConfig;
  databasePoolSize: number;
  /** MySQL: bound on one query, and on the wait for a pooled connection (also SQLite's busy timeout). */
  databaseTimeouts: { queryMs: number; acquireMs: number };
  /**
   * MySQL read replicas for catalogue reads (docs/operations.md#read-replicas): their URLs (none: everything on
   * the primary), the lag past which one is taken out, how often each is checked, and how long a caller's reads
   * stay on the primary after that caller wrote.
   */
  databaseReplicas: { urls: string[]; maxLagMs: number; checkIntervalMs: number; stickyMs: number };
  migrationsRun: boolean;
  /** Node's HTTP server timeouts (see docs/operations.md#timeouts). */
  http: { keepAliveTimeoutMs: number; headersTimeoutMs: number; requestTimeoutMs: number };
  /** SIGTERM/SIGINT: keep serving with readiness failing for drainMs, then at most timeoutMs to finish. */
  shutdown: { drainMs: number; timeoutMs: number };
  jwt: { secret: string; generated: boolean; expiresInSeconds: number };
  sessions: {
    refreshTtlSeconds: number;
    purgeIntervalSeconds: number;
    /** How long an instance trusts a session it has checked, revocations aside (0: every request asks). */
    cacheTtlMs: number;
    loginMaxFailures: number;
    loginFailureWindowSeconds: number;
  };
  admin: { username: string; email: string; password: string } | null;
  throttle: {
    ttlMs: number;
    limit: number;
    /** Per staff account (role admin), instead of `limit`. */
    staffLimit: number;
    authLimit: number;
    filesLimit: number;
    mailLimit: number;
    cartLimit: number;
  };
  pageSizeMax: number;
  paymentMethods: string[];
  /** Payments (docs/configuration.md#payments). */
  payments: {
    /** The provider of each payment method; a method not named in PAYMENT_PROVIDERS is manual. */
    providers: Record<string, 'manual' | 'stripe'>;
    /** Lower-case ISO 4217 code of the default region's currency (CURRENCY): the seed `price` fields' currency. */
    currency: string;
    stripe: { secretKey: string; webhookSecret: string; apiUrl: string | null } | null;
    /** Payments left pending/requires_action longer than this are re-read from their provider. */
    reconcileAfterSeconds: number;
  };
  /** Tax calculation (docs/configuration.md#taxes). */
  taxes: {
    /** `rates`: the table of /tax-rates; `stripe`: Stripe Tax. */
    provider: 'rates' | 'stripe';
    /** Bound on one call to a remote provider; a call past it fails (checkout is refused). */
    timeoutMs: number;
    /** Stripe Tax's key and API URL, when TAX_PROVIDER=stripe. */
    stripe: { secretKey: string; apiUrl: string | null } | null;
    /** The Stripe tax code (`txcd_…`) of a tax class; a class not named here gets the account's default. */
    stripeTaxCodes: Record<string, string>;
  };
  /** Anonymous reads of the catalogue (GET /products, /products/{id}, /categories, /categories/{id}, /payment-methods). */
  catalogPublic: boolean;
  /** An unknown category_id on a product write is a 400 instead of creating a placeholder category. */
  categoriesStrict: boolean;
  /** The admin console's built files, served at /admin when enabled (docs/console.md). */
  adminConsole: { enabled: boolean; dir: string };
  /** How long a product list's total is kept while the catalogue does not change; 0 counts on every page. */
  productTotalsTtlSeconds: number;
  /** Product searches run at once per instance, and how many more may wait for a turn (then 429). */
  search: {
    concurrency: number;
    queue: number;
    /** A search's `meta.total` is exact up to this, then this with `total_exact: false`. */
    totalLimit: number;
    /** A search with a word of at most this many postings is scored and sorted; else the index order is walked. */
    rankLimit: number;
    /** Bound on each statement of a search. */
    timeoutMs: number;
    /** Whether a search's words also match words one or two typos away. */
    typos: boolean;
    /** The Snowball stemmer of the shop's language: a search's words also match the words of their stem. */
    language: string;

    /** How often an instance checks whether another one changed the search synonyms (then reloads them). */
    synonymsPollMs: number;
  };
  orders: {
    /** Pending unpaid orders older than this are cancelled and their stock restored; 0 turns expiry off. */
    pendingTtlSeconds: number;
    expiryIntervalSeconds: number;
    maxPendingPerUser: number;
    /** Days after a unit's fulfilment was shipped during which it may be returned; 0 refuses every return. */
    returnWindowDays: number;
  };
  carts: {
    /** Open carts not changed for this long are removed (completed ones too, their order kept). */
    ttlSeconds: number;
    cleanupIntervalSeconds: number;
  };
  /** The outbox of domain events (docs/operations.md#the-outbox). */
  outbox: {
    sweepIntervalSeconds: number;
    /** An event claimed and not marked dispatched within this is dispatched again; doubles after each failure. */
    redispatchAfterSeconds: number;
    /** Dispatched events are deleted this long after their dispatch. */
    retentionSeconds: number;
  };
  upload: {
    dir: string;
    maxBytes: number;
    allowedTypes: string[];
    storage: 'local' | 's3';
    /** Bytes one user may upload in any 24 hours (files deleted since no longer count). */
    quotaBytes: number;
    /** A file no product uses is removed this long after it was uploaded. */
    orphanTtlSeconds: number;
    orphanIntervalSeconds: number;
  };
  /** The bucket for uploads when `upload.storage` is `s3`; credentials come from the AWS SDK's own chain. */
  s3: { bucket: string | null; endpoint: string | null; region: string; forcePathStyle: boolean };
  redisUrl: string | null;
  /** Prepended to every Redis key and pub/sub channel, so several deployments can share one Redis. */
  redisKeyPrefix: string;
  /** The job queue (docs/operations.md#job-queue): BullMQ with REDIS_URL, the `jobs` table otherwise. */
  jobs: {
    /** Database queue: how often each instance looks for due jobs and scheduled ticks. */
    pollIntervalMs: number;
    /** A running job's claim; a job whose instance stops renewing it runs again after this long. */
    leaseMs: number;
    /** Finished (done or failed) jobs are kept this long, and a jobId is deduplicated while its job is kept. */
    retentionSeconds: number;
    /** BullMQ: how long `add` waits for Redis before it fails. */
    addTimeoutMs: number;
  };
  ws: {
    /** Who receives chat messages: `everyone`; `admins` (a customer's reach admins and the sender only); `off`. */
    chat: 'everyone' | 'admins' | 'off';
    messagesPerSecond: number;
    /** 429 error frames a connection gets for frames over the rate before it is closed with 1008. */
    rateWarnings: number;
    heartbeatMs: number;
    /** Handshakes per client IP per THROTTLE_TTL_MS (the `websocket-upgrade` rate-limit bucket). */
    upgradeLimit: number;
    maxConnectionsPerUser: number;
    maxConnectionsPerIp: number;
    /** Chat messages per second this instance accepts from all its connections together. */
    chatMessagesPerSecond: number;
    /** A connection whose unsent output passes this many bytes is cut. */
    maxBufferedBytes: number;
  };
  corsOrigins: string[] | '*' | null;
  /**
   * Cookie sessions' cookies are `Secure` with the `__Host-`/`__Secure-` name prefixes; false (plain-HTTP
   * development on another host than localhost) drops both.
   */
  sessionCookieSecure: boolean;
  /** Seconds a browser may keep a preflight's answer (`Access-Control-Max-Age`). */
  corsMaxAgeSeconds: number;
  trustProxy: boolean | number | string;
  logLevel: LogLevelName;
  /** A separate port for `GET /metrics`; null serves it on `port` (never in production). */
  metricsPort: number | null;
  /** OTLP/HTTP collector base URL; tracing is on only when it is set. */
  otlpEndpoint: string | null;
  webhooks: {
    /** An attempt with no complete answer within this time failed. */
    timeoutMs: number;
    /** Waits before the 2nd, 3rd, … attempt; when they are used up, the delivery has failed. */
    retryScheduleSeconds: number[];
    /** Lets endpoints resolve to loopback, private, link-local and other non-public addresses. */
    allowPrivateNetworks: boolean;
    /** Succeeded and failed deliveries are removed this long after they were created; 0 keeps them. */
    deliveryRetentionSeconds: number;
  };
  mail: {
    /** smtp:// or smtps:// URL of the relay; null writes each message to the log instead. */
    smtpUrl: string | null;
    from: string;
    /** Where the links in account e-mails point: `<base>/reset-password?token=…`, `<base>/verify-email?token=…`. */
    linkBaseUrl: string;
    /** Sending attempts of one message (the first included) and the backoff before the first retry. */
    attempts: number;
    retryBackoffMs: number;
  };
  accountTokens: { passwordResetTtlSeconds: number; emailVerificationTtlSeconds: number };
  /** Login refuses (403) accounts whose e-mail address is not verified. */
  requireVerifiedEmail: boolean;
}

export type Env = Record<string, string | undefined>;

export const DEFAULT_SQLITE_PATH = './data/commerce.sqlite';
/** THROTTLE_STAFF_LIMIT when unset, in times THROTTLE_LIMIT: 600 requests a minute at the defaults. */
export const STAFF_LIMIT_FACTOR = 5;

/** METRICS_PORT when NODE_ENV=production leaves it unset: production never serves /metrics on the API port. */
export const PRODUCTION_METRICS_PORT = 9464;

/** Thrown when the environment holds a bad value; its message is one line naming every bad variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/** Parses DATABASE_URL; a string result says what is wrong with it. */
export function parseDatabaseUrl(value: string | undefined): DatabaseConfig | string {
  if (value === undefined) return { type: 'sqlite', path: resolve(DEFAULT_SQLITE_PATH) };
  if (value.startsWith('sqlite:')) {
    // sqlite:relative/or/absolute.sqlite, sqlite:///absolute/path.sqlite, sqlite://relative.sqlite
    let path = value.slice('sqlite:'.length);
    if (path.startsWith('///')) path = path.slice(2);
    else if (path.startsWith('//')) path = path.slice(2);
    if (path === '' || path === '/') return 'sqlite: needs a file path (e.g. sqlite:./data/commerce.sqlite)';
    return { type: 'sqlite', path: isAbsolute(path) ? path : resolve(path) };
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be sqlite:PATH or mysql://user:password@host:3306/database (not a valid URL)';
  }
  if (url.protocol !== 'mysql:' && url.protocol !== 'mariadb:') {
    return `scheme must be sqlite: or mysql: (got "${url.protocol}")`;
  }
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!url.hostname || !/^[A-Za-z0-9_$-]{1,64}$/.test(database)) {
    return 'must name a host and a database: mysql://user:password@host:3306/database';
  }
  const port = url.port === '' ? 3306 : Number(url.port);
  return { type: 'mysql', url: value, host: url.hostname, port, database };
}

function parseTrustProxy(value: string): boolean | number | string {
  if (value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value; // an address list or a preset such as "loopback", passed to Express as is
}

const LOG_LEVELS = ['silent', 'fatal', 'error', 'warn', 'log', 'debug', 'verbose'] as const;
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/([a-z0-9-]+(\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(:\d{1,5})?$/;

function anyAdminVariableSet(variables: EnvironmentVariables): boolean {
  return [variables.ADMIN_USERNAME, variables.ADMIN_EMAIL, variables.ADMIN_PASSWORD].some(
    (value) => value !== undefined,
  );
}
const adminTrioMessage =
  '$property must be set too: ADMIN_USERNAME, ADMIN_EMAIL and ADMIN_PASSWORD are set together';

/**
 * Every variable the service reads, with its default and its rules. A new setting is a property here plus its
 * field in `AppConfig` and its line in `toAppConfig`.
 */
export class EnvironmentVariables {
  @OneOfVariable(['development', 'production', 'test'])
  NODE_ENV: AppConfig['nodeEnv'] = 'development';

  @IntegerVariable(0, 65535)
  PORT = 3000;

  @VariableRule((host) =>
    isIP(String(host)) || isFQDN(String(host), { require_tld: false })
      ? undefined
      : `must be an IP address or a host name (got "${host}")`,
  )
  HOST = '0.0.0.0';

  @IsOptional()
  @VariableRule((url) => {
    const parsed = parseDatabaseUrl(String(url));
    return typeof parsed === 'string' ? parsed : undefined;
  })
  DATABASE_URL?: string;

  @IntegerVariable(1, 1000)
  DATABASE_POOL_SIZE = 10;

  @BooleanVariable()
  DATABASE_MIGRATIONS_RUN = true;

  @IntegerVariable(100, 3_600_000)
  DATABASE_QUERY_TIMEOUT_MS = 10_000;

  @IntegerVariable(100, 3_600_000)
  DATABASE_ACQUIRE_TIMEOUT_MS = 5_000;

  @IsOptional()
  @ListVariable()
  @VariableRule((urls, variables) => {
    const primary = parseDatabaseUrl((variables as EnvironmentVariables).DATABASE_URL);
    if (typeof primary !== 'string' && primary.type !== 'mysql') return 'needs a mysql:// DATABASE_URL';
    for (const url of urls as string[]) {
      const parsed = parseDatabaseUrl(url);
      if (typeof parsed === 'string') return `${parsed} (got "${url}")`;
      if (parsed.type !== 'mysql') return `must list mysql:// URLs (got "${url}")`;
    }
    return undefined;
  })
  DATABASE_REPLICA_URLS?: string[];

  // Replicas report their lag in whole seconds.
  @IntegerVariable(1_000, 3_600_000)
  DATABASE_REPLICA_MAX_LAG_MS = 1_000;

  @IntegerVariable(100, 3_600_000)
  DATABASE_REPLICA_CHECK_INTERVAL_MS = 1_000;

  @IntegerVariable(0, 3_600_000)
  DATABASE_REPLICA_STICKY_MS = 2_000;

  @IntegerVariable(1_000, 3_600_000)
  HTTP_KEEP_ALIVE_TIMEOUT_MS = 65_000;

  @IntegerVariable(1_000, 3_600_000)
  HTTP_HEADERS_TIMEOUT_MS = 20_000;

  @IntegerVariable(1_000, 3_600_000)
  HTTP_REQUEST_TIMEOUT_MS = 120_000;

  @IntegerVariable(0, 600_000)
  SHUTDOWN_DRAIN_MS = 5_000;

  @IntegerVariable(100, 600_000)
  SHUTDOWN_TIMEOUT_MS = 20_000;

  @ValidateIf(
    (variables: EnvironmentVariables) =>
      variables.NODE_ENV === 'production' || variables.JWT_SECRET !== undefined,
  )
  @IsDefined({ message: '$property is required when NODE_ENV=production' })
  @MinLength(32, { message: '$property must be at least 32 characters long' })
  JWT_SECRET?: string;

  @DurationVariable()
  JWT_EXPIRES_IN = 900;

  @DurationVariable()
  REFRESH_TOKEN_TTL = 30 * 86400;

  @DurationVariable()
  SESSION_PURGE_INTERVAL = 3600;

  @IntegerVariable(0, 60_000)
  SESSION_CACHE_TTL_MS = 5_000;

  @IntegerVariable(1, 1000)
  LOGIN_MAX_FAILURES = 5;

  @DurationVariable()
  LOGIN_FAILURE_WINDOW = 900;

  @ValidateIf(anyAdminVariableSet)
  @IsDefined({ message: adminTrioMessage })
  ADMIN_USERNAME?: string;

  @ValidateIf(anyAdminVariableSet)
  @IsDefined({ message: adminTrioMessage })
  ADMIN_EMAIL?: string;

  @ValidateIf(anyAdminVariableSet)
  @IsDefined({ message: adminTrioMessage })
  ADMIN_PASSWORD?: string;

  @IntegerVariable(1)
  THROTTLE_TTL_MS = 60_000;

  @IntegerVariable(1)
  THROTTLE_LIMIT = 120;

  /** Unset: STAFF_LIMIT_FACTOR times THROTTLE_LIMIT. */
  @IsOptional()
  @ValidateBy({
    name: 'atLeastThrottleLimit',
    validator: {
      validate: (limit, args) => {
        const customers: unknown = (args!.object as EnvironmentVariables).THROTTLE_LIMIT;
        return typeof limit !== 'number' || typeof customers !== 'number' || limit >= customers;
      },
      defaultMessage: (args) =>
        `$property must not be less than THROTTLE_LIMIT (${(args!.object as EnvironmentVariables).THROTTLE_LIMIT}): ` +
        `staff get a bucket at least as large as a customer's (got "${args!.value}")`,
    },
  })
  @IntegerVariable(1)
  THROTTLE_STAFF_LIMIT?: number;

  @IntegerVariable(1)
  THROTTLE_AUTH_LIMIT = 10;

  @IntegerVariable(1)
  THROTTLE_FILES_LIMIT = 1200;

  @IntegerVariable(1)
  THROTTLE_MAIL_LIMIT = 5;

  @IntegerVariable(1)
  THROTTLE_CART_LIMIT = 20;

  @IntegerVariable(1, 10_000)
  PAGE_SIZE_MAX = 100;

  @ListVariable()
  @ArrayNotEmpty({ message: listMessage('must list at least one payment method') })
  @Matches(/^[a-z0-9_]{1,32}$/, {
    each: true,
    message: listMessage('must be a comma-separated list of names of 1-32 characters a-z, 0-9, _'),
  })
  PAYMENT_METHODS = ['credit_card', 'debit_card', 'paypal', 'bank_transfer', 'cash_on_delivery'];

  @ListVariable()
  @VariableRule((list, variables) => {
    const wrong = (list as string[]).find((item) => {
      const [method, provider, extra] = item.split(':');
      return (
        extra !== undefined ||
        !(variables as EnvironmentVariables).PAYMENT_METHODS.includes(method) ||
        !['manual', 'stripe'].includes(provider)
      );
    });
    return wrong === undefined
      ? undefined
      : `must be a comma-separated list of method:provider pairs, each method one of PAYMENT_METHODS and each provider manual or stripe (got "${wrong}")`;
  })
  @VariableRule((list, variables) =>
    (list as string[]).some((item) => item.endsWith(':stripe')) &&
    ((variables as EnvironmentVariables).STRIPE_SECRET_KEY === undefined ||
      (variables as EnvironmentVariables).STRIPE_WEBHOOK_SECRET === undefined)
      ? 'names the stripe provider, which needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET'
      : undefined,
  )
  PAYMENT_PROVIDERS: string[] = [];

  @Matches(/^[a-z]{3}$/, {
    message: '$property must be a three-letter ISO 4217 code in lower case (got "$value")',
  })
  CURRENCY = 'usd';

  @IsOptional()
  @Matches(/^(sk|rk)_[A-Za-z0-9_]+$/, { message: '$property must be a Stripe secret key (sk_… or rk_…)' })
  STRIPE_SECRET_KEY?: string;

  @IsOptional()
  @Matches(/^whsec_[A-Za-z0-9+/=_]+$/, {
    message: '$property must be a Stripe webhook signing secret (whsec_…)',
  })
  STRIPE_WEBHOOK_SECRET?: string;

  @IsOptional()
  @Matches(/^https?:\/\/[^/?#]+\/?$/, {
    message: '$property must be an http:// or https:// URL without a path (got "$value")',
  })
  STRIPE_API_URL?: string;

  @DurationVariable()
  PAYMENT_RECONCILE_AFTER = 15 * 60;

  @OneOfVariable(['rates', 'stripe'])
  @VariableRule((provider, variables) =>
    provider === 'stripe' && (variables as EnvironmentVariables).STRIPE_SECRET_KEY === undefined
      ? 'names the stripe provider, which needs STRIPE_SECRET_KEY'
      : undefined,
  )
  TAX_PROVIDER: AppConfig['taxes']['provider'] = 'rates';

  @IntegerVariable(100, 600_000)
  TAX_PROVIDER_TIMEOUT_MS = 5000;

  @ListVariable()
  @VariableRule((list) => {
    const wrong = (list as string[]).find((item) => {
      const [taxClass, code, extra] = item.split(':');
      return (
        extra !== undefined ||
        taxClass.length > TAX_CLASS_MAX_LENGTH ||
        !TAX_CLASS_PATTERN.test(taxClass) ||
        !/^txcd_[0-9]{8}$/.test(code ?? '')
      );
    });
    return wrong === undefined
      ? undefined
      : `must be a comma-separated list of tax_class:tax_code pairs such as reduced:txcd_99999999 (got "${wrong}")`;
  })
  @VariableRule((list) => {
    const classes = (list as string[]).map((item) => item.split(':')[0]);
    const repeated = classes.find((name, index) => classes.indexOf(name) !== index);
    return repeated === undefined ? undefined : `names the tax class ${repeated} twice`;
  })
  TAX_STRIPE_TAX_CODES: string[] = [];

  @BooleanVariable()
  CATALOG_PUBLIC = false;

  @BooleanVariable()
  SESSION_COOKIE_SECURE = true;

  @BooleanVariable()
  CATEGORIES_STRICT = false;

  @BooleanVariable()
  ADMIN_CONSOLE = true;

  ADMIN_CONSOLE_DIR = './packages/admin/dist';

  @DurationVariable({ allowZero: true })
  PRODUCT_TOTALS_TTL = 60;

  // Below the pool size, so that searches always leave connections for everything else; by default half of it.
  @IsOptional()
  @IntegerVariable(1, 1000)
  @ValidateBy({
    name: 'belowPoolSize',
    validator: {
      validate: (limit, args) => Number(limit) < (args!.object as EnvironmentVariables).DATABASE_POOL_SIZE,
      defaultMessage: (args) =>
        `$property must be less than DATABASE_POOL_SIZE (${(args!.object as EnvironmentVariables).DATABASE_POOL_SIZE})`,
    },
  })
  SEARCH_CONCURRENCY?: number;

  @IntegerVariable(0, 100_000)
  SEARCH_QUEUE = 20;

  @IntegerVariable(1, 1_000_000)
  SEARCH_TOTAL_LIMIT = 10_000;

  @IntegerVariable(1, 1_000_000)
  SEARCH_RANK_LIMIT = 500;

  @IntegerVariable(1, 3_600_000)
  SEARCH_TIMEOUT_MS = 2_000;

  @BooleanVariable()
  SEARCH_TYPOS = true;

  @Transform(({ value }) => String(value).toLowerCase())
  @IsIn(stemmerLanguages(), { message: `$property must be one of ${stemmerLanguages().join(', ')}` })
  SEARCH_LANGUAGE = 'english';

  @IntegerVariable(10, 3_600_000)
  SEARCH_SYNONYMS_POLL_MS = 5_000;

  @DurationVariable({ allowZero: true })
  ORDER_PENDING_TTL = 86400;

  @DurationVariable()
  ORDER_EXPIRY_INTERVAL = 60;

  @IntegerVariable(1, 100_000)
  ORDER_MAX_PENDING_PER_USER = 20;

  @IntegerVariable(0, 3650)
  RETURN_WINDOW_DAYS = 30;

  @DurationVariable()
  CART_TTL = 30 * 86400;

  @DurationVariable()
  CART_CLEANUP_INTERVAL = 3600;

  @DurationVariable()
  OUTBOX_SWEEP_INTERVAL = 5;

  @DurationVariable()
  OUTBOX_REDISPATCH_AFTER = 30;

  @DurationVariable({ allowZero: true })
  OUTBOX_RETENTION = 7 * 86400;

  UPLOAD_DIR = './uploads';

  @IntegerVariable(1)
  UPLOAD_MAX_BYTES = 5_242_880;

  // The type of an upload is detected from its bytes, so only detectable types can ever be accepted.
  @ListVariable((type) => type.toLowerCase())
  @ArrayNotEmpty({ message: listMessage(`must list one or more of ${DETECTABLE_TYPES.join(', ')}`) })
  @IsIn(DETECTABLE_TYPES as string[], {
    each: true,
    message: listMessage(`must list one or more of ${DETECTABLE_TYPES.join(', ')}`),
  })
  UPLOAD_ALLOWED_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'application/pdf'];

  @IntegerVariable(1)
  UPLOAD_QUOTA_BYTES = 104_857_600;

  @DurationVariable()
  UPLOAD_ORPHAN_TTL = 86400;

  @DurationVariable()
  UPLOAD_ORPHAN_INTERVAL = 3600;

  @OneOfVariable(['local', 's3'])
  UPLOAD_STORAGE: 'local' | 's3' = 'local';

  @ValidateIf((variables: EnvironmentVariables) => variables.UPLOAD_STORAGE === 's3')
  @IsDefined({ message: '$property is required when UPLOAD_STORAGE=s3' })
  @Matches(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, {
    message:
      '$property must be an S3 bucket name: 3 to 63 lower-case letters, digits, dots or dashes (got "$value")',
  })
  S3_BUCKET?: string;

  @IsOptional()
  @Matches(/^https?:\/\/[^/?#]+/, { message: '$property must be an http:// or https:// URL (got "$value")' })
  S3_ENDPOINT?: string;

  @Matches(/^[a-z0-9-]{1,32}$/, {
    message: '$property must be a region name such as eu-west-1 (got "$value")',
  })
  S3_REGION = 'us-east-1';

  @BooleanVariable()
  S3_FORCE_PATH_STYLE = false;

  @IsOptional()
  @Matches(/^rediss?:\/\/[^/]+/, {
    message: '$property must be redis://host:port or rediss://host:port (got "$value")',
  })
  REDIS_URL?: string;

  @Matches(/^[A-Za-z0-9:_.-]{1,64}$/, {
    message: '$property must be 1 to 64 letters, digits or :_.- (got "$value")',
  })
  REDIS_KEY_PREFIX = 'commerce:';

  @OneOfVariable(['everyone', 'admins', 'off'])
  WS_CHAT: AppConfig['ws']['chat'] = 'everyone';

  @IntegerVariable(10, 60_000)
  JOBS_POLL_INTERVAL_MS = 1000;

  @IntegerVariable(1000, 3_600_000)
  JOBS_LEASE_MS = 60_000;

  @DurationVariable()
  JOBS_RETENTION = 604_800;

  @IntegerVariable(100, 600_000)
  JOBS_ADD_TIMEOUT_MS = 5000;

  @IntegerVariable(1, 10_000)
  WS_MESSAGES_PER_SECOND = 10;

  @IntegerVariable(1, 100)
  WS_RATE_WARNINGS = 3;

  @IntegerVariable(10, 3_600_000)
  WS_HEARTBEAT_MS = 30_000;

  @IntegerVariable(1, 1_000_000)
  WS_UPGRADE_LIMIT = 60;

  @IntegerVariable(1, 10_000)
  WS_MAX_CONNECTIONS_PER_USER = 5;

  @IntegerVariable(1, 1_000_000)
  WS_MAX_CONNECTIONS_PER_IP = 50;

  @IntegerVariable(1, 100_000)
  WS_CHAT_MESSAGES_PER_SECOND = 25;

  @IntegerVariable(65_536, 1_073_741_824)
  WS_MAX_BUFFERED_BYTES = 1_048_576;

  // The browser's Origin header is scheme://host[:port] exactly: anything else in the list would never match it.
  @ListVariable()
  @Matches(new RegExp(`${ORIGIN.source}|^\\*$`), {
    each: true,
    message: listMessage(
      'must be * or origins such as https://shop.example or http://localhost:5173: ' +
        'scheme://host[:port] in lower case, no path or trailing slash',
    ),
  })
  CORS_ORIGINS: string[] = [];

  @IntegerVariable(0, 86_400)
  CORS_MAX_AGE = 600;

  @Transform(({ value }) => parseTrustProxy(String(value)))
  TRUST_PROXY: boolean | number | string = false;

  @IsOptional()
  @OneOfVariable(LOG_LEVELS)
  LOG_LEVEL?: LogLevelName;

  @IsOptional()
  @IntegerVariable(0, 65535)
  @ValidateBy({
    name: 'differsFromPort',
    validator: {
      validate: (port, args) => port === 0 || port !== (args!.object as EnvironmentVariables).PORT,
      defaultMessage: (args) => `$property must differ from PORT (both ${args!.value})`,
    },
  })
  METRICS_PORT?: number;

  @IsOptional()
  @Matches(/^https?:\/\/[^/?#]+/, { message: '$property must be an http:// or https:// URL (got "$value")' })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  @IntegerVariable(100, 600_000)
  WEBHOOK_TIMEOUT_MS = 10_000;

  @ListVariable()
  @ArrayNotEmpty({ message: listMessage('must list at least one duration') })
  @VariableRule((list) =>
    (list as string[]).every((item) => (parseDuration(item) ?? 0) > 0)
      ? undefined
      : `must be a comma-separated list of positive durations such as 10s,1m,5m,2h,1d (got "${(list as string[]).join(',')}")`,
  )
  WEBHOOK_RETRY_SCHEDULE = ['10s', '1m', '5m', '30m', '2h', '6h', '12h', '24h'];

  @BooleanVariable()
  WEBHOOK_ALLOW_PRIVATE_NETWORKS = false;

  @DurationVariable({ allowZero: true })
  WEBHOOK_DELIVERY_RETENTION = 30 * 86400;
  @IsOptional()
  @Matches(/^smtps?:\/\/[^/?#]+/, {
    message: '$property must be smtp://[user:password@]host:port or smtps://… (got a value that is not)',
  })
  SMTP_URL?: string;

  @IsDefined({ message: '$property must not be empty' })
  MAIL_FROM = 'Commerce <no-reply@commerce.local>';

  @Matches(/^https?:\/\/[^/?#]+(\/[^?#]*)?$/, {
    message: '$property must be an http:// or https:// URL without query or fragment (got "$value")',
  })
  MAIL_LINK_BASE_URL = 'http://localhost:3000';

  @IntegerVariable(1, 100)
  MAIL_SEND_ATTEMPTS = 8;

  @IntegerVariable(10, 86_400_000)
  MAIL_RETRY_BACKOFF_MS = 30_000;

  @DurationVariable()
  PASSWORD_RESET_TTL = 3600;

  @DurationVariable()
  EMAIL_VERIFICATION_TTL = 2 * 86400;

  @BooleanVariable()
  REQUIRE_VERIFIED_EMAIL = false;
}

/** Blank values count as unset; the others are trimmed. */
function setVariables(raw: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(raw)
      .filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1].trim() !== '')
      .map(([name, value]) => [name, value.trim()]),
  );
}

/**
 * The `validate` function of @nestjs/config: converts and checks every variable, throwing one ConfigError that
 * names every bad one. Variables it does not declare are kept, so `.env` can carry settings of libraries.
 */
export function validateEnvironment(raw: Record<string, unknown>): EnvironmentVariables {
  const variables = plainToInstance(EnvironmentVariables, setVariables(raw));
  if (variables.NODE_ENV === 'production') variables.METRICS_PORT ??= PRODUCTION_METRICS_PORT;
  const errors = validateSync(variables, { stopAtFirstError: true });
  const problems = errors.flatMap((error) => Object.values(error.constraints ?? {}));
  if (problems.length > 0) throw new ConfigError(problems);
  return variables;
}

export function toAppConfig(variables: EnvironmentVariables): AppConfig {
  const { ADMIN_USERNAME, ADMIN_EMAIL, ADMIN_PASSWORD, CORS_ORIGINS, NODE_ENV } = variables;
  return {
    nodeEnv: NODE_ENV,
    port: variables.PORT,
    host: variables.HOST,
    database: parseDatabaseUrl(variables.DATABASE_URL) as DatabaseConfig,
    databasePoolSize: variables.DATABASE_POOL_SIZE,
    databaseTimeouts: {
      queryMs: variables.DATABASE_QUERY_TIMEOUT_MS,
      acquireMs: variables.DATABASE_ACQUIRE_TIMEOUT_MS,
    },
    databaseReplicas: {
      urls: variables.DATABASE_REPLICA_URLS ?? [],
      maxLagMs: variables.DATABASE_REPLICA_MAX_LAG_MS,
      checkIntervalMs: variables.DATABASE_REPLICA_CHECK_INTERVAL_MS,
      stickyMs: variables.DATABASE_REPLICA_STICKY_MS,
    },
    migrationsRun: variables.DATABASE_MIGRATIONS_RUN,
    http: {
      keepAliveTimeoutMs: variables.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      headersTimeoutMs: variables.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: variables.HTTP_REQUEST_TIMEOUT_MS,
    },
    shutdown: { drainMs: variables.SHUTDOWN_DRAIN_MS, timeoutMs: variables.SHUTDOWN_TIMEOUT_MS },
    jwt: {
      secret: variables.JWT_SECRET ?? randomBytes(32).toString('base64url'),
      generated: variables.JWT_SECRET === undefined,
      expiresInSeconds: variables.JWT_EXPIRES_IN,
    },
    sessions: {
      refreshTtlSeconds: variables.REFRESH_TOKEN_TTL,
      purgeIntervalSeconds: variables.SESSION_PURGE_INTERVAL,
      cacheTtlMs: variables.SESSION_CACHE_TTL_MS,
      loginMaxFailures: variables.LOGIN_MAX_FAILURES,
      loginFailureWindowSeconds: variables.LOGIN_FAILURE_WINDOW,
    },
    admin:
      ADMIN_USERNAME && ADMIN_EMAIL && ADMIN_PASSWORD
        ? { username: ADMIN_USERNAME, email: ADMIN_EMAIL, password: ADMIN_PASSWORD }
        : null,
    throttle: {
      ttlMs: variables.THROTTLE_TTL_MS,
      limit: variables.THROTTLE_LIMIT,
      staffLimit:
        variables.THROTTLE_STAFF_LIMIT ??
        Math.min(variables.THROTTLE_LIMIT * STAFF_LIMIT_FACTOR, Number.MAX_SAFE_INTEGER),
      authLimit: variables.THROTTLE_AUTH_LIMIT,
      cartLimit: variables.THROTTLE_CART_LIMIT,
      filesLimit: variables.THROTTLE_FILES_LIMIT,
      mailLimit: variables.THROTTLE_MAIL_LIMIT,
    },
    pageSizeMax: variables.PAGE_SIZE_MAX,
    paymentMethods: variables.PAYMENT_METHODS,
    payments: {
      providers: Object.fromEntries(
        variables.PAYMENT_PROVIDERS.map((item) => item.split(':') as [string, 'manual' | 'stripe']),
      ),
      currency: variables.CURRENCY,
      stripe:
        variables.STRIPE_SECRET_KEY !== undefined && variables.STRIPE_WEBHOOK_SECRET !== undefined
          ? {
              secretKey: variables.STRIPE_SECRET_KEY,
              webhookSecret: variables.STRIPE_WEBHOOK_SECRET,
              apiUrl: variables.STRIPE_API_URL ?? null,
            }
          : null,
      reconcileAfterSeconds: variables.PAYMENT_RECONCILE_AFTER,
    },
    taxes: {
      provider: variables.TAX_PROVIDER,
      timeoutMs: variables.TAX_PROVIDER_TIMEOUT_MS,
      stripe:
        variables.TAX_PROVIDER === 'stripe' && variables.STRIPE_SECRET_KEY !== undefined
          ? { secretKey: variables.STRIPE_SECRET_KEY, apiUrl: variables.STRIPE_API_URL ?? null }
          : null,
      stripeTaxCodes: Object.fromEntries(
        variables.TAX_STRIPE_TAX_CODES.map((item) => item.split(':') as [string, string]),
      ),
    },
    catalogPublic: variables.CATALOG_PUBLIC,
    categoriesStrict: variables.CATEGORIES_STRICT,
    adminConsole: { enabled: variables.ADMIN_CONSOLE, dir: resolve(variables.ADMIN_CONSOLE_DIR) },
    productTotalsTtlSeconds: variables.PRODUCT_TOTALS_TTL,
    search: {
      concurrency: variables.SEARCH_CONCURRENCY ?? Math.max(1, Math.floor(variables.DATABASE_POOL_SIZE / 2)),
      queue: variables.SEARCH_QUEUE,
      totalLimit: variables.SEARCH_TOTAL_LIMIT,
      rankLimit: variables.SEARCH_RANK_LIMIT,
      timeoutMs: variables.SEARCH_TIMEOUT_MS,
      typos: variables.SEARCH_TYPOS,
      language: variables.SEARCH_LANGUAGE,
      synonymsPollMs: variables.SEARCH_SYNONYMS_POLL_MS,
    },
    orders: {
      pendingTtlSeconds: variables.ORDER_PENDING_TTL,
      expiryIntervalSeconds: variables.ORDER_EXPIRY_INTERVAL,
      maxPendingPerUser: variables.ORDER_MAX_PENDING_PER_USER,
      returnWindowDays: variables.RETURN_WINDOW_DAYS,
    },
    carts: {
      ttlSeconds: variables.CART_TTL,
      cleanupIntervalSeconds: variables.CART_CLEANUP_INTERVAL,
    },
    outbox: {
      sweepIntervalSeconds: variables.OUTBOX_SWEEP_INTERVAL,
      redispatchAfterSeconds: variables.OUTBOX_REDISPATCH_AFTER,
      retentionSeconds: variables.OUTBOX_RETENTION,
    },
    upload: {
      dir: resolve(variables.UPLOAD_DIR),
      maxBytes: variables.UPLOAD_MAX_BYTES,
      allowedTypes: variables.UPLOAD_ALLOWED_TYPES,
      quotaBytes: variables.UPLOAD_QUOTA_BYTES,
      orphanTtlSeconds: variables.UPLOAD_ORPHAN_TTL,
      orphanIntervalSeconds: variables.UPLOAD_ORPHAN_INTERVAL,
      storage: variables.UPLOAD_STORAGE,
    },
    s3: {
      bucket: variables.S3_BUCKET ?? null,
      endpoint: variables.S3_ENDPOINT ?? null,
      region: variables.S3_REGION,
      forcePathStyle: variables.S3_FORCE_PATH_STYLE,
    },
    redisUrl: variables.REDIS_URL ?? null,
    redisKeyPrefix: variables.REDIS_KEY_PREFIX,
    jobs: {
      pollIntervalMs: variables.JOBS_POLL_INTERVAL_MS,
      leaseMs: variables.JOBS_LEASE_MS,
      retentionSeconds: variables.JOBS_RETENTION,
      addTimeoutMs: variables.JOBS_ADD_TIMEOUT_MS,
    },
    ws: {
      chat: variables.WS_CHAT,
      messagesPerSecond: variables.WS_MESSAGES_PER_SECOND,
      rateWarnings: variables.WS_RATE_WARNINGS,
      heartbeatMs: variables.WS_HEARTBEAT_MS,
      upgradeLimit: variables.WS_UPGRADE_LIMIT,
      maxConnectionsPerUser: variables.WS_MAX_CONNECTIONS_PER_USER,
      maxConnectionsPerIp: variables.WS_MAX_CONNECTIONS_PER_IP,
      chatMessagesPerSecond: variables.WS_CHAT_MESSAGES_PER_SECOND,
      maxBufferedBytes: variables.WS_MAX_BUFFERED_BYTES,
    },
    corsOrigins: CORS_ORIGINS.length === 0 ? null : CORS_ORIGINS.includes('*') ? '*' : CORS_ORIGINS,
    corsMaxAgeSeconds: variables.CORS_MAX_AGE,
    sessionCookieSecure: variables.SESSION_COOKIE_SECURE,
    trustProxy: variables.TRUST_PROXY,
    logLevel: variables.LOG_LEVEL ?? (NODE_ENV === 'test' ? 'warn' : 'log'),
    metricsPort: variables.METRICS_PORT ?? null,
    otlpEndpoint: variables.OTEL_EXPORTER_OTLP_ENDPOINT ?? null,
    webhooks: {
      timeoutMs: variables.WEBHOOK_TIMEOUT_MS,
      retryScheduleSeconds: variables.WEBHOOK_RETRY_SCHEDULE.map((item) => parseDuration(item)!),
      allowPrivateNetworks: variables.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      deliveryRetentionSeconds: variables.WEBHOOK_DELIVERY_RETENTION,
    },
    mail: {
      smtpUrl: variables.SMTP_URL ?? null,
      from: variables.MAIL_FROM,
      linkBaseUrl: variables.MAIL_LINK_BASE_URL.replace(/\/+$/, ''),
      attempts: variables.MAIL_SEND_ATTEMPTS,
      retryBackoffMs: variables.MAIL_RETRY_BACKOFF_MS,
    },
    accountTokens: {
      passwordResetTtlSeconds: variables.PASSWORD_RESET_TTL,
      emailVerificationTtlSeconds: variables.EMAIL_VERIFICATION_TTL,
    },
    requireVerifiedEmail: variables.REQUIRE_VERIFIED_EMAIL,
  };
}

/** Validates an environment given as an object (the tests build their configurations this way). */
export function loadConfig(env: Env): AppConfig {
  return toAppConfig(validateEnvironment(env));
}

/**
 * The configuration the service runs with. @nestjs/config reads `.env` from the working directory when it exists,
 * the process environment wins over it, and `validateEnvironment` checks the result; the variables from `.env`
 * are then copied into `process.env` (without overwriting), where libraries that read their own find them.
 */
export async function loadEnvironmentConfig(envFilePath = '.env'): Promise<AppConfig> {
  let variables: EnvironmentVariables | undefined;
  await ConfigModule.forRoot({ envFilePath, validate: (raw) => (variables = validateEnvironment(raw)) });
  return toAppConfig(variables!);
}
