// A young generation of 2 MB a semi-space, not V8's 16: the start-up's survivors grow the default to its whole 32 MB,
// which this I/O-bound service then keeps (B8: 125 MB after start-up, 104 MB with 2 MB); the scavenges it adds cost a
// message a few tens of microseconds against the milliseconds of its mail (docs/benchmarks.md).
module.exports = require('../../tools/webpack/nest-app.config')('notifications', { nodeOptions: ['--max-semi-space-size=2'] });
