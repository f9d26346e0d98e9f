// Runs the gallery's upscales from TypeScript source: `node bench/gallery/run.js <out dir>` (bench/register.js).
'use strict';
const path = require('node:path');
require('../register');
process.argv = [process.argv[0], path.join(__dirname, 'upscale.ts'), ...process.argv.slice(2)];
require(path.join(__dirname, 'upscale.ts'));
