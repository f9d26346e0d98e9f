import { rmSync } from 'node:fs';
import { ApiClient, createAccountWithKey, e2eMode, startService, type StartedService } from '@upscaler/testing';

/**
 * API key self-service (docs/design.md §6 "Account self-service"; spec 5): POST/GET/DELETE /api_keys with a
 * `usk_` key holding keys:write / keys:read, for the caller's own account only, and GET /account.
 */

const ALL_SCOPES = ['jobs:read', 'jobs:write', 'keys:read', 'keys:write', 'webhooks:read', 'webhooks:write'];
const KEY_PATTERN = /^usk_[A-Za-z0-9_-]{32}$/;

let svc: StartedService;

beforeAll(async () => {
  svc = await startService({ env: { UPSCALE_RATE_LIMIT_PER_MINUTE: '10000' } });
});

afterAll(async () => {
  await svc?.stop();
  // The harness made the data dir (standalone mode): remove it.
  if (svc && e2eMode() === 'standalone') rmSync(svc.dataDir, { recursive: true, force: true });
});

const account = (scopes = ALL_SCOPES, credits = 50) => createAccountWithKey(svc.apiUrl, svc.operatorToken, { scopes, credits });

describe('POST /api_keys', () => {
  it('answers 201 with the key in full once; the new key works for its scopes on the same account', async () => {
    const { client, accountId } = await account();
    const r = await client.post('/api_keys', { name: 'ci', scopes: ['jobs:read'] });
    expect(r.status).toBe(201);
    const { id, key, prefix, created_at, ...rest } = r.body;
    expect(id).toMatch(/^key_/);
    expect(key).toMatch(KEY_PATTERN);
    expect(key.startsWith(prefix)).toBe(true);
    expect(prefix).toMatch(/^usk_/);
    expect(prefix.length).toBeLessThan(key.length);
    expect(Number.isNaN(Date.parse(created_at))).toBe(false);
    expect(rest).toEqual({ object: 'api_key', name: 'ci', scopes: ['jobs:read'], rate_limit_per_minute: null, revoked_at: null });

    const fresh = client.withToken(key);
    const me = await fresh.get('/account');
    expect([me.status, me.body.id]).toEqual([200, accountId]);
    expect((await fresh.get('/jobs')).status).toBe(200);
    // jobs:read only: creating a job or listing keys is forbidden.
    const list = await fresh.get('/api_keys');
    expect([list.status, list.body.error.code]).toEqual([403, 'forbidden']);
  });

  it('every creation makes a different key', async () => {
    const { client } = await account();
    const a = await client.post('/api_keys', { scopes: ['jobs:read'] });
    const b = await client.post('/api_keys', { scopes: ['jobs:read'] });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.key).not.toBe(b.body.key);
    expect(a.body.id).not.toBe(b.body.id);
    expect(a.body.name).toBeNull();
  });

  it.each([
    ['no scopes', { scopes: [] }],
    ['scopes missing', { name: 'x' }],
    ['an unknown scope', { scopes: ['jobs:read', 'admin'] }],
    ['scopes not a list', { scopes: 'jobs:read' }],
    ['an empty name', { name: ' ', scopes: ['jobs:read'] }],
    ['rate_limit_per_minute 0', { scopes: ['jobs:read'], rate_limit_per_minute: 0 }],
    ['rate_limit_per_minute not an integer', { scopes: ['jobs:read'], rate_limit_per_minute: 1.5 }],
  ])('%s: 400 invalid_request, nothing created', async (_, body) => {
    const { client } = await account();
    const r = await client.post('/api_keys', body);
    expect([r.status, r.body.error.code]).toEqual([400, 'invalid_request']);
    expect((await client.get('/api_keys')).body.data).toHaveLength(1);
  });
});

