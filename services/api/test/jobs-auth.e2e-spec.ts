import { randomBytes } from 'node:crypto';
import { gradientImage } from '@upscaler/testing';
import {
  CheckedClient,
  expectError,
  expectUncharged,
  isFinal,
  ledger,
  newAccount,
  newKey,
  useJobsService,
  waitForJob,
} from './jobs-harness';

/**
 * Spec 5: a bearer `usk_` key on every request; missing, malformed, unknown or revoked -> 401
 * unauthorized. Scopes jobs:read (retrieve, list, download) and jobs:write (create, cancel); a key
 * without the scope -> 403 forbidden. Spec 7: every error body is { error: { code, message } }.
 */

let anonymous: CheckedClient;

const jobs = useJobsService();
beforeAll(async () => {
  anonymous = new CheckedClient(jobs.svc.apiUrl);
});

const unknownKey = () => `usk_${randomBytes(24).toString('base64url')}`;

/** One request of every job endpoint, with the given Authorization header (or none). */
async function everyJobEndpoint(authorization: string | undefined, jobId = 'job_0190a1b2c3d47e8f9a0b1c2d3e4f5a6b') {
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
  const form = new FormData();
  form.append('image', new Blob([jobs.image]), 'a.png');
  return Promise.all([
    anonymous.request('POST', '/upscale', { form, headers }),
    anonymous.request('POST', '/upscale', {
      json: { image_url: 'https://example.com/a.png' },
      headers,
    }),
    anonymous.request('GET', '/jobs', { headers }),
    anonymous.request('GET', `/jobs/${jobId}`, { headers }),
    anonymous.request('GET', `/jobs/${jobId}/result`, { headers }),
    anonymous.request('DELETE', `/jobs/${jobId}`, { headers }),
  ]);
}

describe('401 unauthorized (spec 5, rules 1 and 3)', () => {
  test.each([
    ['a missing Authorization header', () => undefined],
    ['Basic credentials', () => 'Basic dXNlcjpwYXNzd29yZA=='],
    ['"Bearer abc" (not a usk_ key)', () => 'Bearer abc'],
    ['"Bearer" with no token', () => 'Bearer'],
    ['a bare key without "Bearer"', () => unknownKey()],
    ['a well-formed but unknown usk_ key', () => `Bearer ${unknownKey()}`],
    ['the operator token used as an API key', () => `Bearer ${jobs.svc.operatorToken}`],
  ])('%s: 401 unauthorized on every job endpoint', async (_what, header) => {
    const answers = await everyJobEndpoint(header());
    for (const res of answers) expectError(res, 401, 'unauthorized');
  });

  test('a revoked key: 401 unauthorized (it worked before the revocation)', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const created = await acct.client.upload(jobs.image);
    expect(created.status).toBe(202);
    const revoke = await acct.operator.delete(`/admin/keys/${acct.keyId}`);
    expect({
      status: revoke.status,
      revoked: typeof revoke.body.revoked_at,
    }).toEqual({ status: 200, revoked: 'string' });
    const answers = await everyJobEndpoint(`Bearer ${acct.key}`, created.body.id);
    for (const res of answers) expectError(res, 401, 'unauthorized');
    expectError(await acct.client.get('/account'), 401, 'unauthorized');
  });

  test("revoking one key leaves the account's other keys working", async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const second = await newKey(acct.operator, acct.accountId);
    expect((await acct.operator.delete(`/admin/keys/${acct.keyId}`)).status).toBe(200);
    expect((await acct.client.withToken(second.key).get('/jobs')).status).toBe(200);
  });
});

describe('scopes (spec 5, rules 4 and 5)', () => {
  test('a jobs:read-only key: 403 forbidden on POST /upscale (multipart and JSON) and DELETE', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const job = (await acct.client.upload(jobs.image)).body.id;
    const reader = acct.client.withToken((await newKey(acct.operator, acct.accountId, { scopes: ['jobs:read'] })).key);
    expectError(await reader.upload(jobs.image), 403, 'forbidden');
    expectError(await reader.post('/upscale', { image_url: 'https://example.com/a.png' }), 403, 'forbidden');
    expectError(await reader.delete(`/jobs/${job}`), 403, 'forbidden');
    // nothing was created, reserved or cancelled by the refused calls
    const l = await ledger(acct);
    expect({ balance: l.balance, held: l.reserved + l.charged }).toEqual({
      balance: 7,
      held: 3,
    });
    expect((await reader.get('/jobs')).body.data).toHaveLength(1);
  });

  test('a jobs:read-only key may retrieve, list and download', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const job = (await acct.client.upload(jobs.image)).body.id;
    await waitForJob(acct.client, job, isFinal);
    const reader = acct.client.withToken((await newKey(acct.operator, acct.accountId, { scopes: ['jobs:read'] })).key);
    expect([
      (await reader.get(`/jobs/${job}`)).status,
      (await reader.get('/jobs')).status,
      (await reader.get(`/jobs/${job}/result`)).status,
      (await reader.get(`/jobs/${job}/result?redirect=false`)).status,
    ]).toEqual([200, 200, 302, 200]);
  });

  test('a jobs:write-only key: 403 forbidden on GET /jobs, GET /jobs/{id} and the result', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const writer = acct.client.withToken((await newKey(acct.operator, acct.accountId, { scopes: ['jobs:write'] })).key);
    const created = await writer.upload(jobs.image);
    expect(created.status).toBe(202);
    expectError(await writer.get('/jobs'), 403, 'forbidden');
    expectError(await writer.get(`/jobs/${created.body.id}`), 403, 'forbidden');
    expectError(await writer.get(`/jobs/${created.body.id}/result`), 403, 'forbidden');
  });

  test('a jobs:write-only key may create and cancel', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const writer = acct.client.withToken((await newKey(acct.operator, acct.accountId, { scopes: ['jobs:write'] })).key);
    const created = await writer.upload(await gradientImage(512, 512), {
      target: '4k',
    });
    expect(created.status).toBe(202);
    expect((await writer.delete(`/jobs/${created.body.id}`)).status).toBe(200);
  });

  test('a key with neither jobs scope (keys:read only): 403 forbidden on every job endpoint', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const other = (await newKey(acct.operator, acct.accountId, { scopes: ['keys:read'] })).key;
    const answers = await everyJobEndpoint(`Bearer ${other}`);
    for (const res of answers) expectError(res, 403, 'forbidden');
    await expectUncharged(acct);
  });
});
