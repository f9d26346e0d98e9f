import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import {
  ApiClient,
  createAccountWithKey,
  e2eMode,
  freeLoopbackPort,
  gradientImage,
  startService,
  type StartedService,
} from '@upscaler/testing';

/**
 * The account dashboard (docs/design.md §4: "account owners manage keys and webhooks from the dashboard, a
 * web page served by the api") in a real browser: Debian's Chromium driven by playwright-core,
 * against a real service over loopback HTTP. Every action is checked twice: on the page, and
 * through the API that the page claims to have changed.
 *
 * Chromium comes from the distribution (`apt-get install -y chromium`), never from a download. On a
 * developer machine without it the suite is skipped; in CI (CI set) a missing browser fails.
 */

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const ALL_SCOPES = ['jobs:read', 'jobs:write', 'keys:read', 'keys:write', 'webhooks:read', 'webhooks:write'];
const KEY_PATTERN = /^usk_[A-Za-z0-9_-]{32}$/;
const STORAGE_KEY = 'upscaler.dashboard.apiKey';
const EXPECTED_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; object-src 'none'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'; trusted-types";

/** The few browser globals the page.evaluate callbacks read (this project compiles without the DOM lib). */
interface Win {
  sessionStorage: { getItem(k: string): string | null };
  localStorage: { length: number };
  document: { cookie: string; getElementById(id: string): { textContent: string | null } | null };
  navigator: { clipboard: { readText(): Promise<string> } };
}

const describeInBrowser = existsSync(CHROMIUM) || process.env.CI ? describe : describe.skip;

