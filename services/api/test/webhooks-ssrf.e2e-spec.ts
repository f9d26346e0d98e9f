import { rmSync } from 'node:fs';
import { createAccountWithKey, e2eMode, startTarget, type StartedService } from '@upscaler/testing';

/**
 * Webhook URLs under the SSRF guard with its default setting (docs/design.md §4 "Webhooks": the same guard as
 * image URLs; docs/design.md §6: UPSCALE_ALLOW_PRIVATE_NETWORKS defaults to false). A standalone of its own,
 * started without the switch.
 */

let svc: StartedService;

beforeAll(async () => {
  svc = await startTarget({ env: { UPSCALE_ALLOW_PRIVATE_NETWORKS: undefined } });
});

afterAll(async () => {
  await svc?.stop();
  // The harness made the data dir (standalone mode): remove it.
  if (svc && e2eMode() === 'standalone') rmSync(svc.dataDir, { recursive: true, force: true });
});

describe('webhook URLs without UPSCALE_ALLOW_PRIVATE_NETWORKS', () => {
  it.each([
    ['loopback IPv4', 'https://127.0.0.1:8443/hook'],
    ['a name that resolves to loopback', 'https://localhost:8443/hook'],
    ['loopback IPv6', 'https://[::1]:8443/hook'],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/hook'],
    ['a private address', 'https://10.1.2.3/hook'],
    ['another private address', 'https://192.168.0.10/hook'],
    ['the cloud metadata address', 'https://169.254.169.254/latest/meta-data'],
    ['carrier-grade NAT', 'https://100.64.0.1/hook'],
    ['unspecified', 'https://0.0.0.0/hook'],
    ['plain http', 'http://example.com/hook'],
  ])('%s (%s) is refused with 400 invalid_request', async (_, url) => {
    const { client } = await createAccountWithKey(svc.apiUrl, svc.operatorToken, { scopes: ['webhooks:read', 'webhooks:write'] });
    const r = await client.post('/webhook_endpoints', { url });
    expect([r.status, r.body.error.code]).toEqual([400, 'invalid_request']);
    expect((await client.get('/webhook_endpoints')).body.data).toEqual([]);
  });

  it('the refusal of a name says it resolves to a non-public address, never which one (no oracle of internal DNS)', async () => {
    const { client } = await createAccountWithKey(svc.apiUrl, svc.operatorToken, { scopes: ['webhooks:read', 'webhooks:write'] });
    const r = await client.post('/webhook_endpoints', { url: 'https://localhost:8443/hook' });
    expect([r.status, r.body.error]).toEqual([
      400,
      { code: 'invalid_request', message: 'url host localhost resolves to a non-public address.' },
    ]);
  });

  it('a public address is accepted (the guard refuses ranges, not everything)', async () => {
    const { client } = await createAccountWithKey(svc.apiUrl, svc.operatorToken, { scopes: ['webhooks:read', 'webhooks:write'] });
    const r = await client.post('/webhook_endpoints', { url: 'https://8.8.8.8/hook' });
    expect([r.status, r.body.url, r.body.status]).toEqual([201, 'https://8.8.8.8/hook', 'enabled']);
  });
});
