import { rmSync } from 'node:fs';
import { Upscaler, UpscalerApiError, type ApiKeyCreate } from '@upscaler/client';
import { ApiClient, createAccountWithKey, e2eMode, startTarget, type StartedService } from '@upscaler/testing';

/**
 * API key self-service (docs/design.md §6 "Account self-service"; spec 5): POST/GET/DELETE /api_keys with a
 * `usk_` key holding keys:write / keys:read, for the caller's own account only, and GET /account. The calls go
 * through the TypeScript SDK (@upscaler/client), as an integrator's would; the operator set-up and the raw
 * Authorization header variants use the plain test client.
 */

const ALL_SCOPES = ['jobs:read', 'jobs:write', 'keys:read', 'keys:write', 'webhooks:read', 'webhooks:write'];
const KEY_PATTERN = /^usk_[A-Za-z0-9_-]{32}$/;

let svc: StartedService;

beforeAll(async () => {
  svc = await startTarget({ env: { UPSCALE_RATE_LIMIT_PER_MINUTE: '10000' } });
});

afterAll(async () => {
  await svc?.stop();
  // The harness made the data dir (standalone mode): remove it.
  if (svc && e2eMode() === 'standalone') rmSync(svc.dataDir, { recursive: true, force: true });
});

const sdk = (key: string) => new Upscaler({ apiKey: key, baseUrl: svc.apiUrl });
const account = async (scopes = ALL_SCOPES, credits = 50) => {
  const made = await createAccountWithKey(svc.apiUrl, svc.operatorToken, { scopes, credits });
  return { ...made, sdk: sdk(made.key) };
};

/** [status, code] of the API error a call ends in (it must end in one). */
async function refusal(call: Promise<unknown>): Promise<[number, string]> {
  const e = await call.then(
    () => new Error('the call succeeded; an error answer was expected'),
    (err: unknown) => err,
  );
  if (!(e instanceof UpscalerApiError)) throw e;
  return [e.status, e.code];
}

describe('POST /api_keys', () => {
  it('answers 201 with the key in full once; the new key works for its scopes on the same account', async () => {
    const { sdk: client, accountId } = await account();
    const made = await client.createApiKey({ name: 'ci', scopes: ['jobs:read'] });
    const { id, key, prefix, created_at, ...rest } = made;
    expect(id).toMatch(/^key_/);
    expect(key).toMatch(KEY_PATTERN);
    expect(key.startsWith(prefix)).toBe(true);
    expect(prefix).toMatch(/^usk_/);
    expect(prefix.length).toBeLessThan(key.length);
    expect(Number.isNaN(Date.parse(created_at))).toBe(false);
    expect(rest).toEqual({ object: 'api_key', name: 'ci', scopes: ['jobs:read'], rate_limit_per_minute: null, revoked_at: null });

    const fresh = sdk(key);
    expect((await fresh.account()).id).toBe(accountId);
    expect((await fresh.listJobs()).object).toBe('list');
    // jobs:read only: creating a job or listing keys is forbidden.
    expect(await refusal(fresh.listApiKeys())).toEqual([403, 'forbidden']);
  });

  it('every creation makes a different key', async () => {
    const { sdk: client } = await account();
    const a = await client.createApiKey({ scopes: ['jobs:read'] });
    const b = await client.createApiKey({ scopes: ['jobs:read'] });
    expect(a.key).not.toBe(b.key);
    expect(a.id).not.toBe(b.id);
    expect(a.name).toBeNull();
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
    const { sdk: client } = await account();
    // Bodies the SDK's types would refuse, sent anyway: the service must refuse them too.
    expect(await refusal(client.createApiKey(body as unknown as ApiKeyCreate))).toEqual([400, 'invalid_request']);
    expect((await client.listApiKeys()).data).toHaveLength(1);
  });
});

