// Runtime entry of the workspace package: the compiled code lives in the repository's dist/.
module.exports = require('../../dist/libs/config/src/index.js');
