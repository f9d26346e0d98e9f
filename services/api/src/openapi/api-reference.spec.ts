import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { withApiReferenceTables } from './api-reference';
import { openApiDocument } from './openapi.document';

const page = () => readFileSync(join(__dirname, '../../../../docs/api.md'), 'utf8');

describe("docs/api.md's generated tables", () => {
  it('are what the endpoint declarations render (npm run openapi:render rewrites them)', () => {
    const committed = page();
    if (withApiReferenceTables(committed, openApiDocument()) !== committed) {
      throw new Error(
        "docs/api.md's endpoint or scope table differs from the declarations. Re-render with `npm run openapi:render` and commit it.",
      );
    }
  });

  it('list each route once with its access and success statuses, and each scope with what it grants', () => {
    const text = withApiReferenceTables(page(), openApiDocument());
    expect(text).toContain('| `POST /upscale` | `jobs:write` | 200, 202 | Create an upscaling job |');
    expect(text).toContain('| `GET /account` | any valid key | 200 | ');
    expect(text).toContain('| `POST /admin/accounts` | operator token | 201 | Open an account |');
    expect(text).toContain('| `GET /health/ready` | none | 200 | ');
    expect(text).toContain('| `jobs:read` | `GET /jobs`, `GET /jobs/{id}`, `GET /jobs/{id}/result` |');
    expect(text).toContain('| (any valid key) | `GET /account` |');
    expect(text.match(/^\| `GET \/jobs\/\{id\}` \|/gm)).toHaveLength(1);
  });

  it('refuses a page without the markers', () => {
    expect(() => withApiReferenceTables('# API\n', openApiDocument())).toThrow('docs/api.md has no');
  });
});
