// Lets a bench script run from TypeScript source: compiles .ts on the fly with @swc/core (devDependency, with
// Nest's decorator metadata) and maps @upscaler/<lib> to libs/<lib>/src, as jest does. Shared by the bench runners.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const { transformSync } = require('@swc/core');

const libsRoot = path.resolve(__dirname, '..', 'libs');
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
  return resolveFilename.call(this, m ? path.join(libsRoot, m[1], 'src', 'index.ts') : request, ...rest);
};
