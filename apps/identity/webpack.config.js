// A young generation of 4 MB a semi-space, not V8's 16 (B8: 113 MB after start-up, 99 MB with 4 MB), for about 0.05 ms
// more of scavenges a message's lookup (docs/benchmarks.md, "each service's young generation").
module.exports = require('../../tools/webpack/nest-app.config')('identity', { nodeOptions: ['--max-semi-space-size=4'] });