describeInBrowser('account dashboard (GET /dashboard) in Chromium', () => {
  let svc: StartedService;
  let context: BrowserContext;
  let profileDir: string;
  let page: Page;
  let owner: { accountId: string; key: string; client: ApiClient; operator: ApiClient };
  /** Every URL the page requested, and the problems it reported (CSP, Trusted Types, script errors). */
  const requested: Array<{ url: string; authorization: string | undefined }> = [];
  const problems: string[] = [];
  let hookUrl: string;

  beforeAll(async () => {
    svc = await startService({
      env: {
        UPSCALE_ALLOW_PRIVATE_NETWORKS: 'true',
        UPSCALE_RATE_LIMIT_PER_MINUTE: '10000',
        // One failed attempt, then a retry an hour later: the delivery log shows exactly one attempt.
        UPSCALE_WEBHOOK_RETRY_SCHEDULE_MS: '3600000',
      },
    });
    owner = await createAccountWithKey(svc.apiUrl, svc.operatorToken, { credits: 1234, scopes: ALL_SCOPES, name: 'Acme Imaging' });
    // Nothing listens there: deliveries fail with no HTTP status, which is what the log should show.
    hookUrl = `https://127.0.0.1:${await freeLoopbackPort()}/hook`;

    profileDir = mkdtempSync(join(tmpdir(), 'upscaler-dashboard-chromium-'));
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 900 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('request', (r) => requested.push({ url: r.url(), authorization: r.headers()['authorization'] }));
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    // Failed loads are judged by their response below (the API's 401/403 are expected in this suite).
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource:')) problems.push(`console: ${m.text()}`);
    });
    page.on('response', (r) => {
      if (r.status() >= 400 && !r.url().startsWith(`${svc.baseUrl}/api/v1/`)) problems.push(`HTTP ${r.status()}: ${r.url()}`);
    });
  });

  afterAll(async () => {
    await context?.close();
    if (profileDir) rmSync(profileDir, { recursive: true, force: true });
    await svc?.stop();
    if (svc && e2eMode() === 'standalone') rmSync(svc.dataDir, { recursive: true, force: true });
  });

  const panel = (name: 'account' | 'keys' | 'webhooks' | 'jobs') => page.locator(`#${name}-panel`);
  const panelError = (name: 'account' | 'keys' | 'webhooks' | 'jobs') => panel(name).locator(':scope > .error');
  /** The text of each cell (textContent: badges and hints run together, as in the DOM). */
  const cells = async (row: Locator) => (await row.locator(':scope > td').allTextContents()).map((t) => t.trim().replace(/\s+/g, ' '));
  const acceptNextDialog = (expected: RegExp) =>
    page.once('dialog', (d) => {
      expect(d.message()).toMatch(expected);
      void d.accept();
    });

  async function openWith(key: string): Promise<void> {
    await page.locator('#api-key').fill(key);
    await page.getByRole('button', { name: 'Open dashboard' }).click();
  }

  it('serves the page, app.js and app.css with a strict CSP, nosniff and no-referrer', async () => {
    for (const [path, type] of [
      ['/dashboard', 'text/html; charset=utf-8'],
      ['/dashboard/app.js', 'text/javascript; charset=utf-8'],
      ['/dashboard/app.css', 'text/css; charset=utf-8'],
      ['/dashboard/favicon.svg', 'image/svg+xml; charset=utf-8'],
    ]) {
      const r = await fetch(`${svc.baseUrl}${path}`);
      expect([path, r.status, r.headers.get('content-type')]).toEqual([path, 200, type]);
      expect(r.headers.get('content-security-policy')).toBe(EXPECTED_CSP);
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('referrer-policy')).toBe('no-referrer');
      expect(r.headers.get('x-frame-options')).toBe('DENY');
      expect([r.headers.get('cache-control'), r.headers.get('etag')]).toEqual(['no-cache', expect.stringMatching(/^W\/"/)]);
    }
    const res = await page.goto(`${svc.baseUrl}/dashboard`);
    expect(res!.status()).toBe(200);
    expect(res!.headers()['content-security-policy']).toBe(EXPECTED_CSP);
    await expect(page.title()).resolves.toBe('Account dashboard · Upscaler');
    expect(await page.locator('#dashboard').isHidden()).toBe(true);
  });

  it('an unknown key answers 401 unauthorized in the form and is not kept', async () => {
    await openWith(`usk_${'x'.repeat(32)}`);
    const error = page.locator('#connect-form > .error');
    await error.waitFor({ state: 'visible' });
    expect(await error.textContent()).toBe(`unauthorized (HTTP 401): ${await apiMessage(401)}`);
    expect(await page.evaluate((k) => (globalThis as unknown as Win).sessionStorage.getItem(k), STORAGE_KEY)).toBeNull();
    expect(await page.locator('#dashboard').isHidden()).toBe(true);
  });

  it('a key with every scope opens the account: exact balance, reserved and charged; the key stays in sessionStorage', async () => {
    await openWith(owner.key);
    await page.locator('#dashboard').waitFor({ state: 'visible' });
    expect(await page.locator('#account-balance').textContent()).toBe('1,234');
    expect(await page.locator('#account-reserved').textContent()).toBe('0');
    expect(await page.locator('#account-charged').textContent()).toBe('0');
    expect(await page.locator('#account-name').textContent()).toBe('Acme Imaging');
    expect(await page.locator('#account-id').textContent()).toBe(owner.accountId);
    expect(await page.locator('#api-key').inputValue()).toBe('');
    expect(await page.evaluate((k) => {
      const w = globalThis as unknown as Win;
      return [w.sessionStorage.getItem(k), w.localStorage.length, w.document.cookie];
    }, STORAGE_KEY)).toEqual([owner.key, 0, '']);
    // The owner's own key is listed, marked as the one this page uses.
    const own = panel('keys').locator('tbody tr', { hasText: owner.key.slice(0, 12) });
    await own.waitFor();
    expect(await cells(own)).toEqual(['test key', `${owner.key.slice(0, 12)}this dashboard`, ALL_SCOPES.join(''), 'default', expect.stringMatching(/ UTC$/), 'active', 'Revoke']);
  });

  let createdKey: string;

  it('creates a key (jobs:read, 120/min): shown once with a copy button and a warning, then listed', async () => {
    const form = page.locator('#key-form');
    await form.getByLabel('Name').fill('ci-reader');
    await form.getByLabel('jobs:read').check();
    await form.getByLabel(/Rate limit per minute/).fill('120');
    await form.getByRole('button', { name: 'Create key' }).click();

    const revealBox = page.locator('#new-key');
    await revealBox.waitFor({ state: 'visible' });
    expect(await revealBox.locator('.warning').textContent()).toBe('Copy this key now: it will not be shown again. Only its prefix is kept.');
    createdKey = await page.locator('#new-key-value').inputValue();
    expect(createdKey).toMatch(KEY_PATTERN);
    await revealBox.getByRole('button', { name: 'Copy' }).click();
    // The clipboard write is asynchronous: wait for the page to report it.
    await page.waitForFunction(
      () => (globalThis as unknown as { document: { querySelector(s: string): { textContent: string | null } | null } }).document.querySelector('#new-key [data-copy-status]')?.textContent === 'Copied to the clipboard.',
      undefined,
      { timeout: 15_000 },
    );
    await expect(revealBox.locator('[data-copy-status]').textContent()).resolves.toBe('Copied to the clipboard.');
    expect(await page.evaluate(() => (globalThis as unknown as Win).navigator.clipboard.readText())).toBe(createdKey);

    // It is a real key of this account, with exactly the scope asked for.
    const fresh = new ApiClient(svc.apiUrl, createdKey);
    const me = await fresh.get('/account');
    expect([me.status, me.body.id]).toEqual([200, owner.accountId]);
    expect((await fresh.get('/api_keys')).body.error.code).toBe('forbidden');

    const row = panel('keys').locator('tbody tr', { hasText: createdKey.slice(0, 12) });
    await row.waitFor();
    expect(await cells(row)).toEqual(['ci-reader', createdKey.slice(0, 12), 'jobs:read', '120 / min', expect.stringMatching(/ UTC$/), 'active', 'Revoke']);

    // Once dismissed, the full key is gone from the page.
    await revealBox.getByRole('button', { name: 'I have stored it, hide it' }).click();
    expect(await revealBox.isHidden()).toBe(true);
    expect(await page.locator('#new-key-value').inputValue()).toBe('');
    expect(await page.content()).not.toContain(createdKey);
  });

  it('revokes the key: marked revoked in the list, and it gets 401 from the API', async () => {
    const row = panel('keys').locator('tbody tr', { hasText: createdKey.slice(0, 12) });
    acceptNextDialog(/^Revoke the key "ci-reader" \(usk_[A-Za-z0-9_-]{8}\)\?/);
    await row.getByRole('button', { name: 'Revoke key ci-reader' }).click();
    await row.locator('.badge', { hasText: 'revoked' }).waitFor();
    const [, , , , , status, actions] = await cells(row);
    expect(status).toMatch(/^revokedsince \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    expect(actions).toBe('');
    expect(await row.getAttribute('class')).toBe('revoked');
    const r = await new ApiClient(svc.apiUrl, createdKey).get('/account');
    expect([r.status, r.body.error.code]).toEqual([401, 'unauthorized']);
  });

  let endpointId: string;

  it('registers a webhook endpoint: the secret shown once, then listed without it', async () => {
    const form = page.locator('#webhook-form');
    await form.getByLabel(/^URL/).fill(hookUrl);
    await form.getByLabel('job.cancelled').uncheck();
    await form.getByLabel(/Description/).fill('dashboard test');
    await form.getByRole('button', { name: 'Add endpoint' }).click();

    const revealBox = page.locator('#new-secret');
    await revealBox.waitFor({ state: 'visible' });
    const secret = await page.locator('#new-secret-value').inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    expect(await revealBox.locator('.warning strong').textContent()).toBe('Copy this secret now: it will not be shown again.');

    const listed = (await owner.client.get('/webhook_endpoints')).body.data;
    expect(listed.map((w: { url: string; events: string[]; status: string }) => [w.url, w.events, w.status])).toEqual([
      [hookUrl, ['job.succeeded', 'job.failed'], 'enabled'],
    ]);
    endpointId = listed[0].id;
    const row = panel('webhooks').locator(`tr[data-webhook-id="${endpointId}"]`);
    await row.waitFor();
    expect(await cells(row)).toEqual([hookUrl, 'job.succeededjob.failed', 'dashboard test', 'enabled', expect.stringMatching(/ UTC$/), 'DeliveriesDelete']);

    await revealBox.getByRole('button', { name: 'I have stored it, hide it' }).click();
    expect(await page.locator('#new-secret-value').inputValue()).toBe('');
    expect(await page.content()).not.toContain(secret);
  });

  let jobId: string;
  let resultBytes: number;

  it('lists a job submitted through the API with its status, target and credits, and links its result', async () => {
    const submitted = await owner.client.upload(await gradientImage(16, 16), { target: '2k', quality: 'fast' }, { filename: 'tiny.png' });
    expect(submitted.status).toBe(202);
    jobId = submitted.body.id;
    const done = await owner.client.waitForFinal(jobId);
    expect(done.status).toBe('succeeded');
    resultBytes = done.result.bytes;

    await panel('jobs').getByRole('button', { name: 'Refresh' }).click();
    const row = panel('jobs').locator(`tr[data-job-id="${jobId}"]`);
    await row.waitFor();
    expect(await cells(row)).toEqual([jobId, 'succeeded', '2k', '3', expect.stringMatching(/ UTC$/), 'Get download link']);

    await row.getByRole('button', { name: `Get a download link for ${jobId}` }).click();
    const link = row.getByRole('link', { name: 'Download' });
    await link.waitFor();
    const href = (await link.getAttribute('href'))!;
    expect(await row.locator('td:last-child .hint').textContent()).toMatch(/, link valid 5 min$/);
    const file = await fetch(href);
    expect([file.status, (await file.arrayBuffer()).byteLength]).toEqual([200, resultBytes]);

    // The account panel follows the ledger: 3 credits charged.
    await panel('account').getByRole('button', { name: 'Refresh' }).click();
    await page.waitForFunction(() => (globalThis as unknown as Win).document.getElementById('account-charged')?.textContent === '3');
    expect(await page.locator('.stats dd:not(.hint)').allTextContents()).toEqual(['1,231', '0', '3']);
  });

  it("shows the endpoint's delivery log: the job.succeeded attempt that got no answer, retrying", async () => {
    // The delivery is made by the webhooks worker after the job succeeded: wait for it through the API.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const log = await owner.client.get(`/webhook_endpoints/${endpointId}/deliveries`);
      if (log.body.data.length > 0) break;
      if (Date.now() > deadline) throw new Error(`no delivery attempt after 60 s: ${log.text}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const row = panel('webhooks').locator(`tr[data-webhook-id="${endpointId}"]`);
    await row.getByRole('button', { name: `Delivery log of ${hookUrl}` }).click();
    const attempt = page.getByRole('region', { name: `Delivery log of ${hookUrl}` }).locator('tbody tr');
    await attempt.waitFor();
    const [attemptedAt, event, job, n, answer, outcome] = await cells(attempt);
    expect([event, job, n]).toEqual(['job.succeeded', jobId, '1']);
    expect(attemptedAt).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    // No HTTP status (nothing listens), the connection error, and the retry an hour later.
    const attempts = (await owner.client.get(`/webhook_endpoints/${endpointId}/deliveries`)).body.data;
    expect(attempts.map((a: { status_code: number | null; outcome: string }) => [a.status_code, a.outcome])).toEqual([[null, 'retrying']]);
    expect(answer).toBe(`no answer${attempts[0].error.replace(/\s+/g, ' ')}`);
    expect(outcome).toBe(`retryingnext ${utc(attempts[0].next_attempt_at)}`);
    expect(attemptedAt).toBe(utc(attempts[0].attempted_at));
    expect(await row.getByRole('button', { name: `Delivery log of ${hookUrl}` }).getAttribute('aria-expanded')).toBe('true');
  });

  it('screenshot of the full dashboard (for a human look; the path is printed)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'upscaler-dashboard-shot-')), 'dashboard.png');
    await page.screenshot({ path: file, fullPage: true });
    console.log(`dashboard screenshot: ${file}`);
    expect(existsSync(file)).toBe(true);
  });

  it('deletes the endpoint: listed as disabled with no delete button; the API agrees', async () => {
    const row = panel('webhooks').locator(`tr[data-webhook-id="${endpointId}"]`);
    acceptNextDialog(new RegExp(`^Delete the endpoint ${hookUrl.replace(/[.]/g, '\\.')}\\?`));
    await row.getByRole('button', { name: `Delete endpoint ${hookUrl}` }).click();
    await row.locator('.badge', { hasText: 'disabled' }).waitFor();
    expect(await row.getByRole('button', { name: `Delete endpoint ${hookUrl}` }).count()).toBe(0);
    expect((await owner.client.get(`/webhook_endpoints/${endpointId}`)).body.status).toBe('disabled');
  });

  it('a key without keys:read shows 403 forbidden in the keys panel while the other panels work', async () => {
    const limited = await owner.operator.post(`/admin/accounts/${owner.accountId}/keys`, { name: 'no keys', scopes: ['jobs:read', 'webhooks:read'] });
    expect(limited.status).toBe(201);
    await page.getByRole('button', { name: 'Forget key' }).click();
    expect(await page.evaluate((k) => (globalThis as unknown as Win).sessionStorage.getItem(k), STORAGE_KEY)).toBeNull();
    expect(await page.locator('#account-balance').textContent()).toBe('–');
    await openWith(limited.body.key);
    await panelError('keys').waitFor({ state: 'visible' });
    expect(await panelError('keys').textContent()).toBe(`forbidden (HTTP 403): ${await apiMessage(403, limited.body.key)}`);
    expect(await panel('keys').locator('.table-wrap').isHidden()).toBe(true);

    await panel('jobs').locator(`tr[data-job-id="${jobId}"]`).waitFor();
    await panel('webhooks').locator(`tr[data-webhook-id="${endpointId}"]`).waitFor();
    expect(await page.locator('#account-balance').textContent()).toBe('1,231');
    for (const name of ['account', 'webhooks', 'jobs'] as const) expect(await panelError(name).isHidden()).toBe(true);
    // Creating a key with it is refused too, in the form.
    await page.locator('#key-form').getByLabel('jobs:read').check();
    await page.locator('#key-form').getByRole('button', { name: 'Create key' }).click();
    const formError = page.locator('#key-form > .error');
    await formError.waitFor({ state: 'visible' });
    expect(await formError.textContent()).toMatch(/^forbidden \(HTTP 403\): /);
  });

  it('the page only ever talked to its own origin, sent the key only to /api/v1, and raised no CSP or script error', () => {
    expect(requested.length).toBeGreaterThan(10);
    const elsewhere = requested.filter((r) => !r.url.startsWith(`${svc.baseUrl}/`));
    expect(elsewhere).toEqual([]);
    const keyed = requested.filter((r) => r.authorization !== undefined);
    expect(keyed.filter((r) => !r.url.startsWith(`${svc.baseUrl}/api/v1/`))).toEqual([]);
    expect(problems).toEqual([]);
  });

  /** How the page writes a timestamp. */
  const utc = (iso: string) => `${new Date(iso).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

  /** The API's own message for a status, read from the API (the page must show it unchanged). */
  async function apiMessage(status: 401 | 403, key = `usk_${'x'.repeat(32)}`): Promise<string> {
    const r = await new ApiClient(svc.apiUrl, key).get('/api_keys');
    expect(r.status).toBe(status);
    return r.body.error.message;
  }
});
