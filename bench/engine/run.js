// Runs a TypeScript bench script from source: `node bench/engine/run.js speed [args]` (bench/register.js).
'use strict';
const path = require('node:path');
require('../register');
// The benches compare against the converted UpscalerJS networks, which the install does not make: convert them now
// (cached by content hash, instant when up to date).
require('../../scripts/convert-models').ensureConverted();

const [name, ...args] = process.argv.slice(2);
if (!name) {
  console.error('usage: node bench/engine/run.js <speed|quality|memory|avif|tiers> [args]');
  process.exit(2);
}
process.argv = [process.argv[0], path.join(__dirname, `${name}.ts`), ...args];
require(path.join(__dirname, `${name}.ts`));
