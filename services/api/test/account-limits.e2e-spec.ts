import { expectError, newAccount, useJobsService } from './jobs-harness';

/**
 * docs/api.md "Limits": an account has at most UPSCALE_MAX_API_KEYS_PER_ACCOUNT active API keys and
 * UPSCALE_MAX_WEBHOOK_ENDPOINTS_PER_ACCOUNT enabled webhook endpoints; one more answers 409 with a code of
 * its own. Started with small limits (3 keys, 2 endpoints) so the tests stay short.
 */

const jobs = useJobsService({ env: { UPSCALE_MAX_API_KEYS_PER_ACCOUNT: '3', UPSCALE_MAX_WEBHOOK_ENDPOINTS_PER_ACCOUNT: '2' } });

const KEY_SCOPES = ['jobs:read', 'keys:read', 'keys:write', 'webhooks:read', 'webhooks:write'];

describe('API keys per account (UPSCALE_MAX_API_KEYS_PER_ACCOUNT=3)', () => {
  test('the fourth active key answers 409 api_key_limit_reached, from the account and from the operator; nothing is created', async () => {
    const acct = await newAccount(jobs.svc, { scopes: KEY_SCOPES });
    const created = [
      (await acct.client.post('/api_keys', { scopes: ['jobs:read'] })).status,
      (await acct.operator.post(`/admin/accounts/${acct.accountId}/keys`, { scopes: ['jobs:read'] })).status,
    ];
    expect(created).toEqual([201, 201]);
    const self = await acct.client.post('/api_keys', { scopes: ['jobs:read'] });
    expectError(self, 409, 'api_key_limit_reached');
    expect(self.body.error.message).toBe('The account already has 3 active API keys, the most it may have; revoke one first.');
    expectError(
      await acct.operator.post(`/admin/accounts/${acct.accountId}/keys`, { scopes: ['jobs:read'] }),
      409,
      'api_key_limit_reached',
    );
    expect((await acct.client.get('/api_keys')).body.data).toHaveLength(3);
  });

  test('a revoked key does not count: after a revoke the next key is created', async () => {
    const acct = await newAccount(jobs.svc, { scopes: KEY_SCOPES });
    const a = await acct.client.post('/api_keys', { scopes: ['jobs:read'] });
    await acct.client.post('/api_keys', { scopes: ['jobs:read'] });
    expectError(await acct.client.post('/api_keys', { scopes: ['jobs:read'] }), 409, 'api_key_limit_reached');
    expect((await acct.client.delete(`/api_keys/${a.body.id}`)).status).toBe(200);
    const again = await acct.client.post('/api_keys', { scopes: ['jobs:read'] });
    expect(again.status).toBe(201);
    const keys = (await acct.client.get('/api_keys')).body.data as Array<{ revoked_at: string | null }>;
    expect([keys.length, keys.filter((k) => k.revoked_at === null).length]).toEqual([4, 3]);
  });

  test('the limit is per account: a full account does not stop another one', async () => {
    const full = await newAccount(jobs.svc, { scopes: KEY_SCOPES });
    await full.client.post('/api_keys', { scopes: ['jobs:read'] });
    await full.client.post('/api_keys', { scopes: ['jobs:read'] });
    const other = await newAccount(jobs.svc, { scopes: KEY_SCOPES });
    expect((await other.client.post('/api_keys', { scopes: ['jobs:read'] })).status).toBe(201);
  });
});

describe('webhook endpoints per account (UPSCALE_MAX_WEBHOOK_ENDPOINTS_PER_ACCOUNT=2)', () => {
  test('the third enabled endpoint answers 409 webhook_endpoint_limit_reached; a deleted one does not count', async () => {
    const acct = await newAccount(jobs.svc, { scopes: KEY_SCOPES });
    const first = await acct.client.post('/webhook_endpoints', { url: 'https://8.8.8.8/a' });
    const second = await acct.client.post('/webhook_endpoints', { url: 'https://8.8.8.8/b' });
    expect([first.status, second.status]).toEqual([201, 201]);
    const third = await acct.client.post('/webhook_endpoints', { url: 'https://8.8.8.8/c' });
    expectError(third, 409, 'webhook_endpoint_limit_reached');
    expect(third.body.error.message).toBe('The account already has 2 enabled webhook endpoints, the most it may have; delete one first.');
    expect((await acct.client.get('/webhook_endpoints')).body.data).toHaveLength(2);

    expect((await acct.client.delete(`/webhook_endpoints/${first.body.id}`)).status).toBe(200);
    const again = await acct.client.post('/webhook_endpoints', { url: 'https://8.8.8.8/c' });
    expect(again.status).toBe(201);
    const statuses = ((await acct.client.get('/webhook_endpoints')).body.data as Array<{ status: string }>).map((e) => e.status).sort();
    expect(statuses).toEqual(['disabled', 'enabled', 'enabled']);
  });
});
