import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { signWebhook } from '@upscaler/client';
import {
  CHROMIUM,
  CHROMIUM_ARGS,
  createAccountWithKey,
  e2eMode,
  gradientImage,
  haveChromium,
  REPO_ROOT,
  startTarget,
  type StartedService,
} from '@upscaler/testing';

/**
 * The SDK's browser entry (src/index.ts, what bundlers pick through the "browser" condition) in Chromium against a
 * real standalone: bundled by esbuild for the browser platform (a Node module anywhere in it fails the bundle),
 * loaded into a page of the service's own origin, and driven from the page: upscale a Blob with wait, download
 * the result and decode it, a typed error, webhook verification with WebCrypto.
 *
 * Chromium comes from the distribution (`apt-get install -y chromium`), as for the dashboard suite: without it the
 * suite is skipped, unless CI is set; so it is without esbuild (a root devDependency, for the dashboard's build).
 */

const haveBrowser = haveChromium();
/** esbuild, the repository's bundler (the dashboard's build), loaded only here. */
type Esbuild = { build(options: object): Promise<{ outputFiles: Array<{ text: string }> }> };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const esbuild = (): Esbuild => require('esbuild') as Esbuild;
const haveEsbuild = (() => {
  try {
    require.resolve('esbuild');
    return true;
  } catch {
    return false;
  }
})();
// In the distributed mode the signed link points at MinIO, another origin without CORS for this page.
const describeBrowser = haveBrowser && haveEsbuild && e2eMode() === 'standalone' ? describe : describe.skip;

describeBrowser('@upscaler/client in Chromium', () => {
  let svc: StartedService;
  let profileDir: string;
  let context: BrowserContext;
  let page: Page;
  let key: string;

  beforeAll(async () => {
    svc = await startTarget({ env: { UPSCALE_RATE_LIMIT_PER_MINUTE: '10000', UPSCALE_DEFAULT_QUALITY: 'fast' } });
    key = (await createAccountWithKey(svc.apiUrl, svc.operatorToken, { credits: 50, scopes: ['jobs:read', 'jobs:write'] })).key;
    const bundle = await esbuild().build({
      entryPoints: [join(REPO_ROOT, 'clients', 'typescript', 'src', 'index.ts')],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      globalName: 'UpscalerSDK',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
    });
    profileDir = mkdtempSync(join(tmpdir(), 'upscaler-sdk-chromium-'));
    context = await chromium.launchPersistentContext(profileDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    page = context.pages()[0] ?? (await context.newPage());
    // A page of the service's origin (no CSP on the health route), so the API and the signed links are same-origin.
    await page.goto(`${svc.baseUrl}/health/live`);
    await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
  });

  afterAll(async () => {
    await context?.close();
    if (profileDir) rmSync(profileDir, { recursive: true, force: true });
    await svc?.stop();
    if (svc) rmSync(svc.dataDir, { recursive: true, force: true });
  });

  it('upscales a Blob with wait, downloads the result as a stream and decodes it at twice the size', async () => {
    const png = await gradientImage(30, 20, 'png');
    const out = await page.evaluate(
      async ({ apiKey, bytes }) => {
        const { Upscaler } = (globalThis as any).UpscalerSDK;
        const client = new Upscaler({ apiKey, baseUrl: `${(globalThis as any).location.origin}/api/v1` });
        const job = await client.upscale(new Blob([new Uint8Array(bytes)], { type: 'image/png' }), {
          target: '2k',
          format: 'webp',
          filename: 'in.png',
          wait: true,
        });
        const d = await client.download(job);
        const blob = await new Response(d.body).blob();
        const bitmap = await (globalThis as any).createImageBitmap(blob);
        const account = await client.account();
        return {
          status: job.status,
          target: job.target,
          bytes: blob.size,
          announced: job.result.bytes,
          type: d.contentType,
          w: bitmap.width,
          h: bitmap.height,
          charged: account.charged,
        };
      },
      { apiKey: key, bytes: [...png] },
    );
    expect(out).toEqual({
      status: 'succeeded',
      target: '2k',
      bytes: out.announced,
      announced: out.announced,
      type: 'image/webp',
      w: 60,
      h: 40,
      charged: 3,
    });
  });

  it('throws typed errors by code, and verifies a webhook signature with WebCrypto', async () => {
    const secret = `whsec_${Buffer.alloc(24, 9).toString('base64')}`;
    const body = JSON.stringify({
      type: 'job.succeeded',
      timestamp: new Date().toISOString(),
      data: { id: 'job_1', object: 'job', status: 'succeeded' },
    });
    const ts = String(Math.floor(Date.now() / 1000));
    const signature = await signWebhook(secret, 'dlv_1', ts, body);
    const out = await page.evaluate(
      async ({ secret, body, ts, signature }) => {
        const { Upscaler, AuthenticationError, verifyWebhook } = (globalThis as any).UpscalerSDK;
        const bad = new Upscaler({
          apiKey: 'usk_notakeyatallnotakeyatallnotakey',
          baseUrl: `${(globalThis as any).location.origin}/api/v1`,
        });
        const e = await bad.account().catch((x: any) => x);
        const headers = { 'webhook-id': 'dlv_1', 'webhook-timestamp': ts, 'webhook-signature': signature };
        const event = await verifyWebhook(secret, headers, body);
        const forged = await verifyWebhook(secret, headers, body.replace('job_1', 'job_2')).catch((x: any) => x.name);
        return { typed: e instanceof AuthenticationError, code: e.code, status: e.status, type: event.type, forged };
      },
      { secret, body, ts, signature },
    );
    expect(out).toEqual({ typed: true, code: 'unauthorized', status: 401, type: 'job.succeeded', forged: 'WebhookVerificationError' });
  });
});
