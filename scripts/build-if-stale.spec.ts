import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { isStale } = require('./build-if-stale.js') as { isStale: (root: string) => boolean };

/** `npm start` rebuilds only when a source is newer than the last build's stamp (scripts/build-if-stale.js). */
describe('build-if-stale', () => {
  let root: string;
  const file = (rel: string, mtimeSec: number) => {
    const p = join(root, rel);
    mkdirSync(join(p, '..'), { recursive: true });
    writeFileSync(p, 'x');
    utimesSync(p, mtimeSec, mtimeSec);
  };
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'build-if-stale-'));
    file('libs/a/src/a.ts', 1_000);
    file('dist/services/standalone/src/main.js', 2_000);
    file('dist/.build-stamp', 2_000);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('up to date: nothing newer than the stamp', () => {
    expect(isStale(root)).toBe(false);
  });
  it('a source changed after the build: stale', () => {
    file('services/api/src/b.ts', 3_000);
    expect(isStale(root)).toBe(true);
  });
  it('a test or a spec changed: still up to date (the build does not read them)', () => {
    file('libs/a/src/a.spec.ts', 3_000);
    file('libs/a/test/x.int-spec.ts', 3_000);
    expect(isStale(root)).toBe(false);
  });
  it('no stamp, or no built entry point: stale', () => {
    rmSync(join(root, 'dist/.build-stamp'));
    expect(isStale(root)).toBe(true);
  });
});
