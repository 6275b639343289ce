// A young generation of 2 MB a semi-space, not V8's 16: the start-up's survivors grow the default to its whole 32 MB,
// which the process keeps until it is quiet (B8: 125 MB after start-up, 104 MB with 2 MB). The price is scavenges, about
// 0.4 ms more a message, paid per message, of which a lost-and-found service has few (docs/benchmarks.md, "each
// service's young generation"); an operator's NODE_OPTIONS overrides it.
module.exports = require('../../tools/webpack/nest-app.config')('notifications', { nodeOptions: ['--max-semi-space-size=2'] });
