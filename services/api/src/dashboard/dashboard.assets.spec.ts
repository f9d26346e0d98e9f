import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { STORAGE_ORIGIN_META } from './dashboard.controller';
import { DASHBOARD_CSP, dashboardCsp } from './dashboard.headers';

/**
 * The dashboard's sources (services/api/dashboard), checked without a browser (the browser test is
 * services/api/test/dashboard.e2e-spec.ts): the script writes no HTML from strings and talks only to
 * this origin, and the page needs nothing the CSP forbids.
 */
const DIR = join(__dirname, '..', '..', 'dashboard');
const html = readFileSync(join(DIR, 'index.html'), 'utf8');
const sources = readdirSync(join(DIR, 'src'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => ({ file: f, text: readFileSync(join(DIR, 'src', f), 'utf8') }));

describe('dashboard sources', () => {
  it.each([
    'innerHTML',
    'outerHTML',
    'insertAdjacentHTML',
    'document.write',
    'eval(',
    'new Function',
    'localStorage',
    "setAttribute('style'",
    'cssText',
  ])('the script never uses %s (values go in with textContent; styles through the CSSOM; the key stays in sessionStorage)', (sink) => {
    expect(sources.filter((s) => s.text.includes(sink)).map((s) => s.file)).toEqual([]);
  });

  it('fetch is called in api.ts only: once with a path under /api/v1, once for a signed file (this origin or the object store)', () => {
    expect(sources.filter((s) => /\bfetch\(/.test(s.text)).map((s) => s.file)).toEqual(['api.ts']);
    const api = sources.find((s) => s.file === 'api.ts')!.text;
    expect(api.match(/\bfetch\(/g)).toHaveLength(2);
    expect(api).toContain('fetch(API_BASE + path, {');
    expect(api).toContain("export const API_BASE = '/api/v1';");
    expect(api.replace(/\s+/g, ' ')).toContain(
      "fetch(own ? url.pathname + url.search : url.href, { cache: 'no-store', credentials: 'omit',",
    );
    // a signed file elsewhere only on the object store's origin, which the api names in the page
    expect(api).toContain('if (!own && url.origin !== storageOrigin()) return null;');
  });

  it('the page has no inline script, style or event handler, and loads app.js and app.css from /dashboard', () => {
    expect(html.match(/<script[^>]*>/g)).toEqual(['<script src="/dashboard/app.js" defer>']);
    expect(html).toMatch(/<script src="\/dashboard\/app\.js" defer><\/script>/);
    expect(html.match(/<link[^>]*>/g)).toEqual([
      '<link rel="icon" href="/dashboard/favicon.svg" type="image/svg+xml" />',
      '<link rel="stylesheet" href="/dashboard/app.css" />',
    ]);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=|javascript:/i);
    // the empty storage-origin <meta> the api fills at start (exactly once)
    expect(html.split(STORAGE_ORIGIN_META)).toHaveLength(2);
  });

  it('every input and select of the page has a label', () => {
    const ids = [...html.matchAll(/<(?:input|select)[^>]*\sid="([^"]+)"/g)].map((m) => m[1]);
    const labelled = [...html.matchAll(/<label[^>]*\sfor="([^"]+)"/g)].map((m) => m[1]);
    expect(ids.length).toBe(17);
    expect(labelled.sort()).toEqual([...ids].sort());
  });

  it('the CSP allows only this origin for scripts, styles and fetches, images also from blob: URLs, and no framing', () => {
    const directives = Object.fromEntries(DASHBOARD_CSP.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));
    expect(directives).toEqual({
      'default-src': "'self'",
      'script-src': "'self'",
      'style-src': "'self'",
      'img-src': "'self' blob:",
      'connect-src': "'self'",
      'object-src': "'none'",
      'base-uri': "'none'",
      'form-action': "'none'",
      'frame-ancestors': "'none'",
      'require-trusted-types-for': "'script'",
      'trusted-types': '',
    });
  });

  it('in distributed mode the CSP lets the page fetch and show images from the object store as well, and nothing else changes', () => {
    const withStore = dashboardCsp('http://minio.example:9000').split('; ');
    const storeDirectives = (d: string) => d.startsWith('connect-src') || d.startsWith('img-src');
    expect(withStore.filter(storeDirectives)).toEqual([
      "img-src 'self' blob: http://minio.example:9000",
      "connect-src 'self' http://minio.example:9000",
    ]);
    expect(withStore.filter((d) => !storeDirectives(d))).toEqual(DASHBOARD_CSP.split('; ').filter((d) => !storeDirectives(d)));
  });
});
