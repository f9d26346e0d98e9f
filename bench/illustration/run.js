// Runs the illustration bench from TypeScript source (bench/register.js):
//   node bench/illustration/run.js measure [out dir]   (bench/illustration/run.sh runs it, then judge.py)
'use strict';
const path = require('node:path');
require('../register');

const [name, ...args] = process.argv.slice(2);
if (name !== 'measure') {
  console.error('usage: node bench/illustration/run.js measure [out dir]');
  process.exit(2);
}
// animevideov3 is not made by the install (no tier runs it): convert it now (cached by content hash).
require('../../scripts/convert-ncnn/convert-realesrgan')
  .convertRealesrgan({ modelsDir: process.env.UPSCALE_MODELS_DIR || undefined })
  .then(() => {
    process.argv = [process.argv[0], path.join(__dirname, `${name}.ts`), ...args];
    require(path.join(__dirname, `${name}.ts`));
  })
  .catch((err) => {
    console.error(err);
    process.exit(1);
  });
