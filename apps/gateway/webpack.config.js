// A young generation of 8 MB a semi-space, not V8's 16 (B8: 108 MB after start-up, 104 MB with 8 MB). Not smaller: the
// gateway answers every scan, and B1 found no cost at 8 MB beyond its swing (docs/benchmarks.md, "each service's young
// generation").
module.exports = require('../../tools/webpack/nest-app.config')('gateway', { nodeOptions: ['--max-semi-space-size=8'] });
