// Runs a TypeScript bench script from source: `node bench/engine/run.js speed [args]`. Compiles .ts on the fly
// with @swc/core (devDependency) and maps @upscaler/<lib> to libs/<lib>/src, as jest does.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const { transformSync } = require('@swc/core');

const libsRoot = path.resolve(__dirname, '..', '..', 'libs');
require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    sourceMaps: 'inline',
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const m = /^@upscaler\/([a-z0-9-]+)$/.exec(request);
  return resolveFilename.call(this, m ? path.join(libsRoot, m[1], 'src', 'index.ts') : request, ...rest);
};

const [name, ...args] = process.argv.slice(2);
if (!name) {
  console.error('usage: node bench/engine/run.js <speed|quality|memory|avif> [args]');
  process.exit(2);
}
process.argv = [process.argv[0], path.join(__dirname, `${name}.ts`), ...args];
require(path.join(__dirname, `${name}.ts`));
