#!/usr/bin/env node
// Rewrites docs/openapi.json from the built api (`npm run openapi:render` builds first): the OpenAPI 3.1
// document generated from the zod schemas and route metadata of services/api/src (docs/api.md, "OpenAPI").
'use strict';
const { existsSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const built = join(root, 'dist/services/api/src/openapi/openapi.document.js');
if (!existsSync(built)) {
  console.error(`render-openapi: ${built} is missing; run \`npm run build\` first (or \`npm run openapi:render\`).`);
  process.exit(1);
}
const { renderOpenApiDocument } = require(built);
const out = join(root, 'docs/openapi.json');
writeFileSync(out, renderOpenApiDocument());
console.log(`render-openapi: wrote ${out}`);
