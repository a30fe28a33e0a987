// The @nestjs packages are ESM only; Jest on Node 20 cannot load them natively, so @swc/jest compiles
// both the project and @nestjs to CommonJS (decorator metadata on) and `.js` suffixes of relative imports are dropped.
const swcOptions = {
  jsc: {
    target: 'es2022',
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
  },
  module: { type: 'commonjs' },
};

const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j|mj)s$': ['@swc/jest', swcOptions] },
  transformIgnorePatterns: ['/node_modules/(?!@nestjs/)'],
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // Tests use the SDK from its sources, so they need no build of it.
    '^@commerce/sdk$': '<rootDir>/packages/sdk/src/index.ts',
  },
};

// These need a Redis server: they run when TEST_REDIS_URL names one (.ci/run sets it), not in a bare `npm test`.
// The outage tests start and kill a redis-server of their own (the binary must be installed).
const needsRedis = [
  '<rootDir>/test/scale-out.e2e-spec.ts',
  '<rootDir>/test/redis.e2e-spec.ts',
  '<rootDir>/test/jobs-redis-outage.e2e-spec.ts',
  '<rootDir>/test/events-redis-outage.e2e-spec.ts',
  '<rootDir>/test/session-cache.e2e-spec.ts',
];
const withoutRedis = !process.env.TEST_REDIS_URL;
// This one runs Prometheus' `promtool` (Debian package `prometheus`), named by TEST_PROMTOOL (.ci/run sets it).
const needsPromtool = ['<rootDir>/test/metrics-promtool.e2e-spec.ts'];
const withoutPromtool = !process.env.TEST_PROMTOOL;
// These run in the MySQL/MariaDB pass (TEST_DATABASE_URL a mysql:// URL, as .ci/run sets it): the tracing test
// starts the service as a process on MySQL, the frozen-database test a MariaDB server of its own, the
// read-replicas test a primary and a replica of its own (mariadb-install-db, mariadbd).
const needsMysql = [
  '<rootDir>/test/tracing.e2e-spec.ts',
  '<rootDir>/test/frozen-database.e2e-spec.ts',
  '<rootDir>/test/read-replicas.e2e-spec.ts',
];
const withoutMysql = !/^(mysql|mariadb):/.test(process.env.TEST_DATABASE_URL ?? '');

module.exports = {
  maxWorkers: 2,
  // End-to-end tests boot the service and run hundreds of requests; on a busy 2-core machine 5 s is too short.
  testTimeout: 60000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: [
        '<rootDir>/src/**/*.spec.ts',
        '<rootDir>/packages/sdk/test/**/*.spec.ts',
        '<rootDir>/packages/admin/test/**/*.spec.ts',
      ],
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      // Fails a test that caused an unexpected lock retry (docs/extending.md#lock-retries).
      setupFilesAfterEnv: ['<rootDir>/test/support/lock-retry-detector.ts'],
      testPathIgnorePatterns: [
        '/node_modules/',
        ...(withoutRedis ? needsRedis : []),
        ...(withoutPromtool ? needsPromtool : []),
        ...(withoutMysql ? needsMysql : []),
      ],
    },
  ],
};

if (withoutRedis) {
  console.warn(
    'TEST_REDIS_URL is not set: the Redis and two-instance tests are not run (.ci/run runs them).',
  );
}
if (withoutPromtool) {
  console.warn('TEST_PROMTOOL is not set: the promtool check of /metrics is not run (.ci/run runs it).');
}
if (withoutMysql) {
  console.warn(
    'TEST_DATABASE_URL is not a mysql:// URL: the tracing, frozen-database and read-replicas tests are not run (.ci/run runs them).',
  );
}
