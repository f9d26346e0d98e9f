/**
 * docs/api.md's endpoint reference tables, rendered from the OpenAPI document the endpoint declarations generate
 * (openapi.document.ts), so that a route, its scope and its success status are written once, in its declaration.
 * `npm run openapi:render` rewrites the blocks between the markers below; api-reference.spec.ts fails when the
 * committed page differs from a fresh render.
 */

interface Operation {
  summary?: string;
  security?: Array<Record<string, string[]>>;
  responses?: Record<string, unknown>;
}
type Paths = Record<string, Record<string, Operation>>;

const API_PREFIX = '/api/v1';
const METHODS = ['get', 'post', 'patch', 'put', 'delete'] as const;

/** The markers around each generated block in docs/api.md. */
export const GENERATED_BLOCKS = ['endpoints', 'scopes'] as const;
type Block = (typeof GENERATED_BLOCKS)[number];
const start = (block: Block) => `<!-- generated: ${block} (npm run openapi:render, from the endpoint declarations) -->`;
const end = (block: Block) => `<!-- /generated: ${block} -->`;

/** The path as the docs write it: relative to the API's base URL, except the routes outside it (health, pages). */
const shown = (path: string) => (path.startsWith(API_PREFIX + '/') ? path.slice(API_PREFIX.length) : path);

function operations(doc: Record<string, unknown>): Array<{ method: string; path: string; op: Operation }> {
  const paths = doc.paths as Paths;
  return Object.entries(paths).flatMap(([path, ops]) =>
    METHODS.filter((m) => ops[m]).map((m) => ({ method: m.toUpperCase(), path: shown(path), op: ops[m] })),
  );
}

/** Who may call an operation: a key scope, any key, the operator token, or anyone. */
function access(op: Operation): string {
  const requirement = op.security?.[0];
  if (!requirement) return 'none';
  if ('operatorToken' in requirement) return 'operator token';
  const scopes = requirement.apiKey ?? [];
  return scopes.length > 0 ? scopes.map((s) => `\`${s}\``).join(', ') : 'any valid key';
}

function endpointsTable(doc: Record<string, unknown>): string {
  const rows = operations(doc).map(({ method, path, op }) => {
    const success = Object.keys(op.responses ?? {}).filter((status) => /^[23]\d\d$/.test(status));
    return `| \`${method} ${path}\` | ${access(op)} | ${success.join(', ')} | ${op.summary ?? ''} |`;
  });
  return ['| endpoint | access | success | what it does |', '|---|---|---|---|', ...rows].join('\n');
}

function scopesTable(doc: Record<string, unknown>): string {
  const grants = new Map<string, string[]>();
  for (const { method, path, op } of operations(doc)) {
    const requirement = op.security?.[0]?.apiKey;
    if (!requirement) continue;
    const scopes = requirement.length > 0 ? requirement.map((s) => `\`${s}\``) : ['(any valid key)'];
    for (const scope of scopes) grants.set(scope, [...(grants.get(scope) ?? []), `\`${method} ${path}\``]);
  }
  const order = [...grants.keys()].sort((a, b) => Number(a.startsWith('(')) - Number(b.startsWith('(')) || a.localeCompare(b));
  return ['| scope | grants |', '|---|---|', ...order.map((scope) => `| ${scope} | ${grants.get(scope)!.join(', ')} |`)].join('\n');
}

const RENDER: Record<Block, (doc: Record<string, unknown>) => string> = { endpoints: endpointsTable, scopes: scopesTable };

/** `markdown` with each generated block replaced by a fresh render from `doc`; throws when a marker is missing. */
export function withApiReferenceTables(markdown: string, doc: Record<string, unknown>): string {
  let out = markdown;
  for (const block of GENERATED_BLOCKS) {
    const [from, to] = [out.indexOf(start(block)), out.indexOf(end(block))];
    if (from < 0 || to < from) throw new Error(`docs/api.md has no "${start(block)}" ... "${end(block)}" block`);
    out = out.slice(0, from) + `${start(block)}\n${RENDER[block](doc)}\n` + out.slice(to);
  }
  return out;
}
