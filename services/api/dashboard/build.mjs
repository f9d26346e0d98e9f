// Builds the dashboard (docs/dashboard.md): type-checks src/ (strict, DOM lib), bundles src/main.ts with
// esbuild into one script, and copies the page, stylesheet and icon beside it, into
// dist/services/api/dashboard/, which the api reads once at start (src/dashboard/dashboard.controller.ts).
// Run by the root `npm run build`; `node services/api/dashboard/build.mjs --watch` rebuilds on change.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');
const out = join(root, 'dist/services/api/dashboard');
const watch = process.argv.includes('--watch');

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(here, 'tsconfig.json')], { stdio: 'inherit' });

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
for (const file of ['index.html', 'app.css', 'favicon.svg']) copyFileSync(join(here, file), join(out, file));

/** @type {import('esbuild').BuildOptions} */
const options = {
  entryPoints: [join(here, 'src/main.ts')],
  outfile: join(out, 'app.js'),
  bundle: true,
  format: 'iife',
  platform: 'browser',
  // The browsers of the last two years: Trusted Types, CSS aspect-ratio and :focus-visible are older still.
  target: ['chrome111', 'firefox111', 'safari16.4'],
  // Not minified: what the browser runs stays readable (about 50 KB; the page is not on a hot path).
  minify: false,
  legalComments: 'none',
  logLevel: 'warning',
  charset: 'utf8',
};

if (watch) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
  console.log(`dashboard: watching, output in ${out}`);
} else {
  await esbuild.build(options);
}
