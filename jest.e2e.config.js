// API end-to-end tier: the built services as processes, driven over HTTP.
module.exports = {
  ...require('./tools/jest/preset'),
  displayName: 'e2e',
  testMatch: ['<rootDir>/tests/{e2e,security}/**/*.e2e-spec.ts'],
  globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
  globalTeardown: '<rootDir>/libs/testing/src/global-teardown.ts',
  testTimeout: 120_000,
  maxWorkers: 1,
};
