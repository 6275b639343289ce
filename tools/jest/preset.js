// Shared Jest settings: SWC compiles TypeScript with decorator metadata, as the build does.
const fs = require('node:fs');
const path = require('node:path');

const swc = JSON.parse(fs.readFileSync(path.join(__dirname, '../../.swcrc'), 'utf8'));
delete swc.$schema;

module.exports = {
  rootDir: path.join(__dirname, '../..'),
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest', { ...swc, swcrc: false }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/dist/', '<rootDir>/apps/web/'],
};
