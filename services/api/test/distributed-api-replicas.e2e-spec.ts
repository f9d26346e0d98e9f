import { ApiClient, gradientImage, startDeployment, type Deployment, type StartedService } from '@upscaler/testing';
import { sleep } from './jobs-harness';

/**
 * Two api replicas on one Postgres (docs/api.md "Rate limits" and "Authentication and scopes").
 * Each replica counts rate limits in memory and settles with the shared counters every 100 ms, and keeps API keys
 * and job views in memory until the event log shows them changed. Proves: a key's requests split between the two
 * stay within its limit (no replica's window is its own), a key revoked through one replica is refused by the
 * other a second later, and a job cancelled through one is seen cancelled by the other a second later.
 */

const LIMIT = 40;
/**
 * How far over the limit a window may go (docs/api.md "Rate limits"): what the other replica answered from memory
 * in the 100 ms before it saw the window end. The test sends a request to each replica every ~25 ms: 4 or 5 per
 * replica per 100 ms.
 */
const TOLERANCE = 5;

let d: Deployment;
let second: StartedService;
let operator: ApiClient;

beforeAll(async () => {
  d = await startDeployment({ processors: 0 });
  second = await d.startService('api');
  operator = new ApiClient(d.api.apiUrl, d.env.UPSCALE_OPERATOR_TOKEN);
}, 600_000);

afterAll(async () => {
  await d?.stop();
}, 300_000);

async function newKey(accountId: string, scopes: string[], rateLimitPerMinute?: number): Promise<{ id: string; key: string }> {
  const res = await operator.post(`/admin/accounts/${accountId}/keys`, {
    name: 'replicas e2e',
    scopes,
    ...(rateLimitPerMinute ? { rate_limit_per_minute: rateLimitPerMinute } : {}),
  });
  if (res.status !== 201) throw new Error(`create key: ${res.status} ${res.text}`);
  return { id: res.body.id, key: res.body.key };
}

async function newAccount(credits = 10): Promise<string> {
  const res = await operator.post('/admin/accounts', { name: 'replicas e2e', credits });
  if (res.status !== 201) throw new Error(`create account: ${res.status} ${res.text}`);
  return res.body.id;
}

/** Waits, when needed, so that at least `needMs` remain in the current one-minute window. */
async function roomInWindow(needMs: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await sleep(left + 250);
}

test(`a key's requests split between two api replicas: the window admits its limit (${LIMIT}), at most ${TOLERANCE} more`, async () => {
  const accountId = await newAccount();
  const { key } = await newKey(accountId, ['jobs:read'], LIMIT);
  const replicas = [new ApiClient(d.api.apiUrl, key), new ApiClient(second.apiUrl, key)];
  await roomInWindow(20_000);
  const statuses: number[][] = [[], []];
  // one request to each replica at once, every 25 ms, three times the limit in all
  for (let i = 0; i < (3 * LIMIT) / 2; i++) {
    const pair = await Promise.all(replicas.map((r) => r.get('/jobs')));
    pair.forEach((res, r) => statuses[r].push(res.status));
    await sleep(25);
  }
  const admitted = statuses.map((s) => s.filter((x) => x === 200).length);
  const refused = statuses.map((s) => s.filter((x) => x === 429).length);
  const total = admitted[0] + admitted[1];
  if (total < LIMIT || total > LIMIT + TOLERANCE)
    console.log(`admitted per replica ${admitted.join(' + ')}; statuses ${JSON.stringify(statuses)}`);
  expect(admitted[0] + refused[0] + admitted[1] + refused[1]).toBe(3 * LIMIT);
  expect(total).toBeGreaterThanOrEqual(LIMIT);
  expect(total).toBeLessThanOrEqual(LIMIT + TOLERANCE);
  // both replicas served and both refused: the limit is the key's, not each replica's
  expect(admitted.every((n) => n > 0) && refused.every((n) => n > 0)).toBe(true);
});

test('a key revoked through one replica gets 401 from the other one second later, on the job it was polling', async () => {
  const accountId = await newAccount();
  const { id, key } = await newKey(accountId, ['jobs:read', 'jobs:write', 'keys:write']);
  const [a, b] = [new ApiClient(d.api.apiUrl, key), new ApiClient(second.apiUrl, key)];
  const job = await a.upload(await gradientImage(16, 16)); // queued: this deployment has no processor
  expect(job.status).toBe(202);
  // replica b knows the key and the job (both cached there now)
  for (let i = 0; i < 3; i++) expect((await b.get(`/jobs/${job.body.id}`)).status).toBe(200);
  expect((await a.delete(`/api_keys/${id}`)).status).toBe(200);
  await sleep(1_000);
  const polled = await b.get(`/jobs/${job.body.id}`);
  const listed = await b.get('/jobs');
  expect([polled.status, polled.body?.error?.code, listed.status]).toEqual([401, 'unauthorized', 401]);
});

test('a job cancelled through one replica is cancelled on the other one second later', async () => {
  const accountId = await newAccount();
  const { key } = await newKey(accountId, ['jobs:read', 'jobs:write']);
  const [a, b] = [new ApiClient(d.api.apiUrl, key), new ApiClient(second.apiUrl, key)];
  const job = await a.upload(await gradientImage(16, 16));
  for (let i = 0; i < 3; i++) expect((await b.get(`/jobs/${job.body.id}`)).body.status).toBe('queued');
  expect((await a.delete(`/jobs/${job.body.id}`)).body.status).toBe('cancelled');
  await sleep(1_000);
  expect((await b.get(`/jobs/${job.body.id}`)).body.status).toBe('cancelled');
});
