// A young generation of 4 MB a semi-space, not V8's 16 (B8: 113 MB after start-up, 99 MB with 4 MB); identity's requests
// are few and bound by PostgreSQL and argon2 (docs/benchmarks.md).
module.exports = require('../../tools/webpack/nest-app.config')('identity', { nodeOptions: ['--max-semi-space-size=4'] });
