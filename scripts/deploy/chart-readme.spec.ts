import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

/**
 * The chart's README documents every value of values.yaml. A value is documented when a table row of the
 * README names it, or an object around it, in its first column; `<component>` stands for api, billing, processor
 * and webhooks. And no row names a value that does not exist.
 */
const CHART = resolve(__dirname, '../../charts/upscaler');
const COMPONENTS = ['api', 'billing', 'processor', 'webhooks'];

/** Leaf paths of the values: scalars, lists and empty objects. */
function leafPaths(value: unknown, path = ''): string[] {
  if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) {
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => leafPaths(v, path ? `${path}.${k}` : k));
  }
  return [path];
}

function documentedPaths(readme: string): string[] {
  return [...readme.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]);
}

/** The README's names for a path: itself, and `<component>.…` for a component's own keys. */
function namesOf(path: string): string[] {
  const [head, ...rest] = path.split('.');
  return COMPONENTS.includes(head) ? [path, ['<component>', ...rest].join('.')] : [path];
}

describe("the chart's README documents every value", () => {
  const values = parse(readFileSync(join(CHART, 'values.yaml'), 'utf8'));
  const documented = documentedPaths(readFileSync(join(CHART, 'README.md'), 'utf8'));
  const leaves = leafPaths(values);

  it('every value of values.yaml has a row (its own or an enclosing object’s)', () => {
    const covered = (path: string) => namesOf(path).some((n) => documented.some((d) => n === d || n.startsWith(`${d}.`)));
    expect(leaves.length).toBeGreaterThan(150);
    expect(leaves.filter((p) => !covered(p))).toEqual([]);
  });

  it('every row names a value that exists', () => {
    const exists = (d: string) =>
      leaves.some((p) => namesOf(p).some((n) => n === d || n.startsWith(`${d}.`))) ||
      // A `<component>` row must hold for each of the four.
      (d.startsWith('<component>.') &&
        COMPONENTS.every((c) => leaves.some((p) => p === d.replace('<component>', c) || p.startsWith(`${d.replace('<component>', c)}.`))));
    const valueRows = documented.filter((d) => /^(<component>|[a-z][A-Za-z]*)(\.[A-Za-z]+)*$/.test(d) && !d.includes(' '));
    expect(valueRows.filter((d) => !exists(d))).toEqual([]);
  });

  it('the check can fail: a value missing from the README is reported', () => {
    const covered = (path: string) => namesOf(path).some((n) => documented.some((d) => n === d || n.startsWith(`${d}.`)));
    expect(covered('metrics.serviceMonitor.undocumentedKnob')).toBe(false);
  });
});
