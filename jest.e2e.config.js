// API end-to-end tier: the built services as processes, driven over HTTP. Two workers, each starting its stacks in
// its own schemas, NATS namespace, Redis keys and port slice: over half of the tier's time is stacks starting, which
// with one worker leaves the second core idle (389 s with one worker, 288 s with two, 2026-11-26). The browser tier
// runs two as well (tests/web-e2e/jest.config.js).
module.exports = {
  ...require('./tools/jest/preset'),
  displayName: 'e2e',
  testMatch: ['<rootDir>/tests/{e2e,security}/**/*.e2e-spec.ts'],
  globalSetup: '<rootDir>/tests/support/stack-global-setup.ts',
  globalTeardown: '<rootDir>/tests/support/stack-global-teardown.ts',
  testTimeout: 120_000,
  maxWorkers: 2,
};
