import { type ApiResponse, gradientImage } from '@upscaler/testing';
import { CheckedClient, expectError, newAccount, newKey, sleep, startJobsService, testStandalone, type JobsService } from './jobs-harness';

/**
 * Spec 8: 60 requests per minute per key by default, more on paid plans (a key's own
 * rate_limit_per_minute, docs/design.md §6); every response reports the window in X-RateLimit-* headers; 429
 * carries Retry-After. docs/design.md §6: UPSCALE_RATE_LIMIT_PER_MINUTE sets the default.
 *
 * Windows are fixed and aligned to the minute, so a test that counts requests first waits until its
 * requests cannot straddle two windows (a scheduling step, not an assertion about time).
 */

let plain: JobsService; // UPSCALE_RATE_LIMIT_PER_MINUTE not set: the spec's default 60
let tuned: JobsService; // UPSCALE_RATE_LIMIT_PER_MINUTE=5
let image: Buffer;

beforeAll(async () => {
  [plain, tuned] = await Promise.all([
    startJobsService({ UPSCALE_RATE_LIMIT_PER_MINUTE: undefined }),
    startJobsService({ UPSCALE_RATE_LIMIT_PER_MINUTE: '5' }),
  ]);
  image = await gradientImage(16, 16);
});
afterAll(async () => {
  await Promise.all([plain?.shutdown(), tuned?.shutdown()]);
});

/** Waits, when needed, so that at least `needMs` remain in the current one-minute window. */
async function roomInWindow(needMs = 15_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await sleep(left + 250);
}

function rateHeaders(res: ApiResponse): {
  limit: number;
  remaining: number;
  reset: number;
} {
  const h = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].map((n) => res.headers.get(n));
  expect(h.every((v) => v !== null && /^\d+$/.test(v))).toBe(true);
  return { limit: Number(h[0]), remaining: Number(h[1]), reset: Number(h[2]) };
}

/** Seconds from the answer's Date header (the server's clock) to its X-RateLimit-Reset. */
function secondsToReset(res: ApiResponse): number {
  return rateHeaders(res).reset - Date.parse(res.headers.get('date')!) / 1000;
}

test('every keyed response carries X-RateLimit-Limit, -Remaining and -Reset, Remaining falling by one per request', async () => {
  const acct = await newAccount(plain, { credits: 10 });
  await roomInWindow();
  const created = await acct.client.upload(image);
  const id = created.body.id;
  const answers = [
    created,
    await acct.client.get('/jobs'),
    await acct.client.get(`/jobs/${id}`),
    await acct.client.get(`/jobs/${id}/result?asset=source`),
    await acct.client.get('/jobs?limit=0'), // 400
    await acct.client.get('/jobs/job_0190a1b2c3d47e8f9a0b1c2d3e4f5a6b'), // 404
    await acct.client.get('/account'),
    await acct.client.upload(Buffer.from('not an image')), // 415
  ];
  expect(answers.map((a) => a.status)).toEqual([202, 200, 200, 302, 400, 404, 200, 415]);
  const headers = answers.map(rateHeaders);
  expect(headers.map((h) => h.limit)).toEqual(Array(8).fill(60));
  expect(headers.map((h) => h.remaining)).toEqual([59, 58, 57, 56, 55, 54, 53, 52]);
  expect(new Set(headers.map((h) => h.reset)).size).toBe(1);
  // Reset is the end of the current one-minute window, in Unix seconds
  expect(headers[0].reset % 60).toBe(0);
  const toReset = secondsToReset(answers[0]);
  expect(toReset).toBeGreaterThan(0);
  expect(toReset).toBeLessThanOrEqual(60);
});

test('a 403 (missing scope) is a keyed response too: it carries the headers and counts', async () => {
  const acct = await newAccount(plain, { credits: 10 });
  const reader = acct.client.withToken((await newKey(acct.operator, acct.accountId, { scopes: ['jobs:read'] })).key);
  await roomInWindow();
  const a = await reader.get('/jobs');
  const b = await reader.upload(image);
  expectError(b, 403, 'forbidden');
  expect([rateHeaders(a).remaining, rateHeaders(b).remaining]).toEqual([59, 58]);
});

