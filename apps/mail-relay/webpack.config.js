module.exports = require('../../tools/webpack/nest-app.config')('mail-relay');
