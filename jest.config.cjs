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
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
};

// These need a Redis server: they run when TEST_REDIS_URL names one (.ci/run sets it), not in a bare `npm test`.
const needsRedis = ['<rootDir>/test/scale-out.e2e-spec.ts', '<rootDir>/test/redis.e2e-spec.ts'];
const withoutRedis = !process.env.TEST_REDIS_URL;
// These start a MariaDB server of their own (mariadb-install-db, mariadbd): they run in the MariaDB pass
// (TEST_DATABASE_URL set, as .ci/run does), not in a bare `npm test`.
const needsMariadbBinaries = ['<rootDir>/test/frozen-database.e2e-spec.ts'];
const withoutMariadb = !process.env.TEST_DATABASE_URL;

module.exports = {
  maxWorkers: 2,
  // End-to-end tests boot the service and run hundreds of requests; on a busy 2-core machine 5 s is too short.
  testTimeout: 60000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      testPathIgnorePatterns: [
        '/node_modules/',
        ...(withoutRedis ? needsRedis : []),
        ...(withoutMariadb ? needsMariadbBinaries : []),
      ],
    },
  ],
};

if (withoutRedis) {
  console.warn(
    'TEST_REDIS_URL is not set: the Redis and two-instance tests are not run (.ci/run runs them).',
  );
}
