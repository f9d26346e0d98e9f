import sharp from 'sharp';
import { gradientImage } from '@upscaler/testing';
import {
  ISO_UTC,
  describeStandalone,
  download,
  isFinal,
  newAccount,
  settledLedger,
  useJobsService,
  useOccupiedProcessor,
} from './jobs-harness';

/**
 * Wait and progress: `Prefer: wait=N` on POST /upscale and GET /jobs/{id} answers once the
 * job is final or N seconds (at most 60) have passed, and says so in Preference-Applied; the retrieve view
 * carries started_at, progress (0 to 1, from tiles done) and the source and result pixel sizes. Every answer is
 * also checked against the OpenAPI document (CheckedClient), Vary: Prefer included.
 */

const jobs = useJobsService();

/** A job that runs for seconds in four 256-pixel tiles: 512x512 at 4k, fast tier. */
async function longJob(client: Awaited<ReturnType<typeof newAccount>>['client'], headers: Record<string, string> = {}) {
  return client.upload(await gradientImage(512, 512), { target: '4k', quality: 'fast' }, { headers });
}

test('GET with Prefer: wait=60 answers as soon as the job is final, with the sizes, started_at and progress 1', async () => {
  const acct = await newAccount(jobs.svc, { credits: 20 });
  const created = await longJob(acct.client);
  expect(created.status).toBe(202);
  expect(created.body.source).toEqual({ bytes: expect.any(Number), content_type: 'image/png', width: 512, height: 512 });
  const t0 = Date.now();
  const res = await acct.client.get(`/jobs/${created.body.id}`, { prefer: 'wait=60' });
  const waitedMs = Date.now() - t0;
  expect({
    status: res.status,
    applied: res.headers.get('preference-applied'),
    vary: res.headers.get('vary'),
    job: res.body.status,
    progress: res.body.progress,
    source: res.body.source,
    result: { width: res.body.result.width, height: res.body.result.height },
  }).toEqual({
    status: 200,
    applied: 'wait=60',
    vary: 'Prefer',
    job: 'succeeded',
    progress: 1,
    source: { bytes: created.body.source.bytes, content_type: 'image/png', width: 512, height: 512 },
    result: { width: 2048, height: 2048 },
  });
  expect(res.body.started_at).toMatch(ISO_UTC);
  expect(Date.parse(res.body.started_at)).toBeGreaterThanOrEqual(Date.parse(res.body.created_at));
  expect(Date.parse(res.body.started_at)).toBeLessThanOrEqual(Date.parse(res.body.finished_at));
  expect(waitedMs).toBeLessThan(60_000);
  // the result really is that size
  const link = await acct.client.get(`/jobs/${created.body.id}/result?redirect=false`);
  const meta = await sharp((await download(link.body.url)).bytes).metadata();
  expect([meta.width, meta.height]).toEqual([2048, 2048]);
  await settledLedger(acct);
});