test('after the limit: 429 rate_limited with Retry-After (key with rate_limit_per_minute 3)', async () => {
  const acct = await newAccount(plain, { credits: 10, rateLimitPerMinute: 3 });
  await roomInWindow();
  const ok = [await acct.client.get('/jobs'), await acct.client.get('/jobs'), await acct.client.get('/jobs')];
  expect(ok.map((r) => [r.status, rateHeaders(r).limit, rateHeaders(r).remaining])).toEqual([
    [200, 3, 2],
    [200, 3, 1],
    [200, 3, 0],
  ]);
  const limited = await acct.client.get('/jobs');
  expectError(limited, 429, 'rate_limited');
  expect({
    limit: rateHeaders(limited).limit,
    remaining: rateHeaders(limited).remaining,
  }).toEqual({ limit: 3, remaining: 0 });
  const retryAfter = limited.headers.get('retry-after');
  expect(retryAfter).toMatch(/^\d+$/);
  // Retry-After is the wait until the window resets (whole seconds, at least 1)
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Math.abs(Number(retryAfter) - secondsToReset(limited))).toBeLessThanOrEqual(1);
});

test('a submit refused with 429 creates no job and reserves nothing', async () => {
  const acct = await newAccount(plain, { credits: 10, rateLimitPerMinute: 1 });
  await roomInWindow();
  expect((await acct.client.get('/jobs')).status).toBe(200);
  expectError(await acct.client.upload(image), 429, 'rate_limited');
  const other = acct.client.withToken((await newKey(acct.operator, acct.accountId)).key);
  expect((await other.get('/jobs')).body.data).toEqual([]);
  expect((await other.get('/account')).body).toMatchObject({
    balance: 10,
    reserved: 0,
    charged: 0,
  });
});

test('limits are per key: another key of the same account has its own window', async () => {
  const acct = await newAccount(plain, { credits: 10, rateLimitPerMinute: 2 });
  const second = acct.client.withToken((await newKey(acct.operator, acct.accountId, { rateLimitPerMinute: 2 })).key);
  await roomInWindow();
  await acct.client.get('/jobs');
  await acct.client.get('/jobs');
  expect((await acct.client.get('/jobs')).status).toBe(429);
  const res = await second.get('/jobs');
  expect({ status: res.status, remaining: rateHeaders(res).remaining }).toEqual({ status: 200, remaining: 1 });
});

test('a burst of ten concurrent requests on a limit of 5 lets exactly five through', async () => {
  const acct = await newAccount(tuned, { credits: 10 });
  await roomInWindow();
  const answers = await Promise.all(Array.from({ length: 10 }, () => acct.client.get('/jobs')));
  expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 429, 429, 429, 429, 429]);
  expect(
    answers
      .filter((a) => a.status === 200)
      .map((a) => rateHeaders(a).remaining)
      .sort(),
  ).toEqual([0, 1, 2, 3, 4]);
});

test("the per-key override: a key's rate_limit_per_minute replaces the default", async () => {
  const acct = await newAccount(plain, { credits: 10, rateLimitPerMinute: 7 });
  const standard = acct.client.withToken((await newKey(acct.operator, acct.accountId)).key);
  expect(rateHeaders(await acct.client.get('/jobs')).limit).toBe(7);
  expect(rateHeaders(await standard.get('/jobs')).limit).toBe(60);
  const generous = acct.client.withToken((await newKey(acct.operator, acct.accountId, { rateLimitPerMinute: 500 })).key);
  expect(rateHeaders(await generous.get('/jobs')).limit).toBe(500);
});

test('UPSCALE_RATE_LIMIT_PER_MINUTE=5 is the default of keys without their own rate: the 6th request gets 429', async () => {
  const acct = await newAccount(tuned, { credits: 10 });
  await roomInWindow();
  const answers: ApiResponse[] = [];
  for (let i = 0; i < 6; i++) answers.push(await acct.client.get('/jobs'));
  expect(answers.map((a) => [a.status, rateHeaders(a).limit, rateHeaders(a).remaining])).toEqual([
    [200, 5, 4],
    [200, 5, 3],
    [200, 5, 2],
    [200, 5, 1],
    [200, 5, 0],
    [429, 5, 0],
  ]);
});

test('UPSCALE_RATE_LIMIT_PER_MINUTE=5 still yields to a key override', async () => {
  const acct = await newAccount(tuned, { credits: 10, rateLimitPerMinute: 20 });
  expect(rateHeaders(await acct.client.get('/jobs')).limit).toBe(20);
});

test('without UPSCALE_RATE_LIMIT_PER_MINUTE the default is 60 per minute (spec 8): the 61st request gets 429', async () => {
  const acct = await newAccount(plain, { credits: 10 });
  await roomInWindow(30_000);
  const statuses: number[] = [];
  for (let i = 0; i < 61; i++) statuses.push((await acct.client.get('/account')).status);
  expect(statuses).toEqual([...Array(60).fill(200), 429]);
});

