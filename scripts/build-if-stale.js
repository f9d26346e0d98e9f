#!/usr/bin/env node
// `npm start` builds only when a source changed since the last build (a full build takes about a minute; a restart
// with nothing changed should not). `npm run build` ends with `--stamp`, which records the build's time in
// dist/.build-stamp; without it, this builds when any input below is newer than the stamp (or there is none).
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const STAMP = path.join(ROOT, 'dist', '.build-stamp');
/** What the build reads: every workspace's sources, the dashboard, the configs, the lock file, the OpenAPI document. */
const INPUTS = [
  'libs',
  'modules',
  'services',
  'clients/typescript/src',
  'clients/typescript/package.json',
  'package.json',
  'package-lock.json',
  'tsconfig.base.json',
  'tsconfig.build.json',
  'docs/openapi.json',
];
const SKIP = new Set(['node_modules', 'dist', 'test', 'generated', '.venv']);

/** The newest modification time (ms) under `p`, skipping tests and outputs; 0 when `p` does not exist. */
function newestMtime(p) {
  let st;
  try {
    st = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = 0;
  for (const entry of fs.readdirSync(p)) {
    if (SKIP.has(entry) || entry.endsWith('.spec.ts')) continue;
    newest = Math.max(newest, newestMtime(path.join(p, entry)));
  }
  return newest;
}

/** Whether a build is needed: no stamp, no standalone entry point, or an input newer than the stamp. */
function isStale(root = ROOT) {
  const stamp = path.join(root, 'dist', '.build-stamp');
  if (!fs.existsSync(stamp) || !fs.existsSync(path.join(root, 'dist', 'services', 'standalone', 'src', 'main.js'))) return true;
  const built = fs.statSync(stamp).mtimeMs;
  return INPUTS.some((input) => newestMtime(path.join(root, input)) > built);
}

/** Runs `npm run build` when the build is stale; true when it built. */
function ensureBuilt() {
  if (!isStale()) return false;
  process.stdout.write('a source is newer than the build (dist/.build-stamp): npm run build\n');
  execFileSync('npm', ['run', '-s', 'build'], { cwd: ROOT, stdio: 'inherit' });
  return true;
}

module.exports = { ensureBuilt, isStale, newestMtime };

if (require.main === module) {
  if (process.argv.includes('--stamp')) {
    fs.mkdirSync(path.dirname(STAMP), { recursive: true });
    fs.writeFileSync(STAMP, `${new Date().toISOString()}\n`);
  } else if (!ensureBuilt()) {
    process.stdout.write('build is up to date (no source newer than dist/.build-stamp); starting\n');
  }
}
