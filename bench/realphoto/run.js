// Runs the real-photo benchmark from TypeScript source: `node bench/realphoto/run.js [args]` (measure.ts says which).
'use strict';
const path = require('node:path');
require('../register');
process.argv = [process.argv[0], path.join(__dirname, 'measure.ts'), ...process.argv.slice(2)];
require(path.join(__dirname, 'measure.ts'));
