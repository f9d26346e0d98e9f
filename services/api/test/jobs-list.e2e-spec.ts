import sharp from 'sharp';
import { THUMBNAIL_LINK_WINDOW_SECONDS } from '@upscaler/contracts';
import { gradientImage } from '@upscaler/testing';
import {
  ISO_UTC,
  JOB_ID,
  download,
  expectError,
  isFinal,
  newAccount,
  sleep,
  useJobsService,
  waitForJob,
  type TestAccount,
} from './jobs-harness';
import { pngWithGarbledIdat } from './jobs-images';

/** Spec 4.2 (GET /jobs/{id}), spec 4.3 (GET /jobs), spec 2 (job fields and partial views). */

const jobs = useJobsService();

async function submitMany(acct: TestAccount, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await acct.client.upload(jobs.image);
    if (res.status !== 202) throw new Error(`submit: ${res.status} ${res.text}`);
    ids.push(res.body.id);
  }
  return ids;
}

const idsOf = (page: { data: Array<{ id: string }> }) => page.data.map((j) => j.id);

describe('GET /jobs/{id} (spec 4.2)', () => {
  test('a succeeded job: every field of spec 2, with the right types', async () => {
    const acct = await newAccount(jobs.svc);
    const created = await acct.client.upload(jobs.image, { format: 'png' }, { filename: 'tiny.png' });
    await waitForJob(acct.client, created.body.id, isFinal);
    const res = await acct.client.get(`/jobs/${created.body.id}`);
    expect(res.status).toBe(200);
    const job = res.body;
    expect(Object.keys(job).sort()).toEqual(
      [
        // spec 2, Job table
        'id',
        'object',
        'status',
        'target',
        'filename',
        'credits',
        'error',
        'source',
        'result',
        'created_at',
        'finished_at',
        'duration_ms',
        // additive fields (spec 9, rule 2)
        'format',
        'quality',
        'requested_target',
        'started_at',
        'progress',
        'content',
        'size',
        'files_expire_at',
      ].sort(),
    );
    expect(job).toEqual({
      id: created.body.id,
      object: 'job',
      status: 'succeeded',
      target: '2k',
      filename: 'tiny.png',
      credits: 3,
      error: null,
      source: { bytes: jobs.image.length, content_type: 'image/png', width: 16, height: 16 },
      result: {
        bytes: expect.any(Number),
        content_type: 'image/png',
        url: `/api/v1/jobs/${created.body.id}/result`,
        width: 32,
        height: 32,
      },
      created_at: created.body.created_at,
      finished_at: expect.stringMatching(ISO_UTC),
      duration_ms: expect.any(Number),
      started_at: expect.stringMatching(ISO_UTC),
      progress: 1,
      format: 'png',
      quality: expect.any(String),
      requested_target: '2k',
      content: 'photo',
      // asked for by target; the service keeps files (no retention set)
      size: null,
      files_expire_at: null,
    });
    expect(Number.isInteger(job.duration_ms) && job.duration_ms >= 0).toBe(true);
    expect(Number.isInteger(job.result.bytes) && job.result.bytes > 0).toBe(true);
    expect(Date.parse(job.finished_at)).toBeGreaterThanOrEqual(Date.parse(job.created_at));
  });

  test('a failed job carries error { code, message }, no result, and finished_at', async () => {
    const acct = await newAccount(jobs.svc);
    const created = await acct.client.upload(pngWithGarbledIdat(await gradientImage(32, 32)));
    const job = await waitForJob(acct.client, created.body.id, isFinal);
    expect({
      status: job.status,
      error: job.error,
      result: job.result,
      finished: ISO_UTC.test(job.finished_at),
    }).toEqual({
      status: 'failed',
      error: { code: 'corrupt_image', message: expect.any(String) },
      result: null,
      finished: true,
    });
    // the list tells it apart from the jobs that worked: its item carries the same error
    const item = (await acct.client.get('/jobs')).body.data.find((j: { id: string }) => j.id === job.id);
    expect([item.status, item.error]).toEqual(['failed', job.error]);
  });

  test('an unknown job id: 404 job_not_found', async () => {
    const acct = await newAccount(jobs.svc);
    expectError(await acct.client.get('/jobs/job_0190a1b2c3d47e8f9a0b1c2d3e4f5a6b'), 404, 'job_not_found');
  });

  test('a malformed job id: 404 job_not_found', async () => {
    const acct = await newAccount(jobs.svc);
    expectError(await acct.client.get('/jobs/not-a-job'), 404, 'job_not_found');
  });

  test("another account's job: 404 job_not_found (not 403) on GET, DELETE and result, and it stays untouched", async () => {
    const owner = await newAccount(jobs.svc);
    const other = await newAccount(jobs.svc);
    const created = await owner.client.upload(jobs.image);
    const id = created.body.id;
    expectError(await other.client.get(`/jobs/${id}`), 404, 'job_not_found');
    expectError(await other.client.delete(`/jobs/${id}`), 404, 'job_not_found');
    expectError(await other.client.get(`/jobs/${id}/result`), 404, 'job_not_found');
    expectError(await other.client.get(`/jobs/${id}/result?redirect=false&asset=source`), 404, 'job_not_found');
    const job = await waitForJob(owner.client, id, isFinal);
    expect(job.status).toBe('succeeded');
  });
});

describe('GET /jobs (spec 4.3)', () => {
  test("newest first, as list items: the spec's fields plus filename, format, quality and error", async () => {
    const acct = await newAccount(jobs.svc);
    const ids = await submitMany(acct, 3);
    const res = await acct.client.get('/jobs');
    expect(res.status).toBe(200);
    expect({
      object: res.body.object,
      ids: idsOf(res.body),
      has_more: res.body.has_more,
      next_cursor: res.body.next_cursor,
    }).toEqual({
      object: 'list',
      ids: [...ids].reverse(),
      has_more: false,
      next_cursor: null,
    });
    for (const item of res.body.data) {
      // the spec's six fields, plus what tells jobs apart (additive): filename, format, quality, error, thumbnail
      expect(Object.keys(item).sort()).toEqual([
        'created_at',
        'credits',
        'error',
        'filename',
        'format',
        'id',
        'object',
        'quality',
        'status',
        'target',
        'thumbnail',
      ]);
      expect(item).toEqual({
        id: expect.stringMatching(JOB_ID),
        object: 'job',
        status: expect.any(String),
        target: '2k',
        credits: 3,
        created_at: expect.stringMatching(ISO_UTC),
        filename: 'image.png',
        format: 'png',
        quality: (await acct.client.get(`/jobs/${item.id}`)).body.quality,
        error: null,
        // a 16 x 16 source is never enlarged
        thumbnail: { url: expect.stringMatching(/^http:\/\//), width: 16, height: 16 },
      });
    }
    const times = res.body.data.map((j: { created_at: string }) => Date.parse(j.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  test("each item's thumbnail is a signed link (no key) to a WebP of the source within 160 px, the same link on the next list", async () => {
    const acct = await newAccount(jobs.svc);
    const photo = await gradientImage(400, 300);
    const created = await acct.client.upload(photo, {}, { filename: 'wide.png' });
    expect(created.status).toBe(202);
    const windowOf = (ms: number) => Math.floor(ms / 1000 / THUMBNAIL_LINK_WINDOW_SECONDS);
    const before = Date.now();
    const first = (await acct.client.get('/jobs')).body.data[0];
    const second = (await acct.client.get('/jobs')).body.data[0];
    const after = Date.now();
    expect(first.thumbnail).toEqual({ url: expect.stringMatching(/^http:\/\//), width: 160, height: 120 });
    // the link is signed as of the start of a 5-minute window: the same link unless the two lists straddle its end
    expect(second.thumbnail.url === first.thumbnail.url).toBe(windowOf(before) === windowOf(after));
    const file = await download(first.thumbnail.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/webp');
    const meta = await sharp(file.bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 160, 120]);
  });

  test('newest first holds for jobs created concurrently: created_at never increases down the list', async () => {
    const acct = await newAccount(jobs.svc, { credits: 100 });
    const answers = await Promise.all(Array.from({ length: 10 }, () => acct.client.upload(jobs.image)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(202));
    const listed = (await acct.client.get('/jobs')).body.data as Array<{
      id: string;
      created_at: string;
    }>;
    expect(listed).toHaveLength(10);
    const times = listed.map((j) => Date.parse(j.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  test("lists only the caller's jobs", async () => {
    const one = await newAccount(jobs.svc);
    const two = await newAccount(jobs.svc);
    const mine = await submitMany(one, 2);
    await submitMany(two, 2);
    expect(idsOf((await one.client.get('/jobs')).body).sort()).toEqual([...mine].sort());
  });

  test('the default page size is 25', async () => {
    const acct = await newAccount(jobs.svc, { credits: 100 });
    const ids = await submitMany(acct, 26);
    const first = await acct.client.get('/jobs');
    expect({
      count: first.body.data.length,
      has_more: first.body.has_more,
      next_cursor: first.body.next_cursor,
    }).toEqual({
      count: 25,
      has_more: true,
      next_cursor: ids[1],
    });
    const second = await acct.client.get(`/jobs?starting_after=${first.body.next_cursor}`);
    expect({
      ids: idsOf(second.body),
      has_more: second.body.has_more,
      next_cursor: second.body.next_cursor,
    }).toEqual({
      ids: [ids[0]],
      has_more: false,
      next_cursor: null,
    });
  });

  test('limit 1 and limit 100 are accepted', async () => {
    const acct = await newAccount(jobs.svc);
    const ids = await submitMany(acct, 2);
    expect(idsOf((await acct.client.get('/jobs?limit=1')).body)).toEqual([ids[1]]);
    expect(idsOf((await acct.client.get('/jobs?limit=100')).body)).toEqual([ids[1], ids[0]]);
  });

  test('a page that holds exactly the last jobs has has_more false and next_cursor null', async () => {
    const acct = await newAccount(jobs.svc);
    const ids = await submitMany(acct, 2);
    const page = (await acct.client.get('/jobs?limit=2')).body;
    expect({
      ids: idsOf(page),
      has_more: page.has_more,
      next_cursor: page.next_cursor,
    }).toEqual({
      ids: [ids[1], ids[0]],
      has_more: false,
      next_cursor: null,
    });
  });

  test.each(['0', '101', 'abc', '1.5', '-1', ''])('limit=%s: 400 invalid_request', async (limit) => {
    const acct = await newAccount(jobs.svc);
    expectError(await acct.client.get(`/jobs?limit=${limit}`), 400, 'invalid_request');
  });

  test('starting_after pages through every job once, with has_more and next_cursor = the last id of the page', async () => {
    const acct = await newAccount(jobs.svc);
    const ids = await submitMany(acct, 5);
    const newestFirst = [...ids].reverse();
    const p1 = (await acct.client.get('/jobs?limit=2')).body;
    const p2 = (await acct.client.get(`/jobs?limit=2&starting_after=${p1.next_cursor}`)).body;
    const p3 = (await acct.client.get(`/jobs?limit=2&starting_after=${p2.next_cursor}`)).body;
    expect(
      [p1, p2, p3].map((p) => ({
        ids: idsOf(p),
        has_more: p.has_more,
        next_cursor: p.next_cursor,
      })),
    ).toEqual([
      {
        ids: newestFirst.slice(0, 2),
        has_more: true,
        next_cursor: newestFirst[1],
      },
      {
        ids: newestFirst.slice(2, 4),
        has_more: true,
        next_cursor: newestFirst[3],
      },
      { ids: newestFirst.slice(4), has_more: false, next_cursor: null },
    ]);
  });

  test('status filter: only jobs in that state', async () => {
    const acct = await newAccount(jobs.svc);
    const good = await submitMany(acct, 2);
    const bad = (await acct.client.upload(pngWithGarbledIdat(await gradientImage(32, 32)))).body.id;
    await Promise.all([...good, bad].map((id) => waitForJob(acct.client, id, isFinal)));
    expect(idsOf((await acct.client.get('/jobs?status=succeeded')).body)).toEqual([good[1], good[0]]);
    expect(idsOf((await acct.client.get('/jobs?status=failed')).body)).toEqual([bad]);
    expect(idsOf((await acct.client.get('/jobs?status=cancelled')).body)).toEqual([]);
    expect(idsOf((await acct.client.get('/jobs?status=queued')).body)).toEqual([]);
  });

  test('status filter with paging: starting_after continues within the filter', async () => {
    const acct = await newAccount(jobs.svc);
    const good = await submitMany(acct, 3);
    await Promise.all(good.map((id) => waitForJob(acct.client, id, isFinal)));
    const p1 = (await acct.client.get('/jobs?status=succeeded&limit=2')).body;
    const p2 = (await acct.client.get(`/jobs?status=succeeded&limit=2&starting_after=${p1.next_cursor}`)).body;
    expect([...idsOf(p1), ...idsOf(p2)]).toEqual([...good].reverse());
    expect(p2.has_more).toBe(false);
  });

  test('an unknown status: 400 invalid_request', async () => {
    const acct = await newAccount(jobs.svc);
    expectError(await acct.client.get('/jobs?status=done'), 400, 'invalid_request');
  });

  test('starting_after that is not a job of this account: 400 invalid_cursor', async () => {
    const acct = await newAccount(jobs.svc);
    const other = await newAccount(jobs.svc);
    const foreign = (await other.client.upload(jobs.image)).body.id;
    expectError(await acct.client.get(`/jobs?starting_after=${foreign}`), 400, 'invalid_cursor');
    expectError(await acct.client.get('/jobs?starting_after=job_0190a1b2c3d47e8f9a0b1c2d3e4f5a6b'), 400, 'invalid_cursor');
    expectError(await acct.client.get('/jobs?starting_after=garbage'), 400, 'invalid_cursor');
  });

  test('a full walk with limit=2 while new jobs are created neither skips nor repeats a job that existed when it began', async () => {
    const acct = await newAccount(jobs.svc, { credits: 100 });
    const existing = await submitMany(acct, 9);
    let creating = true;
    const created: string[] = [];
    const creator = (async () => {
      while (creating && created.length < 12) created.push(...(await submitMany(acct, 1)));
    })();
    const walked: string[] = [];
    try {
      let cursor: string | null = null;
      for (let pages = 0; pages < 50; pages++) {
        const res: { status: number; body: any } = await acct.client.get(`/jobs?limit=2${cursor ? `&starting_after=${cursor}` : ''}`);
        expect(res.status).toBe(200);
        walked.push(...idsOf(res.body));
        if (!res.body.has_more) break;
        cursor = res.body.next_cursor;
        await sleep(50); // let new jobs arrive mid-walk
      }
    } finally {
      creating = false;
      await creator;
    }
    expect(new Set(walked).size).toBe(walked.length);
    expect(walked.filter((id) => existing.includes(id))).toEqual([...existing].reverse());
    // newest first throughout: ids are time-ordered
    expect(walked).toEqual([...walked].sort().reverse());
    expect(created.length).toBeGreaterThan(0);
  });
});
