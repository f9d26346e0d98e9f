import { Script } from 'node:vm';
import { SCOPES, WEBHOOK_EVENT_TYPES } from '@upscaler/contracts';
import { DASHBOARD_JS } from './assets/app.js';
import { dashboardPage } from './assets/page.html';
import { DASHBOARD_CSP } from './dashboard.headers';

/**
 * The dashboard's static assets, checked without a browser (the browser test is
 * services/api/test/dashboard.e2e-spec.ts): the script parses, writes no HTML from strings, and the
 * page needs nothing the CSP forbids.
 */
describe('dashboard assets', () => {
  const html = dashboardPage();

  it('app.js is one valid script', () => {
    expect(() => new Script(DASHBOARD_JS, { filename: 'app.js' })).not.toThrow();
  });

  it.each(['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'document.write', 'eval(', 'new Function', 'localStorage'])(
    'app.js never uses %s (values go in with textContent; the key stays in sessionStorage)',
    (sink) => {
      expect(DASHBOARD_JS.includes(sink)).toBe(false);
    },
  );

  it('app.js calls fetch in one place only, with a path under this origin’s /api/v1', () => {
    expect(DASHBOARD_JS.match(/fetch\(/g)).toEqual(['fetch(']);
    expect(DASHBOARD_JS).toContain("fetch(API_BASE + path, init)");
    expect(DASHBOARD_JS).toContain("const API_BASE = '/api/v1';");
  });

  it('the page has no inline script, style or event handler, and loads app.js and app.css from /dashboard', () => {
    expect(html.match(/<script[^>]*>/g)).toEqual(['<script src="/dashboard/app.js" defer>']);
    expect(html).toMatch(/<script src="\/dashboard\/app\.js" defer><\/script>/);
    expect(html.match(/<link[^>]*>/g)).toEqual([
      '<link rel="icon" href="/dashboard/favicon.svg" type="image/svg+xml">',
      '<link rel="stylesheet" href="/dashboard/app.css">',
    ]);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=|javascript:/i);
  });

  it('offers a checkbox for every scope and every webhook event type', () => {
    const values = (name: string) => [...html.matchAll(new RegExp(`name="${name}" value="([^"]+)"`, 'g'))].map((m) => m[1]);
    expect(values('key-scope')).toEqual([...SCOPES]);
    expect(values('webhook-event')).toEqual([...WEBHOOK_EVENT_TYPES]);
  });

  it('every input has a label', () => {
    const ids = [...html.matchAll(/<input[^>]*\sid="([^"]+)"/g)].map((m) => m[1]);
    const labelled = [...html.matchAll(/<label[^>]*\sfor="([^"]+)"/g)].map((m) => m[1]);
    expect(ids.length).toBe(SCOPES.length + WEBHOOK_EVENT_TYPES.length + 7);
    expect(labelled.sort()).toEqual([...ids].sort());
  });

  it('the CSP allows only this origin for scripts, styles and fetches, and no framing', () => {
    const directives = Object.fromEntries(DASHBOARD_CSP.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));
    expect(directives).toEqual({
      'default-src': "'self'",
      'script-src': "'self'",
      'style-src': "'self'",
      'img-src': "'self'",
      'connect-src': "'self'",
      'object-src': "'none'",
      'base-uri': "'none'",
      'form-action': "'none'",
      'frame-ancestors': "'none'",
      'require-trusted-types-for': "'script'",
      'trusted-types': '',
    });
  });
});
