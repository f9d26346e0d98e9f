import { readFileSync } from 'node:fs';
import { printTable } from '../engine/table';

/** A V8 CPU profile as `node --cpu-prof` writes it. */
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: a package, a folder of the repository, Node itself, or V8's own buckets. */
function area(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const repo = /\/((?:libs|services)\/[^/]+)\//.exec(url);
  return repo ? repo[1] : url;
}

/**
 * Prints where the profiled process spent its CPU: time by area with that area's code running (self) and with
 * it anywhere on the stack (inclusive: what the area and everything it called cost), and the top functions.
 */
export function summariseProfile(file: string, top = 20): void {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const fns = new Map<string, number>();
  let total = 0;
  let idle = 0;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    const node = byId.get(id)!;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') {
      idle += dt;
      return;
    }
    total += dt;
    const a = area(url, functionName);
    self.set(a, (self.get(a) ?? 0) + dt);
    const fn = `${functionName || '(anonymous)'} ${url ? `${url.replace(/^.*\/(node_modules|libs|services)\//, '$1/')}:${lineNumber + 1}` : ''}`;
    fns.set(fn, (fns.get(fn) ?? 0) + dt);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at)!.callFrame;
      seen.add(area(f.url, f.functionName));
    }
    for (const s of seen) inclusive.set(s, (inclusive.get(s) ?? 0) + dt);
  });
  const pct = (v: number) => `${((100 * v) / total).toFixed(1)}%`;
  console.log(`busy ${(total / 1e6).toFixed(1)} s, idle ${(idle / 1e6).toFixed(1)} s`);
  printTable(
    ['area', 'self', 'inclusive'],
    [...inclusive.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([a, v]) => [a, pct(self.get(a) ?? 0), pct(v)]),
  );
  console.log('');
  printTable(
    ['function (self time)', 'self'],
    [...fns.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([f, v]) => [f, pct(v)]),
  );
}

// `node bench/api/run.js` loads this too; run alone (`node -r ./bench/register.js bench/api/profile-summary.ts FILE`) it summarises FILE.
if (require.main === module && process.argv[2]) summariseProfile(process.argv[2]);