describe('a key cannot create a key stronger than itself', () => {
  it('scopes it lacks are refused with 403 forbidden; a subset of its own is fine', async () => {
    const { client, accountId, operator } = await account(['keys:read', 'keys:write', 'jobs:read']);
    const r = await client.post('/api_keys', { scopes: ['jobs:read', 'jobs:write'] });
    expect([r.status, r.body.error.code]).toEqual([403, 'forbidden']);
    expect(r.body.error.message).toContain('jobs:write');
    const w = await client.post('/api_keys', { scopes: ['webhooks:write'] });
    expect([w.status, w.body.error.code]).toEqual([403, 'forbidden']);
    expect((await client.get('/api_keys')).body.data).toHaveLength(1);
    const ok = await client.post('/api_keys', { scopes: ['jobs:read', 'keys:read'] });
    expect([ok.status, ok.body.scopes]).toEqual([201, ['jobs:read', 'keys:read']]);
    // The operator is not bound by this.
    const op = await operator.post(`/admin/accounts/${accountId}/keys`, { scopes: ALL_SCOPES });
    expect(op.status).toBe(201);
  });

  it('a rate limit above its own is refused (403); unset, the new key gets the creating key\'s limit', async () => {
    const { accountId, operator } = await account();
    const made = await operator.post(`/admin/accounts/${accountId}/keys`, { scopes: ['keys:read', 'keys:write', 'jobs:read'], rate_limit_per_minute: 500 });
    const limited = new ApiClient(svc.apiUrl, made.body.key);
    const higher = await limited.post('/api_keys', { scopes: ['jobs:read'], rate_limit_per_minute: 501 });
    expect([higher.status, higher.body.error.code]).toEqual([403, 'forbidden']);
    const same = await limited.post('/api_keys', { scopes: ['jobs:read'], rate_limit_per_minute: 500 });
    const lower = await limited.post('/api_keys', { scopes: ['jobs:read'], rate_limit_per_minute: 20 });
    const unset = await limited.post('/api_keys', { scopes: ['jobs:read'] });
    expect([same.status, same.body.rate_limit_per_minute]).toEqual([201, 500]);
    expect([lower.status, lower.body.rate_limit_per_minute]).toEqual([201, 20]);
    expect([unset.status, unset.body.rate_limit_per_minute]).toEqual([201, 500]);
    const r = await new ApiClient(svc.apiUrl, unset.body.key).get('/account');
    expect(r.headers.get('x-ratelimit-limit')).toBe('500');
  });

  it('a key on the default limit may not set a higher one, and may set a lower one', async () => {
    const { client } = await account();
    // This standalone runs with UPSCALE_RATE_LIMIT_PER_MINUTE=10000, the highest a key may have.
    const lower = await client.post('/api_keys', { scopes: ['jobs:read'], rate_limit_per_minute: 9_999 });
    expect([lower.status, lower.body.rate_limit_per_minute]).toEqual([201, 9_999]);
    const unset = await client.post('/api_keys', { scopes: ['jobs:read'] });
    expect([unset.status, unset.body.rate_limit_per_minute]).toEqual([201, null]);
    const over = await client.post('/api_keys', { scopes: ['jobs:read'], rate_limit_per_minute: 10_001 });
    expect([over.status, over.body.error.code]).toEqual([400, 'invalid_request']);
  });
});

describe('GET /api_keys', () => {
  it("lists the account's keys newest first with their prefix, never the secret or hash", async () => {
    const { client, keyId, key: ownKey } = await account();
    const made = await client.post('/api_keys', { name: 'second', scopes: ['webhooks:read', 'jobs:read'] });
    const list = await client.get('/api_keys');
    expect(list.status).toBe(200);
    expect(list.body.object).toBe('list');
    expect(list.body.has_more).toBe(false);
    expect(list.body.data.map((k: any) => k.id)).toEqual([made.body.id, keyId]);
    const { key: _secret, ...madeWithoutKey } = made.body;
    expect(list.body.data[0]).toEqual(madeWithoutKey);
    expect(list.body.data[1]).toMatchObject({ id: keyId, object: 'api_key', prefix: ownKey.slice(0, list.body.data[1].prefix.length), revoked_at: null });
    expect(ownKey.startsWith(list.body.data[1].prefix)).toBe(true);
    for (const k of list.body.data) expect(Object.keys(k)).not.toContain('key');
    expect(list.text).not.toContain(made.body.key);
    expect(list.text).not.toContain(ownKey);
  });

  it("does not show another account's keys", async () => {
    const a = await account();
    const b = await account();
    await a.client.post('/api_keys', { scopes: ['jobs:read'] });
    const list = await b.client.get('/api_keys');
    expect(list.body.data.map((k: any) => k.id)).toEqual([b.keyId]);
  });
});

