import { createHmac } from 'node:crypto';
import { rmSync } from 'node:fs';
import {
  ApiClient,
  e2eMode,
  startTarget,
  startSuiteReceiver,
  waitFor,
  type StartedService,
  type TestCa,
  type WebhookReceiver,
} from '@upscaler/testing';

/**
 * The shared preamble of the webhooks end-to-end suites (webhooks*.e2e-spec.ts): a service that delivers to a
 * loopback HTTPS receiver whose certificate comes from a test CA the service trusts (NODE_EXTRA_CA_CERTS), with
 * private addresses allowed, a short retry schedule and `fast` as the default tier; started before the file's
 * tests and stopped after. Read `hooks.svc` / `hooks.receiver` inside tests and hooks (set in beforeAll).
 */

/** Retries 200, 400 and 800 ms after a failed attempt instead of minutes. */
export const RETRY_SCHEDULE_MS = [200, 400, 800];
export const ALL_SCOPES = ['jobs:read', 'jobs:write', 'keys:read', 'keys:write', 'webhooks:read', 'webhooks:write'];

export interface WebhooksService {
  svc: StartedService;
  receiver: WebhookReceiver;
}

export function useWebhooksService(env: Record<string, string> = {}): WebhooksService {
  const hooks = {} as WebhooksService & { ca: Pick<TestCa, 'cert' | 'key' | 'caPath' | 'cleanup'> };
  beforeAll(async () => {
    // In cluster mode the receiver listens where pods reach it, with a certificate of the cluster's CA.
    ({ ca: hooks.ca, receiver: hooks.receiver } = await startSuiteReceiver());
    hooks.svc = await startTarget({
      env: {
        NODE_EXTRA_CA_CERTS: hooks.ca.caPath,
        UPSCALE_ALLOW_PRIVATE_NETWORKS: 'true',
        UPSCALE_WEBHOOK_RETRY_SCHEDULE_MS: RETRY_SCHEDULE_MS.join(','),
        UPSCALE_RATE_LIMIT_PER_MINUTE: '10000',
        UPSCALE_DEFAULT_QUALITY: 'fast',
        ...env,
      },
    });
  });
  afterAll(async () => {
    await hooks.svc?.stop();
    await hooks.receiver?.close();
    hooks.ca?.cleanup();
    // the harness made the data dir (standalone mode): remove it
    if (hooks.svc && e2eMode() === 'standalone') rmSync(hooks.svc.dataDir, { recursive: true, force: true });
  });
  return hooks;
}

/** Submits an image (fast tier) and returns the job id. */
export async function submit(client: ApiClient, image: Buffer, fields: Record<string, string> = {}): Promise<string> {
  const r = await client.upload(image, { quality: 'fast', ...fields });
  if (r.status !== 202) throw new Error(`submit: ${r.status} ${r.text}`);
  return r.body.id;
}

/** The endpoint's delivery log, once its newest attempt matching `which` reached a final outcome (not retrying). */
export async function finalAttempts(client: ApiClient, endpointId: string, which: (attempt: any) => boolean, what: string): Promise<any[]> {
  return waitFor(`${what} to end`, async () => {
    const r = await client.get(`/webhook_endpoints/${endpointId}/deliveries`);
    expect(r.status).toBe(200);
    const mine = (r.body.data as any[]).filter(which);
    return mine.length > 0 && mine[0].outcome !== 'retrying' ? mine : undefined;
  });
}

/** docs/api.md "Signing", from its words alone: v1, + base64 HMAC-SHA256 over "{id}.{timestamp}.{body}" keyed by the secret's base64 part. */
export function expectedSignature(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return 'v1,' + createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
}