describe('a key cannot create a key stronger than itself', () => {
  it('scopes it lacks are refused with 403 forbidden; a subset of its own is fine', async () => {
    const { sdk: client, accountId, operator } = await account(['keys:read', 'keys:write', 'jobs:read']);
    const e = await client.createApiKey({ scopes: ['jobs:read', 'jobs:write'] }).catch((err: unknown) => err);
    expect(e).toMatchObject({ status: 403, code: 'forbidden' });
    expect((e as Error).message).toContain('jobs:write');
    expect(await refusal(client.createApiKey({ scopes: ['webhooks:write'] }))).toEqual([403, 'forbidden']);
    expect((await client.listApiKeys()).data).toHaveLength(1);
    const ok = await client.createApiKey({ scopes: ['jobs:read', 'keys:read'] });
    expect(ok.scopes).toEqual(['jobs:read', 'keys:read']);
    // The operator is not bound by this.
    const op = await operator.post(`/admin/accounts/${accountId}/keys`, { scopes: ALL_SCOPES });
    expect(op.status).toBe(201);
  });

  it("a rate limit above its own is refused (403); unset, the new key gets the creating key's limit", async () => {
    const { accountId, operator } = await account();
    const made = await operator.post(`/admin/accounts/${accountId}/keys`, {
      scopes: ['keys:read', 'keys:write', 'jobs:read'],
      rate_limit_per_minute: 500,
    });
    const limited = sdk(made.body.key);
    expect(await refusal(limited.createApiKey({ scopes: ['jobs:read'], rate_limit_per_minute: 501 }))).toEqual([403, 'forbidden']);
    const same = await limited.createApiKey({ scopes: ['jobs:read'], rate_limit_per_minute: 500 });
    const lower = await limited.createApiKey({ scopes: ['jobs:read'], rate_limit_per_minute: 20 });
    const unset = await limited.createApiKey({ scopes: ['jobs:read'] });
    expect(same.rate_limit_per_minute).toBe(500);
    expect(lower.rate_limit_per_minute).toBe(20);
    expect(unset.rate_limit_per_minute).toBe(500);
    // The window a request is counted in is reported in headers, which the SDK does not surface on success.
    const r = await new ApiClient(svc.apiUrl, unset.key).get('/account');
    expect(r.headers.get('x-ratelimit-limit')).toBe('500');
  });

  it('a key on the default limit may not set a higher one, and may set a lower one', async () => {
    const { sdk: client } = await account();
    // This standalone runs with UPSCALE_RATE_LIMIT_PER_MINUTE=10000, the highest a key may have.
    const lower = await client.createApiKey({ scopes: ['jobs:read'], rate_limit_per_minute: 9_999 });
    expect(lower.rate_limit_per_minute).toBe(9_999);
    const unset = await client.createApiKey({ scopes: ['jobs:read'] });
    expect(unset.rate_limit_per_minute).toBeNull();
    expect(await refusal(client.createApiKey({ scopes: ['jobs:read'], rate_limit_per_minute: 10_001 }))).toEqual([400, 'invalid_request']);
  });
});

describe('GET /api_keys', () => {
  it("lists the account's keys newest first with their prefix, never the secret or hash", async () => {
    const { sdk: client, keyId, key: ownKey } = await account();
    const made = await client.createApiKey({ name: 'second', scopes: ['webhooks:read', 'jobs:read'] });
    const list = await client.listApiKeys();
    expect(list.object).toBe('list');
    expect(list.has_more).toBe(false);
    expect(list.data.map((k) => k.id)).toEqual([made.id, keyId]);
    const { key: _secret, ...madeWithoutKey } = made;
    expect(list.data[0]).toEqual(madeWithoutKey);
    expect(list.data[1]).toMatchObject({
      id: keyId,
      object: 'api_key',
      prefix: ownKey.slice(0, list.data[1]!.prefix.length),
      revoked_at: null,
    });
    expect(ownKey.startsWith(list.data[1]!.prefix)).toBe(true);
    for (const k of list.data) expect(Object.keys(k)).not.toContain('key');
    const text = JSON.stringify(list);
    expect(text).not.toContain(made.key);
    expect(text).not.toContain(ownKey);
  });

  it("does not show another account's keys", async () => {
    const a = await account();
    const b = await account();
    await a.sdk.createApiKey({ scopes: ['jobs:read'] });
    expect((await b.sdk.listApiKeys()).data.map((k) => k.id)).toEqual([b.keyId]);
  });
});

