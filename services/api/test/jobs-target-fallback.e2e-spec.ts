import sharp from 'sharp';
import { gradientImage } from '@upscaler/testing';
import { downloadResult, expectError, isFinal, ledger, newAccount, settledLedger, useJobsService, waitForJob } from './jobs-harness';

/**
 * Spec 1, output size rule: when the engine refuses the requested target for an image, the service
 * falls back to the largest target it accepts; the job's target reports the one used. docs/design.md §4: the
 * credits of the target used are reserved; an image refused even at 2k gets a 4xx.
 *
 * UPSCALE_MAX_OUTPUT_PIXELS = 10,000: a 32x32 image gives 4,096 px at 2k, 9,216 at 3k, 16,384 at 4k;
 * a 40x40 one 6,400 at 2k and 14,400 at 3k; a 64x64 one already 16,384 at 2k.
 */

const jobs = useJobsService({ env: { UPSCALE_MAX_OUTPUT_PIXELS: '10000' } });

test('4k refused but 3k accepted: the job has target 3k, credits 6 and requested_target 4k', async () => {
  const acct = await newAccount(jobs.svc, { credits: 20 });
  const res = await acct.client.upload(await gradientImage(32, 32), { target: '4k' });
  expect(res.status).toBe(202);
  expect({ target: res.body.target, credits: res.body.credits }).toEqual({ target: '3k', credits: 6 });
  const job = (await acct.client.get(`/jobs/${res.body.id}`)).body;
  expect({
    target: job.target,
    credits: job.credits,
    requested_target: job.requested_target,
  }).toEqual({
    target: '3k',
    credits: 6,
    requested_target: '4k',
  });
});

test('the fallen-back job reserves the credits of 3k, not 4k', async () => {
  const acct = await newAccount(jobs.svc, { credits: 20 });
  const res = await acct.client.upload(await gradientImage(32, 32), { target: '4k' });
  expect(res.status).toBe(202);
  const l = await ledger(acct);
  // reserved while the job runs, charged once it succeeded: either way 6, not 9
  expect({ balance: l.balance, held: l.reserved + l.charged }).toEqual({
    balance: 14,
    held: 6,
  });
});

test('the fallen-back job succeeds with output = input x 3 and is charged 6', async () => {
  const acct = await newAccount(jobs.svc, { credits: 20 });
  const res = await acct.client.upload(await gradientImage(32, 32), { target: '4k' });
  const job = await waitForJob(acct.client, res.body.id, isFinal);
  expect(job.status).toBe('succeeded');
  const meta = await sharp((await downloadResult(acct.client, job.id)).bytes).metadata();
  expect({ width: meta.width, height: meta.height }).toEqual({
    width: 96,
    height: 96,
  });
  expect(await settledLedger(acct)).toEqual({
    balance: 14,
    reserved: 0,
    charged: 6,
  });
});

test('when 3k and 4k are refused, a 4k request falls back to 2k (3 credits)', async () => {
  const acct = await newAccount(jobs.svc, { credits: 20 });
  const res = await acct.client.upload(await gradientImage(40, 40), { target: '4k' });
  expect(res.status).toBe(202);
  expect({ target: res.body.target, credits: res.body.credits }).toEqual({ target: '2k', credits: 3 });
});

test('a request the engine accepts is not changed: 3k on 32x32 stays 3k', async () => {
  const acct = await newAccount(jobs.svc, { credits: 20 });
  const res = await acct.client.upload(await gradientImage(32, 32), { target: '3k' });
  const job = (await acct.client.get(`/jobs/${res.body.id}`)).body;
  expect({
    status: res.status,
    target: job.target,
    requested_target: job.requested_target,
  }).toEqual({
    status: 202,
    target: '3k',
    requested_target: '3k',
  });
});

test('an image refused even at 2k: 400 image_too_large_to_upscale, with no job and nothing reserved', async () => {
  const acct = await newAccount(jobs.svc, { credits: 20 });
  const res = await acct.client.upload(await gradientImage(64, 64), { target: '2k' });
  expectError(res, 400, 'image_too_large_to_upscale');
  expect(await ledger(acct)).toEqual({ balance: 20, reserved: 0, charged: 0 });
  expect((await acct.client.get('/jobs')).body.data).toEqual([]);
});

test('the fallback applies before the credit check: 6 credits suffice for a 4k request that falls back to 3k', async () => {
  const acct = await newAccount(jobs.svc, { credits: 6 });
  const res = await acct.client.upload(await gradientImage(32, 32), { target: '4k' });
  expect({ status: res.status, credits: res.body.credits }).toEqual({
    status: 202,
    credits: 6,
  });
  const l = await ledger(acct);
  expect({ balance: l.balance, held: l.reserved + l.charged }).toEqual({
    balance: 0,
    held: 6,
  });
});

describe('output by pixel size (docs/api.md "Output by pixel size")', () => {
  test('width 100 of a 40x20 image: the smallest reaching target (3k, 6 credits) runs, and the result is 100x50', async () => {
    const acct = await newAccount(jobs.svc, { credits: 20 });
    const res = await acct.client.upload(await gradientImage(40, 20), { width: '100', format: 'webp' });
    expect([res.status, res.body.target, res.body.credits]).toEqual([202, '3k', 6]);
    const job = await waitForJob(acct.client, res.body.id, isFinal);
    expect([job.status, job.target, job.requested_target, job.size, job.result.width, job.result.height]).toEqual([
      'succeeded',
      '3k',
      '3k',
      { width: 100, height: null, fit: 'within' },
      100,
      50,
    ]);
    const meta = await sharp((await downloadResult(acct.client, job.id)).bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 100, 50]);
    expect(await settledLedger(acct)).toEqual({ balance: 14, reserved: 0, charged: 6 });
  });

  test('sizes that cannot be met are refused with the numbers, before anything is reserved', async () => {
    const acct = await newAccount(jobs.svc, { credits: 20 });
    const beyond4x = await acct.client.upload(await gradientImage(40, 20), { width: '161' });
    expectError(beyond4x, 400, 'size_out_of_reach');
    expect(beyond4x.body.error.message).toBe('161x81 needs more than 4x this 40x20 image; 4k, the largest target, gives 160x80.');
    // 150x150 needs 4k: 160x160 = 25,600 output pixels, over this service's 10,000
    const overLimit = await acct.client.upload(await gradientImage(40, 40), { width: '150', height: '150', fit: 'exact' });
    expectError(overLimit, 400, 'image_too_large_to_upscale');
    expect(overLimit.body.error.message).toBe(
      '150x150 needs the 4k target, which exceeds the output pixel limit for this 40x40 image; the largest it accepts, 2k, gives 80x80.',
    );
    expectError(await acct.client.upload(await gradientImage(40, 20), { width: '100', target: '2k' }), 400, 'invalid_size');
    expectError(await acct.client.upload(await gradientImage(40, 20), { width: '0' }), 400, 'invalid_size');
    expect((await ledger(acct)).balance).toBe(20);
  });
});
