#!/usr/bin/env node
// The `upscaler` command: the compiled CLI (`npm run build` at the repository root, or `npm run build -w @upscaler/client`).
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const main = join(__dirname, '..', 'dist', 'cli', 'main.js');
if (!existsSync(main)) {
  process.stderr.write(`upscaler: ${main} is missing: run \`npm run build\` in the repository first\n`);
  process.exit(1);
}
require(main)
  .main(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });
