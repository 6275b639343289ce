// V8's default young generation: the gateway answers every scan and poll, and a smaller one costs them scavenges (at
// 8 MB a semi-space, garbage collection went from 12 % to 18 % of an uncached scan's gateway CPU, and 4 % to 7 % of a
// cached one's) for 3 MB of memory (docs/benchmarks.md, "each service's young generation").
module.exports = require('../../tools/webpack/nest-app.config')('gateway');
