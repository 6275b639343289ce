// Integration tier: real PostgreSQL, NATS and Redis on localhost, isolated per Jest worker.
module.exports = {
  ...require('./tools/jest/preset'),
  displayName: 'integration',
  testMatch: ['<rootDir>/{apps,libs,tests}/**/*.integration-spec.ts'],
  globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
  globalTeardown: '<rootDir>/libs/testing/src/global-teardown.ts',
  testTimeout: 60_000,
  maxWorkers: 2,
};
