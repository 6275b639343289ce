// A young generation of 4 MB a semi-space, not V8's 16 (B8: 109 MB after start-up, 97 MB with 4 MB), for about 0.15 ms
// more of scavenges a message (docs/benchmarks.md, "each service's young generation").
module.exports = require('../../tools/webpack/nest-app.config')('messaging', { nodeOptions: ['--max-semi-space-size=4'] });
