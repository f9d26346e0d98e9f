// Lets a bench script run from TypeScript source: compiles .ts on the fly with @swc/core (devDependency, with
// Nest's decorator metadata) and maps @upscaler/<name> to libs/<name>/src or modules/<name>/src, as jest does. Shared by the bench runners.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const { transformSync } = require('@swc/core');

const repoRoot = path.resolve(__dirname, '..');
require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    sourceMaps: 'inline',
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const m = /^@upscaler\/([a-z0-9-]+)$/.exec(request);
  if (!m) return resolveFilename.call(this, request, ...rest);
  const lib = path.join(repoRoot, 'libs', m[1], 'src', 'index.ts');
  return resolveFilename.call(this, fs.existsSync(lib) ? lib : path.join(repoRoot, 'modules', m[1], 'src', 'index.ts'), ...rest);
};
