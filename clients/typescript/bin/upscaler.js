#!/usr/bin/env node
// The `upscaler` command: the compiled CLI (npm run build -w @upscaler/client builds it).
'use strict';
require('../dist/cli/main.js')
  .main(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });
