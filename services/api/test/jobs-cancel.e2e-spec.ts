import { gradientImage } from '@upscaler/testing';
import {
  ISO_UTC,
  describeStandalone,
  download,
  expectError,
  isFinal,
  ledger,
  newAccount,
  settledLedger,
  sleep,
  useJobsService,
  useOccupiedProcessor,
  testStandalone,
  waitForJob,
} from './jobs-harness';
import { pngWithGarbledIdat } from './jobs-images';

/**
 * Spec 4.5 and spec 3: DELETE cancels a job that has not reached a final state and returns its
 * credits (200, cancel view); a final job answers 409 conflict; when finishing and cancelling race,
 * the finish wins and the cancel gets 409.
 */

const jobs = useJobsService();

describeStandalone('a queued job (standalone: one processor)', () => {
  const blocker = useOccupiedProcessor(jobs);

  test('DELETE answers 200 with exactly the cancel view', async () => {
    const acct = await newAccount(jobs.svc, { credits: 20 });
    const created = (await acct.client.upload(jobs.image, { target: '3k' })).body;
    const res = await acct.client.delete(`/jobs/${created.id}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'credits', 'finished_at', 'id', 'object', 'status', 'target']);
    expect(res.body).toEqual({
      id: created.id,
      object: 'job',
      status: 'cancelled',
      target: '3k',
      credits: 6,
      created_at: created.created_at,
      finished_at: expect.stringMatching(ISO_UTC),
    });
  });

  test('the credits are returned to the account', async () => {
    const acct = await newAccount(jobs.svc, { credits: 20 });
    const created = (await acct.client.upload(jobs.image, { target: '4k' })).body;
    expect(await ledger(acct)).toEqual({
      balance: 11,
      reserved: 9,
      charged: 0,
    });
    expect((await acct.client.delete(`/jobs/${created.id}`)).status).toBe(200);
    expect(await settledLedger(acct)).toEqual({
      balance: 20,
      reserved: 0,
      charged: 0,
    });
  });

  test('the job then reads cancelled with finished_at, no result and no error', async () => {
    const acct = await newAccount(jobs.svc, { credits: 20 });
    const created = (await acct.client.upload(jobs.image)).body;
    const cancel = await acct.client.delete(`/jobs/${created.id}`);
    const job = (await acct.client.get(`/jobs/${created.id}`)).body;
    expect({
      status: job.status,
      finished_at: job.finished_at,
      result: job.result,
      error: job.error,
    }).toEqual({
      status: 'cancelled',
      finished_at: cancel.body.finished_at,
      result: null,
      error: null,
    });
  });

  test('five concurrent DELETEs: exactly one 200, four 409 conflict, one refund', async () => {
    const acct = await newAccount(jobs.svc, { credits: 20 });
    const created = (await acct.client.upload(jobs.image)).body;
    const answers = await Promise.all(Array.from({ length: 5 }, () => acct.client.delete(`/jobs/${created.id}`)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409]);
    for (const a of answers.filter((x) => x.status === 409)) expectError(a, 409, 'conflict');
    expect(await settledLedger(acct)).toEqual({
      balance: 20,
      reserved: 0,
      charged: 0,
    });
  });

  test('the cancelled job is never processed: it stays cancelled after the queue drains', async () => {
    const acct = await newAccount(jobs.svc, { credits: 20 });
    const cancelled = (await acct.client.upload(jobs.image)).body.id;
    expect((await acct.client.delete(`/jobs/${cancelled}`)).status).toBe(200);
    const later = (await acct.client.upload(jobs.image)).body.id;
    await blocker.release();
    await waitForJob(acct.client, later, isFinal);
    expect((await acct.client.get(`/jobs/${cancelled}`)).body.status).toBe('cancelled');
    expect(await settledLedger(acct)).toEqual({
      balance: 17,
      reserved: 0,
      charged: 3,
    });
  });
});

describe('a final job: DELETE answers 409 conflict (spec 3, rule 1)', () => {
  test('succeeded: 409 conflict, the charge stands and the result stays downloadable', async () => {
    const acct = await newAccount(jobs.svc, { credits: 20 });
    const id = (await acct.client.upload(jobs.image)).body.id;
    expect((await waitForJob(acct.client, id, isFinal)).status).toBe('succeeded');
    expectError(await acct.client.delete(`/jobs/${id}`), 409, 'conflict');
    expect((await acct.client.get(`/jobs/${id}`)).body.status).toBe('succeeded');
    expect(await settledLedger(acct)).toEqual({
      balance: 17,
      reserved: 0,
      charged: 3,
    });
    expect((await acct.client.get(`/jobs/${id}/result`)).status).toBe(302);
  });

  test('failed: 409 conflict', async () => {
    const acct = await newAccount(jobs.svc, { credits: 20 });
    const id = (await acct.client.upload(pngWithGarbledIdat(await gradientImage(32, 32)))).body.id;
    expect((await waitForJob(acct.client, id, isFinal)).status).toBe('failed');
    expectError(await acct.client.delete(`/jobs/${id}`), 409, 'conflict');
    expect(await settledLedger(acct)).toEqual({
      balance: 20,
      reserved: 0,
      charged: 0,
    });
  });

  test('cancelled: a second DELETE answers 409 conflict and refunds nothing more', async () => {
    const acct = await newAccount(jobs.svc, { credits: 20 });
    const id = (await acct.client.upload(await gradientImage(512, 512), { target: '4k' })).body.id;
    const first = await acct.client.delete(`/jobs/${id}`);
    expect(first.status).toBe(200);
    expectError(await acct.client.delete(`/jobs/${id}`), 409, 'conflict');
    expect(await settledLedger(acct)).toEqual({
      balance: 20,
      reserved: 0,
      charged: 0,
    });
  });
});

test('a processing job is cancelled: 200, refunded, and the processor moves on to the next job', async () => {
  const acct = await newAccount(jobs.svc, { credits: 20 });
  const id = (await acct.client.upload(await gradientImage(512, 512), { target: '4k' })).body.id;
  await waitForJob(acct.client, id, (j) => j.status === 'processing');
  const res = await acct.client.delete(`/jobs/${id}`);
  expect({ status: res.status, jobStatus: res.body.status }).toEqual({
    status: 200,
    jobStatus: 'cancelled',
  });
  const next = (await acct.client.upload(jobs.image)).body.id;
  expect((await waitForJob(acct.client, next, isFinal)).status).toBe('succeeded');
  expect((await acct.client.get(`/jobs/${id}`)).body.status).toBe('cancelled');
  expect(await settledLedger(acct)).toEqual({
    balance: 17,
    reserved: 0,
    charged: 3,
  });
});

testStandalone('a running job stops within 500 ms of its cancel: the one processor starts the next job by then', async () => {
  const blocker = await newAccount(jobs.svc, { credits: 9 });
  const acct = await newAccount(jobs.svc, { credits: 3 });
  const long = (await blocker.client.upload(await gradientImage(512, 512), { target: '4k', quality: 'fast' })).body.id;
  await waitForJob(blocker.client, long, (j) => j.status === 'processing');
  const next = (await acct.client.upload(jobs.image)).body.id;
  expect((await acct.client.get(`/jobs/${next}`)).body.status).toBe('queued');
  const res = await blocker.client.delete(`/jobs/${long}`);
  expect(res.status).toBe(200);
  // the refund is in the account when DELETE answers (settled on final)
  expect(await ledger(blocker)).toEqual({ balance: 9, reserved: 0, charged: 0 });
  const started = await waitForJob(acct.client, next, (j) => j.status !== 'queued', 10_000);
  // Measured on the server's clock: the cancel's finished_at to the next job's started_at. What the client sees
  // adds its own polling (100 ms) and request time on a loaded CI machine, which is not the processor's delay.
  const startedAfterMs = Date.parse(started.started_at) - Date.parse(res.body.finished_at);
  console.log(`the next job started ${startedAfterMs} ms after the cancel (server clock)`);
  expect(startedAfterMs).toBeGreaterThanOrEqual(0);
  expect(startedAfterMs).toBeLessThanOrEqual(500);
  expect((await waitForJob(acct.client, next, isFinal)).status).toBe('succeeded');
});

test('DELETE fired repeatedly while a job runs: either succeeded and charged with every DELETE 409, or cancelled and refunded with one 200 — never both', async () => {
  const outcomes: string[] = [];
  // a 128x128 image at 4k runs about a second here: the later DELETEs land around its finish
  const input = await gradientImage(128, 128);
  for (const delayMs of [0, 100, 200, 350, 500, 700, 1000, 1400]) {
    const acct = await newAccount(jobs.svc, { credits: 9 });
    const id = (await acct.client.upload(input, { target: '4k' })).body.id;
    while ((await acct.client.get(`/jobs/${id}`)).body.status === 'queued') await sleep(10);
    await sleep(delayMs);
    const answers: number[] = [];
    for (;;) {
      const res = await acct.client.delete(`/jobs/${id}`);
      answers.push(res.status);
      if (res.status === 409) expectError(res, 409, 'conflict');
      else expect(res.status).toBe(200);
      if (res.status === 200 || answers.length >= 200) break;
      if (isFinal((await acct.client.get(`/jobs/${id}`)).body)) break;
    }
    // and a few more once the job is final
    for (let i = 0; i < 2; i++) answers.push((await acct.client.delete(`/jobs/${id}`)).status);
    const job = await waitForJob(acct.client, id, isFinal);
    const final = await settledLedger(acct);
    const oks = answers.filter((s) => s === 200).length;
    if (job.status === 'succeeded') {
      expect({ oks, final }).toEqual({
        oks: 0,
        final: { balance: 0, reserved: 0, charged: 9 },
      });
      const result = await acct.client.get(`/jobs/${id}/result`);
      expect(result.status).toBe(302);
      expect((await download(result.headers.get('location')!)).bytes.length).toBe(job.result.bytes);
    } else {
      expect({ status: job.status, oks, final }).toEqual({
        status: 'cancelled',
        oks: 1,
        final: { balance: 9, reserved: 0, charged: 0 },
      });
      expectError(await acct.client.get(`/jobs/${id}/result`), 409, 'result_not_ready');
      // every DELETE after the successful one got 409
      expect(answers.slice(answers.indexOf(200) + 1).every((s) => s === 409)).toBe(true);
    }
    outcomes.push(`${delayMs}ms:${job.status}`);
  }
  // both branches are legal; which ones occurred depends on timing
  expect(outcomes).toHaveLength(8);
  console.log(`cancel race outcomes: ${outcomes.join(' ')}`);
});