describe('DELETE /api_keys/{id}', () => {
  it('revokes: 200 with revoked_at; the key then gets 401 unauthorized everywhere; revoking again is 200', async () => {
    const { sdk: client } = await account();
    const made = await client.createApiKey({ scopes: ALL_SCOPES as ApiKeyCreate['scopes'] });
    const victim = sdk(made.key);
    await victim.account();

    const del = await client.revokeApiKey(made.id);
    const { key: _secret, revoked_at: _was, ...unchanged } = made;
    expect(del).toEqual({ ...unchanged, revoked_at: del.revoked_at });
    expect(Number.isNaN(Date.parse(del.revoked_at!))).toBe(false);

    for (const call of [() => victim.account(), () => victim.listJobs(), () => victim.listApiKeys(), () => victim.listWebhookEndpoints()]) {
      expect(await refusal(call())).toEqual([401, 'unauthorized']);
    }
    const again = await client.revokeApiKey(made.id);
    expect(again.revoked_at).toBe(del.revoked_at);
    // The list keeps it, revoked.
    const listed = (await client.listApiKeys()).data.find((k) => k.id === made.id);
    expect(listed?.revoked_at).toBe(del.revoked_at);
  });

  it('a key may revoke itself, and is refused from then on', async () => {
    const { sdk: client, keyId } = await account();
    expect((await client.revokeApiKey(keyId)).id).toBe(keyId);
    expect(await refusal(client.account())).toEqual([401, 'unauthorized']);
  });

  it("another account's key is 404 not_found, and stays usable", async () => {
    const a = await account();
    const b = await account();
    expect(await refusal(b.sdk.revokeApiKey(a.keyId))).toEqual([404, 'not_found']);
    await a.sdk.account();
    for (const id of ['key_00000000000000000000000000000000', 'nonsense']) {
      expect([id, ...(await refusal(b.sdk.revokeApiKey(id)))]).toEqual([id, 404, 'not_found']);
    }
  });
});

describe('scopes', () => {
  it('keys:write is needed to create and revoke, keys:read to list (403 forbidden)', async () => {
    const owner = await account();
    const readOnly = (await account(['keys:read'])).sdk;
    const writeOnly = (await account(['keys:write'])).sdk;
    const jobsOnly = (await account(['jobs:read', 'jobs:write'])).sdk;

    for (const c of [readOnly, jobsOnly]) {
      expect(await refusal(c.createApiKey({ scopes: ['jobs:read'] }))).toEqual([403, 'forbidden']);
      expect(await refusal(c.revokeApiKey(owner.keyId))).toEqual([403, 'forbidden']);
    }
    for (const c of [writeOnly, jobsOnly]) {
      expect(await refusal(c.listApiKeys())).toEqual([403, 'forbidden']);
    }
    expect((await readOnly.listApiKeys()).object).toBe('list');
    await owner.sdk.account();
  });

  it('a missing, malformed or unknown key is 401 unauthorized', async () => {
    // Raw Authorization headers the SDK would never send: the plain test client.
    const anon = new ApiClient(svc.apiUrl);
    const variants: Array<Record<string, string>> = [
      {},
      { authorization: 'Bearer nope' },
      { authorization: `Bearer usk_${'A'.repeat(32)}` },
      { authorization: `Basic ${'x'}` },
    ];
    for (const headers of variants) {
      for (const path of ['/api_keys', '/account']) {
        const r = await anon.get(path, headers);
        expect([path, r.status, r.body.error.code]).toEqual([path, 401, 'unauthorized']);
      }
    }
  });

  it('the operator token is not an API key (401)', async () => {
    const asOperator = sdk(svc.operatorToken);
    for (const call of [
      () => asOperator.account(),
      () => asOperator.listApiKeys(),
      () => asOperator.createApiKey({ scopes: ['jobs:read'] }),
    ]) {
      expect(await refusal(call())).toEqual([401, 'unauthorized']);
    }
  });
});

describe('GET /account', () => {
  it.each([['jobs:read'], ['webhooks:write'], ['keys:read']])('works with any valid key (here one with only %s)', async (scope) => {
    const { sdk: client, accountId } = await account([scope], 42);
    const { created_at, ...rest } = await client.account();
    expect(rest).toEqual({ id: accountId, object: 'account', name: 'test account', balance: 42, reserved: 0, charged: 0 });
    expect(Number.isNaN(Date.parse(created_at))).toBe(false);
  });
});
