import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderOpenApiDocument } from './openapi.document';

/** docs/openapi.json is the generated document, committed: CI fails when it differs from a fresh render. */
test('docs/openapi.json is the document the schemas generate', () => {
  const path = join(__dirname, '../../../../docs/openapi.json');
  const committed = readFileSync(path, 'utf8');
  const fresh = renderOpenApiDocument();
  if (committed !== fresh) {
    throw new Error(
      'docs/openapi.json differs from the document the schemas generate. Re-render it with `npm run openapi:render` and commit it.',
    );
  }
});
