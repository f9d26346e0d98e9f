import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';

/**
 * The browser entry (package.json "browser" and the exports' "browser" condition: dist/index.js) must reach no
 * Node module: everything it imports, transitively, is read here and checked.
 */
function reachable(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  // The generated types (made by the build) import nothing: not read, so this runs before a build too.
  if (file.endsWith(join('generated', 'openapi.ts'))) return seen;
  const source = readFileSync(file, 'utf8');
  for (const m of source.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/gms)) {
    const spec = m[1]!;
    if (spec.startsWith('.')) reachable(resolve(dirname(file), `${spec}.ts`), seen);
    else seen.add(spec);
  }
  return seen;
}

describe('browser entry', () => {
  it('imports no Node built-in and no package, only its own files', () => {
    const all = [...reachable(join(__dirname, 'index.ts'))];
    const external = all.filter((s) => !s.endsWith('.ts'));
    expect(external.filter((s) => s.startsWith('node:') || builtinModules.includes(s))).toEqual([]);
    expect(external).toEqual([]);
    expect(all.map((f) => f.slice(__dirname.length + 1)).sort()).toEqual([
      'api-error.ts',
      'client.ts',
      'errors.ts',
      'generated/error-classes.ts',
      'generated/openapi.ts',
      'http.ts',
      'index.ts',
      'input.ts',
      'types.ts',
      'webhooks.ts',
    ]);
  });
});
