import { randomUUID } from 'node:crypto';
import { gradientImage } from '@upscaler/testing';
import { expectError, isFinal, ledger, newAccount, settledLedger, useJobsService, waitForJob } from './jobs-harness';

/**
 * Spec 4.1, Idempotency-Key: a repeat of an earlier key returns the original job with 200; no second
 * job is created or charged. docs/design.md §4: keys are scoped to the account, the same key with different
 * parameters is rejected, two concurrent requests with one key create one job.
 */

const jobs = useJobsService();

const withKey = (key: string) => ({ headers: { 'Idempotency-Key': key } });

test('a replay answers 200 with the original job', async () => {
  const acct = await newAccount(jobs.svc, { credits: 10 });
  const key = randomUUID();
  const first = await acct.client.upload(jobs.image, { target: '2k' }, withKey(key));
  const replay = await acct.client.upload(jobs.image, { target: '2k' }, withKey(key));
  expect(first.status).toBe(202);
  expect(replay.status).toBe(200);
  expect({
    id: replay.body.id,
    target: replay.body.target,
    credits: replay.body.credits,
    created_at: replay.body.created_at,
  }).toEqual({
    id: first.body.id,
    target: '2k',
    credits: 3,
    created_at: first.body.created_at,
  });
});

test('a replay creates no second job: GET /jobs lists one', async () => {
  const acct = await newAccount(jobs.svc, { credits: 10 });
  const key = randomUUID();
  const first = await acct.client.upload(jobs.image, {}, withKey(key));
  await acct.client.upload(jobs.image, {}, withKey(key));
  await acct.client.upload(jobs.image, {}, withKey(key));
  const list = await acct.client.get('/jobs');
  expect(list.body.data.map((j: { id: string }) => j.id)).toEqual([first.body.id]);
});

test('a replay is charged once', async () => {
  const acct = await newAccount(jobs.svc, { credits: 10 });
  const key = randomUUID();
  const first = await acct.client.upload(jobs.image, {}, withKey(key));
  await waitForJob(acct.client, first.body.id, isFinal);
  const replay = await acct.client.upload(jobs.image, {}, withKey(key));
  expect({
    status: replay.status,
    id: replay.body.id,
    jobStatus: replay.body.status,
  }).toEqual({
    status: 200,
    id: first.body.id,
    jobStatus: 'succeeded',
  });
  expect(await settledLedger(acct)).toEqual({
    balance: 7,
    reserved: 0,
    charged: 3,
  });
});

test('a replay is answered even when the balance no longer covers a job', async () => {
  const acct = await newAccount(jobs.svc, { credits: 3 });
  const key = randomUUID();
  const first = await acct.client.upload(jobs.image, {}, withKey(key));
  const replay = await acct.client.upload(jobs.image, {}, withKey(key));
  expect([first.status, replay.status, replay.body.id]).toEqual([202, 200, first.body.id]);
});

test('a key whose request was refused with 402 is not used up: after a top-up the retry creates the job', async () => {
  const acct = await newAccount(jobs.svc, { credits: 2 });
  const key = randomUUID();
  expectError(await acct.client.upload(jobs.image, {}, withKey(key)), 402, 'insufficient_credits');
  const grant = await acct.operator.post(`/admin/accounts/${acct.accountId}/credits`, { amount: 8 });
  expect(grant.status).toBe(200);
  acct.granted += 8;
  const retry = await acct.client.upload(jobs.image, {}, withKey(key));
  expect(retry.status).toBe(202);
  const l = await ledger(acct);
  expect({ balance: l.balance, held: l.reserved + l.charged }).toEqual({
    balance: 7,
    held: 3,
  });
});

test.each([
  ['a different target', { target: '3k' }, undefined],
  ['a different format', { format: 'webp' }, undefined],
  ['a different image', {}, 'other'],
])('the same key with %s: 400 idempotency_key_reused, nothing reserved for it', async (_what, fields, otherImage) => {
  const acct = await newAccount(jobs.svc, { credits: 20 });
  const key = randomUUID();
  const first = await acct.client.upload(jobs.image, {}, withKey(key));
  expect(first.status).toBe(202);
  const img = otherImage ? await gradientImage(16, 17) : jobs.image;
  expectError(await acct.client.upload(img, fields as Record<string, string>, withKey(key)), 400, 'idempotency_key_reused');
  const l = await ledger(acct);
  expect({ balance: l.balance, held: l.reserved + l.charged }).toEqual({
    balance: 17,
    held: 3,
  });
  expect((await acct.client.get('/jobs')).body.data).toHaveLength(1);
});

test('two concurrent requests with one key create one job: the same id, one 202 and one 200', async () => {
  for (let round = 0; round < 4; round++) {
    const acct = await newAccount(jobs.svc, { credits: 30 });
    const key = randomUUID();
    const [a, b] = await Promise.all([acct.client.upload(jobs.image, {}, withKey(key)), acct.client.upload(jobs.image, {}, withKey(key))]);
    expect([a.status, b.status].sort()).toEqual([200, 202]);
    expect(a.body.id).toBe(b.body.id);
    expect((await acct.client.get('/jobs')).body.data.map((j: { id: string }) => j.id)).toEqual([a.body.id]);
    await waitForJob(acct.client, a.body.id, isFinal);
    expect(await settledLedger(acct)).toEqual({
      balance: 27,
      reserved: 0,
      charged: 3,
    });
  }
});

test('two concurrent requests with one key make one reservation: a balance of 3 covers both', async () => {
  for (let round = 0; round < 4; round++) {
    const acct = await newAccount(jobs.svc, { credits: 3 });
    const key = randomUUID();
    const [a, b] = await Promise.all([acct.client.upload(jobs.image, {}, withKey(key)), acct.client.upload(jobs.image, {}, withKey(key))]);
    expect({
      round,
      statuses: [a.status, b.status].sort(),
      sameId: a.body.id === b.body.id,
    }).toEqual({
      round,
      statuses: [200, 202],
      sameId: true,
    });
  }
});

test('keys are per account: another account may use the same key and gets its own job', async () => {
  const one = await newAccount(jobs.svc, { credits: 10 });
  const two = await newAccount(jobs.svc, { credits: 10 });
  const key = randomUUID();
  const a = await one.client.upload(jobs.image, {}, withKey(key));
  const b = await two.client.upload(jobs.image, {}, withKey(key));
  expect([a.status, b.status]).toEqual([202, 202]);
  expect(a.body.id).not.toBe(b.body.id);
  expect((await two.client.get(`/jobs/${a.body.id}`)).status).toBe(404);
});

test('an Idempotency-Key over 255 characters: 400 invalid_request', async () => {
  const acct = await newAccount(jobs.svc, { credits: 10 });
  expectError(await acct.client.upload(jobs.image, {}, withKey('k'.repeat(256))), 400, 'invalid_request');
});
