import { gradientImage } from '@upscaler/testing';
import {
  describeStandalone,
  expectError,
  isFinal,
  ledger,
  newAccount,
  settledLedger,
  sleep,
  useJobsService,
  useOccupiedProcessor,
  waitForJob,
} from './jobs-harness';
import { pngWithGarbledIdat } from './jobs-images';

/**
 * Spec 1: credits are reserved on submit, refunded when the job fails or is cancelled, and only
 * successful output is charged (2k 3, 3k 6, 4k 9). docs/design.md §2: granted = balance + reserved + charged
 * at any moment, and no account goes below zero.
 */

const jobs = useJobsService();

describeStandalone('while the job waits in the queue (standalone: one processor)', () => {
  useOccupiedProcessor(jobs);

  test.each([
    ['2k', 3],
    ['3k', 6],
    ['4k', 9],
  ])('a %s submit reserves %i credits: GET /account shows them reserved', async (target, credits) => {
    const acct = await newAccount(jobs.svc, { credits: 20 });
    const res = await acct.client.upload(jobs.image, { target });
    expect({ status: res.status, credits: res.body.credits }).toEqual({
      status: 202,
      credits,
    });
    const seen = await ledger(acct);
    // the observation counts only if the job had not started yet
    expect((await acct.client.get(`/jobs/${res.body.id}`)).body.status).toBe('queued');
    expect(seen).toEqual({
      balance: 20 - credits,
      reserved: credits,
      charged: 0,
    });
    expect((await acct.client.delete(`/jobs/${res.body.id}`)).status).toBe(200);
  });

  test('a cancelled job gives its credits back', async () => {
    const acct = await newAccount(jobs.svc, { credits: 20 });
    const res = await acct.client.upload(jobs.image, { target: '4k' });
    expect((await acct.client.delete(`/jobs/${res.body.id}`)).status).toBe(200);
    expect(await settledLedger(acct)).toEqual({
      balance: 20,
      reserved: 0,
      charged: 0,
    });
  });
});

test.each([
  ['2k', 3],
  ['3k', 6],
  ['4k', 9],
])('a succeeded %s job is charged %i credits', async (target, credits) => {
  const acct = await newAccount(jobs.svc, { credits: 20 });
  const res = await acct.client.upload(jobs.image, { target });
  const job = await waitForJob(acct.client, res.body.id, isFinal);
  expect(job.status).toBe('succeeded');
  expect(await settledLedger(acct)).toEqual({
    balance: 20 - credits,
    reserved: 0,
    charged: credits,
  });
});

test('a failed job is refunded: nothing is charged', async () => {
  const acct = await newAccount(jobs.svc, { credits: 20 });
  const res = await acct.client.upload(pngWithGarbledIdat(await gradientImage(32, 32)), { target: '4k' });
  expect(res.status).toBe(202);
  const job = await waitForJob(acct.client, res.body.id, isFinal);
  expect(job.status).toBe('failed');
  expect(await settledLedger(acct)).toEqual({
    balance: 20,
    reserved: 0,
    charged: 0,
  });
});

test('balance + reserved + charged = granted at every observation while jobs succeed, fail and are cancelled', async () => {
  const acct = await newAccount(jobs.svc, { credits: 40 });
  let observations = 0;
  let watching = true;
  const watcher = (async () => {
    while (watching) {
      await ledger(acct); // asserts the invariant
      observations++;
      await sleep(25);
    }
  })();
  let finals: Array<Record<string, any>>;
  let final: { balance: number; reserved: number; charged: number };
  let cancelStatus: number;
  try {
    const ids: string[] = [];
    for (const target of ['2k', '3k', '4k']) ids.push((await acct.client.upload(jobs.image, { target })).body.id);
    ids.push((await acct.client.upload(pngWithGarbledIdat(await gradientImage(32, 32)), { target: '2k' })).body.id);
    const cancelled = (await acct.client.upload(jobs.image, { target: '4k' })).body.id;
    cancelStatus = (await acct.client.delete(`/jobs/${cancelled}`)).status;
    finals = await Promise.all([...ids, cancelled].map((id) => waitForJob(acct.client, id, isFinal)));
    final = await settledLedger(acct);
  } finally {
    watching = false;
    await watcher;
  }
  const statuses = finals.map((j) => j.status);
  expect(statuses.slice(0, 4)).toEqual(['succeeded', 'succeeded', 'succeeded', 'failed']);
  // the cancel may lose to a fast finish (spec 3, rule 2); the ledger must follow whichever won
  const lastCharged = statuses[4] === 'succeeded' ? 9 : 0;
  expect(cancelStatus).toBe(statuses[4] === 'cancelled' ? 200 : 409);
  expect(final).toEqual({
    balance: 40 - 18 - lastCharged,
    reserved: 0,
    charged: 18 + lastCharged,
  });
  expect(observations).toBeGreaterThan(3);
});

test('a balance lower than the job needs: 402 insufficient_credits, no job and nothing reserved', async () => {
  const acct = await newAccount(jobs.svc, { credits: 5 });
  const refused = await acct.client.upload(jobs.image, { target: '3k' });
  expectError(refused, 402, 'insufficient_credits');
  // the numbers a user needs: the balance and the price
  expect(refused.body.error.message).toBe('The balance (5) is lower than the 6 credits the job needs.');
  expect(await ledger(acct)).toEqual({ balance: 5, reserved: 0, charged: 0 });
  expect((await acct.client.get('/jobs')).body.data).toEqual([]);
});

test('a balance of exactly the price is enough', async () => {
  const acct = await newAccount(jobs.svc, { credits: 3 });
  expect((await acct.client.upload(jobs.image, { target: '2k' })).status).toBe(202);
  const l = await ledger(acct);
  expect({ balance: l.balance, held: l.reserved + l.charged }).toEqual({
    balance: 0,
    held: 3,
  });
});

test('concurrent submits never overdraw: balance 10, eight concurrent 2k submits give three 202 and five 402, then balance 1', async () => {
  const acct = await newAccount(jobs.svc, { credits: 10 });
  const answers = await Promise.all(Array.from({ length: 8 }, () => acct.client.upload(jobs.image, { target: '2k' })));
  const statuses = answers.map((a) => a.status).sort();
  expect(statuses).toEqual([202, 202, 202, 402, 402, 402, 402, 402]);
  for (const a of answers.filter((x) => x.status === 402)) expectError(a, 402, 'insufficient_credits');
  const accepted = answers.filter((a) => a.status === 202).map((a) => a.body.id as string);
  const finals = await Promise.all(accepted.map((id) => waitForJob(acct.client, id, isFinal)));
  expect(finals.map((j) => j.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  expect(await settledLedger(acct)).toEqual({
    balance: 1,
    reserved: 0,
    charged: 9,
  });
  expect((await acct.client.get('/jobs')).body.data).toHaveLength(3);
});
