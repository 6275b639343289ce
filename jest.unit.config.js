// Unit tier: *.spec.ts beside the code, no I/O.
module.exports = { ...require('./tools/jest/preset'), displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,tests,tools}/**/*.spec.ts'] };
