import { get } from 'node:http';
import { type ApiResponse, gradientImage } from '@upscaler/testing';
import { expectError, newAccount, newKey, sleep, useJobsService, type TestAccount } from './jobs-harness';

/**
 * GET /jobs/{id}, the call every client polls (spec 4.2; docs/benchmarks.md "API hot path"): once its key is
 * cached, the api answers it before Express (JobPollFastPath) from the job's cached view. Clients must not be able
 * to tell: the answers are the Nest route's, header for header. A query string the route does not read
 * (`?via=express`) sends the same request through Express, so each test compares the two.
 */

let acct: TestAccount;
let jobId: string;

const jobs = useJobsService();
beforeAll(async () => {
  acct = await newAccount(jobs.svc, { credits: 10 });
  const submitted = await acct.client.upload(await gradientImage(16, 16));
  jobId = submitted.body.id;
  await acct.client.waitForFinal(jobId);
});

/** Headers whose value is this answer's own (its time, its id, its place in the window). */
const OWN = new Set(['date', 'x-request-id', 'x-ratelimit-remaining', 'ratelimit', 'keep-alive']);

function headersOf(res: ApiResponse): Record<string, string> {
  return Object.fromEntries([...res.headers.entries()].filter(([k]) => !OWN.has(k)));
}

/** Waits, when needed, so that at least `needMs` remain in the current one-minute window. */
async function roomInWindow(needMs = 15_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await sleep(left + 250);
}

test('a succeeded job: the same status, body and headers from the fast path and from Express', async () => {
  await roomInWindow();
  const fast = await acct.client.get(`/jobs/${jobId}`);
  const express = await acct.client.get(`/jobs/${jobId}?via=express`);
  expect([fast.status, fast.body.status]).toEqual([200, 'succeeded']);
  expect(fast.text).toBe(express.text);
  expect(headersOf(fast)).toEqual(headersOf(express));
  // one window, counted once per answer, whichever answers
  const remaining = [fast, express].map((r) => Number(r.headers.get('x-ratelimit-remaining')));
  expect(remaining[1]).toBe(remaining[0] - 1);
  expect([fast, express].map((r) => r.headers.get('ratelimit')!.replace(/;t=\d+$/, ''))).toEqual(remaining.map((r) => `"default";r=${r}`));
});

test("its ETag is Express's: a conditional GET with it answers 304", async () => {
  const fast = await acct.client.get(`/jobs/${jobId}`);
  // node:http, not fetch: fetch adds Cache-Control: no-cache to a conditional request, which rules out a 304
  const status = await new Promise<number | undefined>((resolve, reject) => {
    get(
      `${jobs.svc.apiUrl}/jobs/${jobId}`,
      { headers: { authorization: `Bearer ${acct.key}`, 'if-none-match': fast.headers.get('etag')! } },
      (res) => {
        res.resume();
        resolve(res.statusCode);
      },
    ).on('error', reject);
  });
  expect(status).toBe(304);
});

test("another account's job and an unknown job: 404 job_not_found from both", async () => {
  const other = await newAccount(jobs.svc, { credits: 0 });
  await other.client.get('/jobs'); // its key is cached from here on
  for (const path of [`/jobs/${jobId}`, `/jobs/${jobId}?via=express`, '/jobs/job_0190a1b2c3d47e8f9a0b1c2d3e4f5a6b']) {
    expectError(await other.client.get(path), 404, 'job_not_found');
  }
});

test('past the limit: 429 rate_limited with Retry-After from both, counted in one window', async () => {
  const limited = await newAccount(jobs.svc, { credits: 0, rateLimitPerMinute: 3 });
  const reader = limited.client.withToken(
    (await newKey(limited.operator, limited.accountId, { scopes: ['jobs:read'], rateLimitPerMinute: 3 })).key,
  );
  await roomInWindow();
  const answers = [
    await reader.get('/jobs'), // through Express: the key is cached from here on
    await reader.get('/jobs/job_0190a1b2c3d47e8f9a0b1c2d3e4f5a6b'),
    await reader.get('/jobs/job_0190a1b2c3d47e8f9a0b1c2d3e4f5a6b?via=express'),
    await reader.get('/jobs/job_0190a1b2c3d47e8f9a0b1c2d3e4f5a6b'),
    await reader.get('/jobs/job_0190a1b2c3d47e8f9a0b1c2d3e4f5a6b?via=express'),
  ];
  expect(answers.map((a) => [a.status, a.headers.get('x-ratelimit-remaining')])).toEqual([
    [200, '2'],
    [404, '1'],
    [404, '0'],
    [429, '0'],
    [429, '0'],
  ]);
  // Retry-After counts down in whole seconds: the two answers may straddle a second boundary (55 and 56 once in CI)
  const { 'retry-after': fastWait, ...fast } = headersOf(answers[3]);
  const { 'retry-after': expressWait, ...express } = headersOf(answers[4]);
  expect(fast).toEqual(express);
  expect(answers[3].text).toBe(answers[4].text);
  expect(Number(fastWait)).toBeGreaterThanOrEqual(1);
  expect(Math.abs(Number(fastWait) - Number(expressWait))).toBeLessThanOrEqual(1);
});

test('a key revoked on this replica gets 401 at once, on the job it polled a moment before', async () => {
  const key = await newKey(acct.operator, acct.accountId, { scopes: ['jobs:read', 'keys:write'] });
  const client = acct.client.withToken(key.key);
  expect((await client.get(`/jobs/${jobId}`)).status).toBe(200);
  expect((await client.get(`/jobs/${jobId}`)).status).toBe(200);
  expect((await client.delete(`/api_keys/${key.id}`)).status).toBe(200);
  expectError(await client.get(`/jobs/${jobId}`), 401, 'unauthorized');
});

test('a key without jobs:read: 403 forbidden (Express answers it)', async () => {
  const writer = acct.client.withToken((await newKey(acct.operator, acct.accountId, { scopes: ['jobs:write'] })).key);
  await writer.get('/jobs'); // 403, and its key is cached
  expectError(await writer.get(`/jobs/${jobId}`), 403, 'forbidden');
});

test('the HTTP metrics count its answers under the route template, like every other route', async () => {
  const before = await requestsOf200();
  for (let i = 0; i < 5; i++) expect((await acct.client.get(`/jobs/${jobId}`)).status).toBe(200);
  expect((await requestsOf200()) - before).toBe(5);
});

/** upscaler_http_requests_total of GET /api/v1/jobs/:id with status 200, from the api's /metrics. */
async function requestsOf200(): Promise<number> {
  const text = await (await fetch(`${jobs.svc.baseUrl}/metrics`)).text();
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith('upscaler_http_requests_total{') &&
        l.includes('route="/api/v1/jobs/:id"') &&
        l.includes('status="200"') &&
        l.includes('method="GET"'),
    );
  return line ? Number(line.split(' ').pop()) : 0;
}
