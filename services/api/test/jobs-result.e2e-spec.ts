import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { gradientImage } from '@upscaler/testing';
import {
  download,
  downloadResult,
  STANDALONE,
  describeStandalone,
  expectError,
  isFinal,
  newAccount,
  occupyProcessor,
  useJobsService,
  testStandalone,
  waitForJob,
  type TestAccount,
} from './jobs-harness';
import { pngWithGarbledIdat } from './jobs-images';

/**
 * Spec 4.4: 409 until the job succeeded; a 302 to a signed URL valid for five minutes, or with
 * redirect=false the result link object; asset=source downloads the original upload.
 */

const jobs = useJobsService({ imageSize: [20, 12] });

async function succeededJob(acct: TestAccount, fields: Record<string, string> = {}): Promise<Record<string, any>> {
  const res = await acct.client.upload(jobs.image, fields);
  expect(res.status).toBe(202);
  const job = await waitForJob(acct.client, res.body.id, isFinal);
  expect(job.status).toBe('succeeded');
  return job;
}

/**
 * Signs a download link the way the embedded storage does (HMAC-SHA256 of key, expiry, name and
 * type with `<data dir>/storage-secret`), to make links the service never issued: an expired one.
 */
function signLink(location: string, expires: number): string {
  const secret = readFileSync(join(jobs.svc.dataDir, 'storage-secret'), 'utf8').trim();
  const url = new URL(location);
  const key = url.pathname
    .replace(/^\/api\/v1\/files\//, '')
    .split('/')
    .map(decodeURIComponent)
    .join('/');
  const name = url.searchParams.get('name') ?? '';
  const type = url.searchParams.get('type') ?? '';
  const sig = createHmac('sha256', secret).update(`${key}\n${expires}\n${name}\n${type}`).digest('hex');
  url.searchParams.set('expires', String(expires));
  url.searchParams.set('sig', sig);
  return url.toString();
}

describeStandalone('before the job succeeded (spec 4.4 rule: 409; standalone: one processor keeps the job queued)', () => {
  let blocker: Awaited<ReturnType<typeof occupyProcessor>>;
  beforeAll(async () => {
    blocker = await occupyProcessor(jobs.svc);
  });
  afterAll(async () => {
    await blocker?.release();
  });

  test('a queued job: 409 result_not_ready, with and without redirect', async () => {
    const acct = await newAccount(jobs.svc);
    const res = await acct.client.upload(jobs.image);
    expectError(await acct.client.get(`/jobs/${res.body.id}/result`), 409, 'result_not_ready');
    expectError(await acct.client.get(`/jobs/${res.body.id}/result?redirect=false`), 409, 'result_not_ready');
    expect((await acct.client.get(`/jobs/${res.body.id}`)).body.status).toBe('queued');
    await acct.client.delete(`/jobs/${res.body.id}`);
  });

  test('asset=source is downloadable while the job is still queued', async () => {
    const acct = await newAccount(jobs.svc);
    const res = await acct.client.upload(jobs.image);
    const source = await downloadResult(acct.client, res.body.id, '?asset=source');
    expect(source.bytes.equals(jobs.image)).toBe(true);
    await acct.client.delete(`/jobs/${res.body.id}`);
  });

  test('a cancelled job: 409 result_not_ready', async () => {
    const acct = await newAccount(jobs.svc);
    const res = await acct.client.upload(jobs.image);
    expect((await acct.client.delete(`/jobs/${res.body.id}`)).status).toBe(200);
    expectError(await acct.client.get(`/jobs/${res.body.id}/result`), 409, 'result_not_ready');
  });
});

test('a failed job: 409 result_not_ready', async () => {
  const acct = await newAccount(jobs.svc);
  const res = await acct.client.upload(pngWithGarbledIdat(await gradientImage(32, 32)));
  expect((await waitForJob(acct.client, res.body.id, isFinal)).status).toBe('failed');
  expectError(await acct.client.get(`/jobs/${res.body.id}/result`), 409, 'result_not_ready');
});

test('302 with Location to a signed URL whose download returns the result bytes and content type', async () => {
  const acct = await newAccount(jobs.svc);
  const job = await succeededJob(acct, { format: 'webp', target: '3k' });
  const res = await acct.client.get(`/jobs/${job.id}/result`);
  expect({
    status: res.status,
    cacheControl: res.headers.get('cache-control'),
    body: res.text,
  }).toEqual({
    status: 302,
    cacheControl: 'no-store',
    body: '',
  });
  const location = res.headers.get('location')!;
  // the embedded storage's links are served by the api itself; S3/MinIO presigns its own
  if (STANDALONE) expect(location.startsWith(`${jobs.svc.baseUrl}/api/v1/files/`)).toBe(true);
  else expect(location).toMatch(/^https?:\/\//);
  const file = await download(location);
  expect({
    status: file.status,
    contentType: file.headers.get('content-type'),
    contentLength: file.headers.get('content-length'),
    bytes: file.bytes.length,
  }).toEqual({
    status: 200,
    contentType: 'image/webp',
    contentLength: String(job.result.bytes),
    bytes: job.result.bytes,
  });
  const meta = await sharp(file.bytes).metadata();
  expect({
    format: meta.format,
    width: meta.width,
    height: meta.height,
  }).toEqual({ format: 'webp', width: 60, height: 36 });
});

test('the signed URL needs no API key and is valid for 300 seconds (spec 4.4 rule 1)', async () => {
  const acct = await newAccount(jobs.svc);
  const job = await succeededJob(acct);
  const res = await acct.client.get(`/jobs/${job.id}/result`);
  const url = new URL(res.headers.get('location')!);
  if (!STANDALONE) {
    // an S3 presigned URL states its lifetime itself
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
    return;
  }
  const expires = Number(url.searchParams.get('expires'));
  const issued = Date.parse(res.headers.get('date')!) / 1000; // the server's own clock, whole seconds
  expect(expires - issued).toBeGreaterThanOrEqual(299);
  expect(expires - issued).toBeLessThanOrEqual(301);
});

test('redirect=false: the result link object {url, expires_in: 300, content_type, bytes}, bytes = the downloaded length', async () => {
  const acct = await newAccount(jobs.svc);
  const job = await succeededJob(acct, { format: 'jpeg' });
  const res = await acct.client.get(`/jobs/${job.id}/result?redirect=false`);
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(Object.keys(res.body).sort()).toEqual(['bytes', 'content_type', 'expires_in', 'url']);
  expect(res.body).toEqual({
    url: expect.any(String),
    expires_in: 300,
    content_type: 'image/jpeg',
    bytes: job.result.bytes,
  });
  const file = await download(res.body.url);
  expect({
    status: file.status,
    bytes: file.bytes.length,
    type: file.headers.get('content-type'),
  }).toEqual({
    status: 200,
    bytes: res.body.bytes,
    type: 'image/jpeg',
  });
});

test('every request returns a fresh link to the same retained bytes', async () => {
  const acct = await newAccount(jobs.svc);
  const job = await succeededJob(acct);
  const a = await downloadResult(acct.client, job.id);
  const b = await download((await acct.client.get(`/jobs/${job.id}/result?redirect=false`)).body.url);
  const c = await downloadResult(acct.client, job.id, '?redirect=true&asset=result');
  expect(a.bytes.equals(b.bytes) && a.bytes.equals(c.bytes)).toBe(true);
  expect(a.bytes.length).toBe(job.result.bytes);
});

test('asset=source returns the original upload bytes', async () => {
  const acct = await newAccount(jobs.svc);
  const job = await succeededJob(acct);
  const link = await acct.client.get(`/jobs/${job.id}/result?asset=source&redirect=false`);
  expect(link.body).toEqual({
    url: expect.any(String),
    expires_in: 300,
    content_type: 'image/png',
    bytes: jobs.image.length,
  });
  const file = await download(link.body.url);
  expect({
    status: file.status,
    type: file.headers.get('content-type'),
    same: file.bytes.equals(jobs.image),
  }).toEqual({
    status: 200,
    type: 'image/png',
    same: true,
  });
});

test.each([
  ['asset=thumbnail', '?asset=thumbnail'],
  ['redirect=maybe', '?redirect=maybe'],
])('%s: 400 invalid_request', async (_what, query) => {
  const acct = await newAccount(jobs.svc);
  const job = await succeededJob(acct);
  expectError(await acct.client.get(`/jobs/${job.id}/result${query}`), 400, 'invalid_request');
});

describe('signed links are checked (spec 4.4 rule 1)', () => {
  test('a tampered signature: 403 forbidden', async () => {
    const acct = await newAccount(jobs.svc);
    const job = await succeededJob(acct);
    const url = new URL((await acct.client.get(`/jobs/${job.id}/result?redirect=false`)).body.url);
    const name = STANDALONE ? 'sig' : 'X-Amz-Signature';
    const sig = url.searchParams.get(name)!;
    url.searchParams.set(name, `${sig.slice(0, -1)}${sig.endsWith('0') ? '1' : '0'}`);
    const file = await download(url.toString());
    expect(file.status).toBe(403);
    if (STANDALONE) expect(file.body).toEqual({ error: { code: 'forbidden', message: expect.any(String) } });
  });

  test('a link whose expiry was pushed later without re-signing: 403 forbidden', async () => {
    const acct = await newAccount(jobs.svc);
    const job = await succeededJob(acct);
    const url = new URL((await acct.client.get(`/jobs/${job.id}/result?redirect=false`)).body.url);
    const name = STANDALONE ? 'expires' : 'X-Amz-Expires';
    url.searchParams.set(name, String(Number(url.searchParams.get(name)) + 3600));
    expect((await download(url.toString())).status).toBe(403);
  });

  test('a link to another object with the same signature: 403 forbidden', async () => {
    const acct = await newAccount(jobs.svc);
    const job = await succeededJob(acct);
    const result = new URL((await acct.client.get(`/jobs/${job.id}/result?redirect=false`)).body.url);
    const source = new URL((await acct.client.get(`/jobs/${job.id}/result?redirect=false&asset=source`)).body.url);
    source.search = result.search;
    expect((await download(source.toString())).status).toBe(403);
  });

  testStandalone('an expired link: 403 forbidden (while the same link signed for the future downloads)', async () => {
    const acct = await newAccount(jobs.svc);
    const job = await succeededJob(acct);
    const location = (await acct.client.get(`/jobs/${job.id}/result`)).headers.get('location')!;
    const now = Math.floor(Date.now() / 1000);
    const valid = await download(signLink(location, now + 120));
    expect({ status: valid.status, bytes: valid.bytes.length }).toEqual({
      status: 200,
      bytes: job.result.bytes,
    });
    const expired = await download(signLink(location, now - 5));
    expect({ status: expired.status, body: expired.body }).toEqual({
      status: 403,
      body: { error: { code: 'forbidden', message: expect.any(String) } },
    });
  });
});
