// Browser end-to-end tier: the built product as `npm start` runs it (the gateway serving dist/apps/web), driven by
// Debian's Chromium through playwright-core. Screenshots land in tests/web-e2e/test-results/ (git-ignored).
module.exports = {
  ...require('../../tools/jest/preset'),
  displayName: 'web-e2e',
  // A failed test prints what its browser saw (browser.ts, `chromiumForSuite`).
  testEnvironment: '<rootDir>/tests/web-e2e/failure-aware-environment.js',
  testMatch: ['<rootDir>/tests/web-e2e/**/*.web-e2e-spec.ts'],
  globalSetup: '<rootDir>/tests/support/stack-global-setup.ts',
  globalTeardown: '<rootDir>/tests/support/stack-global-teardown.ts',
  testTimeout: 120_000,
  // Two suites at once: one suite, waiting on its stack and on pages, kept about two thirds of a core busy; with pages
  // in Chromium's headless shell two workers took the tier from 448 s to 352 s here (2026-11-28; 561 → 525 s when
  // every page ran the full browser).
  maxWorkers: 2,
};