test('progress rises from 0 through the tiles to 1, and never goes back', async () => {
  const acct = await newAccount(jobs.svc, { credits: 20 });
  // sixteen 256-pixel tiles: seconds of work, progress written a few times a second
  const id = (await acct.client.upload(await gradientImage(1024, 1024), { target: '4k', quality: 'fast' })).body.id as string;
  const seen: Array<{ status: string; progress: number | null }> = [];
  for (;;) {
    const r = await acct.client.get(`/jobs/${id}`);
    seen.push({ status: r.body.status, progress: r.body.progress });
    if (isFinal(r.body)) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  const running = seen.filter((s) => s.status === 'processing').map((s) => s.progress as number);
  expect(seen.filter((s) => s.status === 'queued').every((s) => s.progress === 0)).toBe(true);
  // at least one value strictly between 0 and 1 is seen while it runs
  expect(running.some((p) => p > 0 && p < 1)).toBe(true);
  expect(running.every((p, i) => i === 0 || p >= running[i - 1])).toBe(true);
  expect(seen[seen.length - 1]).toEqual({ status: 'succeeded', progress: 1 });
});

test('POST /upscale with Prefer: wait answers 200 with the final job; wait=0 answers 202 as before', async () => {
  const acct = await newAccount(jobs.svc, { credits: 20 });
  const waited = await acct.client.upload(
    await gradientImage(24, 16),
    { target: '2k', quality: 'fast' },
    { headers: { prefer: 'wait=60' } },
  );
  expect({
    status: waited.status,
    applied: waited.headers.get('preference-applied'),
    job: waited.body.status,
    progress: waited.body.progress,
    result: waited.body.result && { width: waited.body.result.width, height: waited.body.result.height },
  }).toEqual({ status: 200, applied: 'wait=60', job: 'succeeded', progress: 1, result: { width: 48, height: 32 } });
  const now = await acct.client.upload(await gradientImage(24, 16), { target: '2k', quality: 'fast' }, { headers: { prefer: 'wait=0' } });
  expect({ status: now.status, applied: now.headers.get('preference-applied'), job: now.body.status }).toEqual({
    status: 202,
    applied: 'wait=0',
    job: 'queued',
  });
  await acct.client.waitForFinal(now.body.id);
  await settledLedger(acct);
});

test('a wait beyond 60 s is served as 60; an unusable preference is ignored (no Preference-Applied)', async () => {
  const acct = await newAccount(jobs.svc, { credits: 20 });
  const id = (await acct.client.upload(await gradientImage(16, 16), { target: '2k', quality: 'fast' })).body.id;
  await acct.client.waitForFinal(id);
  const long = await acct.client.get(`/jobs/${id}`, { prefer: 'wait=600' });
  const junk = await acct.client.get(`/jobs/${id}`, { prefer: 'wait=soon, respond-async' });
  expect([long.headers.get('preference-applied'), junk.status, junk.headers.get('preference-applied'), junk.body.status]).toEqual([
    'wait=60',
    200,
    null,
    'succeeded',
  ]);
});

describeStandalone('a job that stays queued (standalone: one processor)', () => {
  const blocker = useOccupiedProcessor(jobs);

  test('GET with Prefer: wait=2 answers after about 2 s with the job as it is then; a cancel ends a wait at once', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const id = (await acct.client.upload(await gradientImage(16, 16), { target: '2k', quality: 'fast' })).body.id;
    const t0 = Date.now();
    const res = await acct.client.get(`/jobs/${id}`, { prefer: 'wait=2' });
    const waitedMs = Date.now() - t0;
    expect({
      status: res.status,
      applied: res.headers.get('preference-applied'),
      job: res.body.status,
      progress: res.body.progress,
      started: res.body.started_at,
    }).toEqual({ status: 200, applied: 'wait=2', job: 'queued', progress: 0, started: null });
    expect(waitedMs).toBeGreaterThanOrEqual(1_900);
    expect(waitedMs).toBeLessThan(10_000);
    // the wait ends early when the job does: cancel it from another request while one waits
    const waiting = acct.client.get(`/jobs/${id}`, { prefer: 'wait=30' });
    await new Promise((r) => setTimeout(r, 300));
    const t1 = Date.now();
    expect((await acct.client.delete(`/jobs/${id}`)).status).toBe(200);
    const ended = await waiting;
    expect({ job: ended.body.status, progress: ended.body.progress }).toEqual({ job: 'cancelled', progress: null });
    expect(Date.now() - t1).toBeLessThan(5_000);
    // the blocker is running: its progress is between 0 and 1
    const running = await blocker.owner.get(`/jobs/${blocker.jobId}`);
    expect(running.body.status).toBe('processing');
    expect(running.body.progress).toBeGreaterThanOrEqual(0);
    expect(running.body.progress).toBeLessThan(1);
    expect(running.body.started_at).toMatch(ISO_UTC);
  });

  test('Prefer: wait with If-None-Match answers at the next change: 304 while queued, processing within a second of its start', async () => {
    const acct = await newAccount(jobs.svc, { credits: 10 });
    const id = (await acct.client.upload(await gradientImage(16, 16), { target: '2k', quality: 'fast' })).body.id;
    const queued = await acct.client.get(`/jobs/${id}`);
    const etag = queued.headers.get('etag')!;
    expect([queued.body.status, etag]).toEqual(['queued', expect.stringMatching(/^W\/".+"$/)]);
    // nothing moves for a second: 304 with the same tag, after the wait
    const t0 = Date.now();
    const same = await acct.client.get(`/jobs/${id}`, { prefer: 'wait=1', 'if-none-match': etag });
    expect([same.status, same.headers.get('etag'), same.text]).toEqual([304, etag, '']);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    // the blocker ends, the job starts: the waiting request answers with the new view at once
    const waiting = acct.client.get(`/jobs/${id}`, { prefer: 'wait=30', 'if-none-match': etag });
    await new Promise((r) => setTimeout(r, 200));
    await blocker.release();
    const changed = await waiting;
    const answeredAt = Date.now();
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(['processing', 'succeeded']).toContain(changed.body.status);
    if (changed.body.status === 'processing') expect(answeredAt - Date.parse(changed.body.started_at)).toBeLessThan(1_000);
  });
});
