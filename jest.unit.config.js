// Unit tier: *.spec.ts beside the code, no I/O. Two workers: Jest's default on two cores is one.
module.exports = { ...require('./tools/jest/preset'), displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,tests,tools}/**/*.spec.ts'], maxWorkers: 2 };
