import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, signWebhook, verifyWebhook } from './webhook-signing';

/** The signature computed from the spec's words alone (docs/design.md §6), without the library. */
function independentSignature(secret: string, id: string, unixSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return 'v1,' + createHmac('sha256', key).update(`${id}.${unixSeconds}.${body}`).digest('base64');
}

describe('Standard Webhooks signing', () => {
  test('the published Standard Webhooks vector (also checked with openssl dgst -hmac)', () => {
    const headers = signWebhook(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      new Date(1614265330 * 1000),
      '{"test": 2432232314}',
    );
    expect(headers).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  test('the signature equals HMAC-SHA256 over "{id}.{timestamp}.{body}" keyed by the decoded secret', () => {
    const secret = generateWebhookSecret();
    const body = JSON.stringify({ type: 'job.succeeded', timestamp: '2025-01-02T03:04:05.678Z', data: { id: 'job_1' } });
    // milliseconds are dropped: the timestamp is whole unix seconds
    const headers = signWebhook(secret, 'evt_01', new Date('2025-01-02T03:04:05.999Z'), body);
    expect(headers['webhook-timestamp']).toBe('1735787045');
    expect(headers['webhook-signature']).toBe(independentSignature(secret, 'evt_01', 1735787045, body));
  });

  test('a fresh signature verifies with the standardwebhooks Webhook class and with verifyWebhook', () => {
    const secret = generateWebhookSecret();
    const body = '{"type":"job.failed"}';
    const headers = signWebhook(secret, 'evt_02', new Date(), body);
    expect(new Webhook(secret).verify(body, headers)).toEqual({ type: 'job.failed' });
    expect(verifyWebhook(secret, headers, body)).toBe(true);
  });

  test('verification fails for another body, another secret, another id or a stale timestamp', () => {
    const secret = generateWebhookSecret();
    const body = '{"type":"job.cancelled"}';
    const headers = signWebhook(secret, 'evt_03', new Date(), body);
    expect(verifyWebhook(secret, headers, body + ' ')).toBe(false);
    expect(verifyWebhook(generateWebhookSecret(), headers, body)).toBe(false);
    expect(verifyWebhook(secret, { ...headers, 'webhook-id': 'evt_04' }, body)).toBe(false);
    const stale = signWebhook(secret, 'evt_03', new Date(Date.now() - 10 * 60_000), body);
    expect(verifyWebhook(secret, stale, body)).toBe(false);
  });

  test('two secrets (a rotation overlap): "v1,<new> v1,<old>", each verifying with the standardwebhooks Webhook class', () => {
    const current = generateWebhookSecret();
    const previous = generateWebhookSecret();
    const body = '{"type":"job.succeeded","timestamp":"2026-01-01T00:00:00.000Z","data":{}}';
    const now = new Date();
    const unix = Math.floor(now.getTime() / 1000);
    const headers = signWebhook([current, previous], 'dlv_0190a1b2c3d47e8f9a0b1c2d3e4f5a70', now, body);
    expect(headers['webhook-signature']).toBe(
      `${independentSignature(current, 'dlv_0190a1b2c3d47e8f9a0b1c2d3e4f5a70', unix, body)} ` +
        independentSignature(previous, 'dlv_0190a1b2c3d47e8f9a0b1c2d3e4f5a70', unix, body),
    );
    // a receiver on the old secret and one already on the new one both accept it; a third secret does not
    expect(new Webhook(current).verify(body, headers)).toEqual({ type: 'job.succeeded', timestamp: '2026-01-01T00:00:00.000Z', data: {} });
    expect(new Webhook(previous).verify(body, headers)).toEqual({ type: 'job.succeeded', timestamp: '2026-01-01T00:00:00.000Z', data: {} });
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow('No matching signature found');
    expect([verifyWebhook(current, headers, body), verifyWebhook(previous, headers, body)]).toEqual([true, true]);
  });

  test('one secret in a list signs exactly as the secret alone; no secret is refused', () => {
    const secret = generateWebhookSecret();
    const at = new Date('2026-01-01T00:00:00.000Z');
    expect(signWebhook([secret], 'evt_05', at, '{}')).toEqual(signWebhook(secret, 'evt_05', at, '{}'));
    expect(() => signWebhook([], 'evt_05', at, '{}')).toThrow('signWebhook needs at least one secret');
  });

  test('a secret is whsec_ and the base64 of 24 random bytes, different each time', () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(24);
    expect(a).not.toBe(b);
  });
});
