import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, describeInChromium, e2eMode, startTarget, type StartedService } from '@upscaler/testing';
import { DOCS_CSP } from '../src/docs/docs.headers';

/**
 * GET /docs, the API reference page, in a real browser (Debian's Chromium driven by playwright-core, as the
 * dashboard suite does): swagger-ui, served by the api from the swagger-ui-dist package, renders the
 * service's own OpenAPI document under the page's policy, and the browser reports no CSP violation, no
 * script error and no request outside the service.
 */

describeInChromium('API reference page (GET /docs) in Chromium', () => {
  let svc: StartedService;
  let context: BrowserContext;
  let profileDir: string;

  beforeAll(async () => {
    svc = await startTarget({});
    profileDir = mkdtempSync(join(tmpdir(), 'upscaler-docs-chromium-'));
    context = await chromium.launchPersistentContext(profileDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  });

  afterAll(async () => {
    await context?.close();
    if (profileDir) rmSync(profileDir, { recursive: true, force: true });
    await svc?.stop();
    if (svc && e2eMode() === 'standalone') rmSync(svc.dataDir, { recursive: true, force: true });
  });

  it('serves the page and its assets with its own policy: scripts and styles from this origin only, no unsafe-inline or unsafe-eval', async () => {
    for (const [path, type] of [
      ['/docs', 'text/html'],
      ['/docs/swagger-ui-bundle.js', 'text/javascript'],
      ['/docs/swagger-ui.css', 'text/css'],
      ['/docs/start.js', 'text/javascript'],
    ]) {
      const res = await fetch(`${svc.baseUrl}${path}`);
      expect([path, res.status, res.headers.get('content-type')?.split(';')[0]]).toEqual([path, 200, type]);
      expect([path, res.headers.get('content-security-policy'), res.headers.get('x-content-type-options')]).toEqual([
        path,
        DOCS_CSP,
        'nosniff',
      ]);
    }
    expect(DOCS_CSP).toContain("script-src 'self';");
    expect(DOCS_CSP).toContain("style-src 'self';");
    expect(DOCS_CSP).not.toMatch(/unsafe-|https?:/);
  });

  it('renders the operations of /api/v1/openapi.json, with no CSP violation, script error or outside request', async () => {
    const page = await context.newPage();
    const problems: string[] = [];
    const outside: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || /Content Security Policy|Trusted Type/i.test(m.text())) problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('request', (r) => {
      if (!r.url().startsWith(svc.baseUrl) && !r.url().startsWith('data:')) outside.push(r.url());
    });
    await page.goto(`${svc.baseUrl}/docs`);
    const create = page.locator('#operations-Jobs-createJob');
    await create.waitFor({ timeout: 30_000 });
    expect(await create.locator('.opblock-summary-path').first().textContent()).toContain('/api/v1/upscale');
    expect(await page.locator('.opblock').count()).toBeGreaterThan(25);
    // an operation opens: its description and responses come from the schemas' prose
    await create.locator('.opblock-summary').first().click();
    await page.getByText('Idempotent replay: the original job').first().waitFor({ timeout: 10_000 });
    expect(await page.locator('.try-out__btn').count()).toBe(0);
    await page.waitForTimeout(500);
    expect(problems).toEqual([]);
    expect(outside).toEqual([]);
    await page.close();
  });
});
