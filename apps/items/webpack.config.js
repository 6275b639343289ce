// V8's default young generation: items answers every scan the gateway has not cached, and needs no smaller one to fit
// B8's memory goal (101 MB after start-up; docs/benchmarks.md).
module.exports = require('../../tools/webpack/nest-app.config')('items');
