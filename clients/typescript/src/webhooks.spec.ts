import { Webhook } from 'standardwebhooks';
import { WebhookVerificationError } from './errors';
import { signWebhook, verifyWebhook } from './webhooks';

const secret = `whsec_${Buffer.from('a test secret of thirty-two byte').toString('base64')}`;
const other = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
const body = JSON.stringify({
  type: 'job.succeeded',
  timestamp: '2026-01-01T00:00:04.000Z',
  data: { id: 'job_1', object: 'job', status: 'succeeded' },
});
const now = Date.UTC(2026, 0, 1, 0, 0, 5);
const ts = String(Math.floor(now / 1000));

describe('verifyWebhook (Standard Webhooks, docs/api.md "Signing")', () => {
  it('accepts what the standardwebhooks package signs, and the package accepts what signWebhook signs', async () => {
    const theirs = new Webhook(secret).sign('dlv_1', new Date(now), body);
    const headers = { 'webhook-id': 'dlv_1', 'webhook-timestamp': ts, 'webhook-signature': theirs };
    await expect(verifyWebhook(secret, headers, body, { now })).resolves.toEqual(JSON.parse(body));
    const ours = await signWebhook(secret, 'dlv_1', ts, body);
    expect(ours).toBe(theirs);
  });

  it('accepts any one of several signatures, and any one of several secrets (a rotation)', async () => {
    const good = await signWebhook(secret, 'dlv_1', ts, body);
    const stale = await signWebhook(other, 'dlv_1', ts, body);
    const headers = new Headers({ 'webhook-id': 'dlv_1', 'webhook-timestamp': ts, 'webhook-signature': `${stale} ${good}` });
    await expect(verifyWebhook(secret, headers, new TextEncoder().encode(body), { now })).resolves.toMatchObject({ type: 'job.succeeded' });
    const onlyOld = { 'webhook-id': 'dlv_1', 'webhook-timestamp': ts, 'webhook-signature': stale };
    await expect(verifyWebhook([secret, other], onlyOld, body, { now })).resolves.toMatchObject({ type: 'job.succeeded' });
  });

  it.each([
    ['a changed body', (h: Record<string, string>) => [h, body.replace('job_1', 'job_2')] as const],
    ['another id', (h: Record<string, string>) => [{ ...h, 'webhook-id': 'dlv_2' }, body] as const],
    [
      'a v2 signature only',
      (h: Record<string, string>) => [{ ...h, 'webhook-signature': h['webhook-signature']!.replace('v1,', 'v2,') }, body] as const,
    ],
    ['no signature', (h: Record<string, string>) => [{ 'webhook-id': h['webhook-id']!, 'webhook-timestamp': ts }, body] as const],
    ['a timestamp that is not a number', (h: Record<string, string>) => [{ ...h, 'webhook-timestamp': 'yesterday' }, body] as const],
  ])('refuses %s', async (_, change) => {
    const h = { 'webhook-id': 'dlv_1', 'webhook-timestamp': ts, 'webhook-signature': await signWebhook(secret, 'dlv_1', ts, body) };
    const [headers, payload] = change(h);
    await expect(verifyWebhook(secret, headers, payload, { now })).rejects.toThrow(WebhookVerificationError);
  });

  it('refuses a timestamp more than the tolerance from now, either way', async () => {
    const h = { 'webhook-id': 'dlv_1', 'webhook-timestamp': ts, 'webhook-signature': await signWebhook(secret, 'dlv_1', ts, body) };
    await expect(verifyWebhook(secret, h, body, { now: now + 300_000 })).resolves.toBeDefined();
    await expect(verifyWebhook(secret, h, body, { now: now + 301_000 })).rejects.toThrow(/more than 300 s/);
    await expect(verifyWebhook(secret, h, body, { now: now - 301_000 })).rejects.toThrow(/more than 300 s/);
    await expect(verifyWebhook(secret, h, body, { now: now + 3_600_000, toleranceSeconds: 7200 })).resolves.toBeDefined();
  });
});
