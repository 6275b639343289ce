// Reliability tier: faults on private nats-server, redis-server and PostgreSQL started by the harness
// (tests/fault/harness), the built services as supervised processes. One suite at a time: each kills things.
// `npm run test:fault` (small sizes, also part of `npm test`); `npm run test:fault -- --full` for the full sizes.
module.exports = {
  ...require('./tools/jest/preset'),
  displayName: 'fault',
  testMatch: ['<rootDir>/tests/fault/**/*.fault-spec.ts'],
  testTimeout: 60 * 60_000,
  maxWorkers: 1,
};