describe('DELETE /api_keys/{id}', () => {
  it('revokes: 200 with revoked_at; the key then gets 401 unauthorized everywhere; revoking again is 200', async () => {
    const { client } = await account();
    const made = await client.post('/api_keys', { scopes: ALL_SCOPES });
    const victim = client.withToken(made.body.key);
    expect((await victim.get('/account')).status).toBe(200);

    const del = await client.delete(`/api_keys/${made.body.id}`);
    expect(del.status).toBe(200);
    const { key: _secret, revoked_at: _was, ...unchanged } = made.body;
    expect(del.body).toEqual({ ...unchanged, revoked_at: del.body.revoked_at });
    expect(Number.isNaN(Date.parse(del.body.revoked_at))).toBe(false);

    for (const r of [await victim.get('/account'), await victim.get('/jobs'), await victim.get('/api_keys'), await victim.get('/webhook_endpoints')]) {
      expect([r.status, r.body.error.code]).toEqual([401, 'unauthorized']);
    }
    const again = await client.delete(`/api_keys/${made.body.id}`);
    expect([again.status, again.body.revoked_at]).toEqual([200, del.body.revoked_at]);
    // The list keeps it, revoked.
    const listed = (await client.get('/api_keys')).body.data.find((k: any) => k.id === made.body.id);
    expect(listed.revoked_at).toBe(del.body.revoked_at);
  });

  it('a key may revoke itself, and is refused from then on', async () => {
    const { client, keyId } = await account();
    const del = await client.delete(`/api_keys/${keyId}`);
    expect([del.status, del.body.id]).toEqual([200, keyId]);
    const after = await client.get('/account');
    expect([after.status, after.body.error.code]).toEqual([401, 'unauthorized']);
  });

  it("another account's key is 404 not_found, and stays usable", async () => {
    const a = await account();
    const b = await account();
    const del = await b.client.delete(`/api_keys/${a.keyId}`);
    expect([del.status, del.body.error.code]).toEqual([404, 'not_found']);
    expect((await a.client.get('/account')).status).toBe(200);
    for (const id of ['key_00000000000000000000000000000000', 'nonsense']) {
      const r = await b.client.delete(`/api_keys/${id}`);
      expect([id, r.status, r.body.error.code]).toEqual([id, 404, 'not_found']);
    }
  });
});

describe('scopes', () => {
  it('keys:write is needed to create and revoke, keys:read to list (403 forbidden)', async () => {
    const owner = await account();
    const readOnly = (await account(['keys:read'])).client;
    const writeOnly = (await account(['keys:write'])).client;
    const jobsOnly = (await account(['jobs:read', 'jobs:write'])).client;

    for (const c of [readOnly, jobsOnly]) {
      const p = await c.post('/api_keys', { scopes: ['jobs:read'] });
      expect([p.status, p.body.error.code]).toEqual([403, 'forbidden']);
      const d = await c.delete(`/api_keys/${owner.keyId}`);
      expect([d.status, d.body.error.code]).toEqual([403, 'forbidden']);
    }
    for (const c of [writeOnly, jobsOnly]) {
      const g = await c.get('/api_keys');
      expect([g.status, g.body.error.code]).toEqual([403, 'forbidden']);
    }
    expect((await readOnly.get('/api_keys')).status).toBe(200);
    expect((await owner.client.get('/account')).status).toBe(200);
  });

  it('a missing, malformed or unknown key is 401 unauthorized', async () => {
    const anon = new ApiClient(svc.apiUrl);
    const variants: Array<Record<string, string>> = [{}, { authorization: 'Bearer nope' }, { authorization: `Bearer usk_${'A'.repeat(32)}` }, { authorization: `Basic ${'x'}` }];
    for (const headers of variants) {
      for (const path of ['/api_keys', '/account']) {
        const r = await anon.get(path, headers);
        expect([path, r.status, r.body.error.code]).toEqual([path, 401, 'unauthorized']);
      }
    }
  });

  it('the operator token is not an API key (401)', async () => {
    const asOperator = new ApiClient(svc.apiUrl, svc.operatorToken);
    for (const r of [await asOperator.get('/account'), await asOperator.get('/api_keys'), await asOperator.post('/api_keys', { scopes: ['jobs:read'] })]) {
      expect([r.status, r.body.error.code]).toEqual([401, 'unauthorized']);
    }
  });
});

describe('GET /account', () => {
  it.each([['jobs:read'], ['webhooks:write'], ['keys:read']])('works with any valid key (here one with only %s)', async (scope) => {
    const { client, accountId } = await account([scope], 42);
    const r = await client.get('/account');
    expect(r.status).toBe(200);
    const { created_at, ...rest } = r.body;
    expect(rest).toEqual({ id: accountId, object: 'account', name: 'test account', balance: 42, reserved: 0, charged: 0 });
    expect(Number.isNaN(Date.parse(created_at))).toBe(false);
  });
});
