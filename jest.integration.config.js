// Integration tier: real PostgreSQL, NATS and Redis on localhost, isolated per Jest worker.
module.exports = {
  ...require('./tools/jest/preset'),
  displayName: 'integration',
  testMatch: ['<rootDir>/{apps,libs,tests}/**/*.integration-spec.ts'],
  testTimeout: 60_000,
  maxWorkers: 2,
};
