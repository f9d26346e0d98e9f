#!/usr/bin/env node
// Rewrites docs/openapi.json from the built api (`npm run openapi:render` builds first): the OpenAPI 3.1
// document generated from the zod schemas and endpoint declarations (docs/api.md, "OpenAPI"); and docs/api.md's
// generated tables (its endpoint list and scope table, services/api/src/openapi/api-reference.ts) from that document.
'use strict';
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const built = join(root, 'dist/services/api/src/openapi');
if (!existsSync(join(built, 'api-reference.js'))) {
  console.error(`render-openapi: ${built} is missing or stale; run \`npm run build\` first (or \`npm run openapi:render\`).`);
  process.exit(1);
}
const { renderOpenApiDocument, openApiDocument } = require(join(built, 'openapi.document.js'));
const { withApiReferenceTables } = require(join(built, 'api-reference.js'));
const out = join(root, 'docs/openapi.json');
writeFileSync(out, renderOpenApiDocument());
console.log(`render-openapi: wrote ${out}`);
const page = join(root, 'docs/api.md');
writeFileSync(page, withApiReferenceTables(readFileSync(page, 'utf8'), openApiDocument()));
console.log(`render-openapi: wrote the generated tables of ${page}`);
