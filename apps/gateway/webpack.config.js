// A young generation of 8 MB a semi-space, not V8's 16 (B8: 108 MB after start-up, 104 MB with 8 MB); not smaller, since
// the gateway answers every scan and each halving adds scavenges to it (docs/benchmarks.md).
module.exports = require('../../tools/webpack/nest-app.config')('gateway', { nodeOptions: ['--max-semi-space-size=8'] });