test('Retry-After tells the truth: once it has passed, the key works again with a fresh window', async () => {
  const acct = await newAccount(tuned, { credits: 10, rateLimitPerMinute: 1 });
  // start near the end of a window so that the wait stays short
  const left = 60_000 - (Date.now() % 60_000);
  if (left > 8_000) await sleep(left - 6_000);
  const first = await acct.client.get('/jobs');
  let limited = await acct.client.get('/jobs');
  if (limited.status === 200) limited = await acct.client.get('/jobs'); // the first one landed in a new window
  expectError(limited, 429, 'rate_limited');
  expect(first.status).toBe(200);
  await sleep(Number(limited.headers.get('retry-after')) * 1000 + 300);
  const again = await acct.client.get('/jobs');
  expect({
    status: again.status,
    remaining: rateHeaders(again).remaining,
  }).toEqual({ status: 200, remaining: 0 });
  expect(rateHeaders(again).reset).toBeGreaterThan(rateHeaders(limited).reset);
});

test("answers without a valid key report the client address's window (default rate) and turn into 429 past it", async () => {
  const anonymous = new CheckedClient(tuned.apiUrl);
  const acct = await newAccount(tuned, { credits: 10 });
  await roomInWindow();
  const raw = (path: string, init?: RequestInit) => fetch(`${tuned.apiUrl}${path}`, init);
  const answers = [
    await anonymous.get('/jobs'), // no Authorization: 401
    await anonymous.request('GET', '/jobs', { headers: { authorization: 'Bearer usk_not-a-real-key' } }), // 401
    await raw('/api_keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' }), // 400
    await raw('/no-such-route'), // 404
    await raw('/openapi.json'), // 200
  ];
  expect(answers.map((a) => a.status)).toEqual([401, 401, 400, 404, 200]);
  const h = answers.map((a) => ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].map((n) => a.headers.get(n)));
  expect(h.map(([limit, remaining]) => [limit, remaining])).toEqual([
    ['5', '4'],
    ['5', '3'],
    ['5', '2'],
    ['5', '1'],
    ['5', '0'],
  ]);
  expect(new Set(h.map((x) => x[2])).size).toBe(1);
  expect(Number(h[0][2]) % 60).toBe(0);
  const limited = await anonymous.get('/jobs');
  expectError(limited, 429, 'rate_limited');
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  // a valid key is counted against its own window, not the address's
  const keyed = await acct.client.get('/jobs');
  expect({ status: keyed.status, remaining: rateHeaders(keyed).remaining }).toEqual({ status: 200, remaining: 4 });
  // not the public API: the operator API and health report no window
  const admin = await raw(`/admin/accounts/${acct.accountId}`, { headers: { authorization: `Bearer ${tuned.operatorToken}` } });
  const health = await fetch(`${tuned.baseUrl}/health/live`);
  expect([admin.status, admin.headers.get('x-ratelimit-limit'), health.status, health.headers.get('x-ratelimit-limit')]).toEqual([
    200,
    null,
    200,
    null,
  ]);
});

/** Unkeyed GET /jobs (401) as if relayed by a proxy for `client`: [status, X-RateLimit-Remaining]. */
async function unkeyedFrom(svc: JobsService, client: string): Promise<[number, string | null]> {
  const res = await fetch(`${svc.apiUrl}/jobs`, { headers: { 'x-forwarded-for': client } });
  return [res.status, res.headers.get('x-ratelimit-remaining')];
}

test('behind a trusted proxy (loopback and private ranges by default) X-Forwarded-For names the client: two clients, two address windows', async () => {
  await roomInWindow();
  const answers = [
    await unkeyedFrom(tuned, '198.51.100.1'),
    await unkeyedFrom(tuned, '198.51.100.2'),
    await unkeyedFrom(tuned, '198.51.100.1'),
    // the proxy appends the address it saw: the rightmost untrusted entry is the client, whatever it put on the left
    await unkeyedFrom(tuned, '203.0.113.9, 198.51.100.2'),
  ];
  expect(answers).toEqual([
    [401, '4'],
    [401, '4'],
    [401, '3'],
    [401, '3'],
  ]);
});

// Standalone only: the setting lives in the HTTP setup every service shares (libs/runtime http-app.ts), and a
// second distributed deployment for one request triple would cost a Kafka, MinIO and Postgres start.
testStandalone('UPSCALE_TRUST_PROXY=false: X-Forwarded-For is ignored, so forging it does not open a fresh window', async () => {
  const strict = await startJobsService({ UPSCALE_RATE_LIMIT_PER_MINUTE: '5', UPSCALE_TRUST_PROXY: 'false' });
  try {
    await roomInWindow();
    const answers = [
      await unkeyedFrom(strict, '198.51.100.1'),
      await unkeyedFrom(strict, '198.51.100.2'),
      await unkeyedFrom(strict, '198.51.100.3'),
    ];
    expect(answers).toEqual([
      [401, '4'],
      [401, '3'],
      [401, '2'],
    ]);
  } finally {
    await strict.shutdown();
  }
});
