import { gradientImage } from '@upscaler/testing';
import { download, eventually, expectError, isFinal, newAccount, sleep, STANDALONE, useJobsService, waitForJob } from './jobs-harness';

/**
 * Retention over real HTTP (docs/operations.md "Retention"), on this mode's storage (a local folder standalone, MinIO
 * distributed): UPSCALE_FILE_RETENTION=3s. A finished job says when its files go; its result and source download
 * until then and answer 410 files_expired from then on, and the sweep deletes the objects (a signed link taken
 * earlier no longer finds them). An operator deletes an account's files at once, the job list's thumbnail with them.
 */
const jobs = useJobsService({ env: { UPSCALE_FILE_RETENTION: '3s' } });

/** What the signed download of a deleted object answers: the embedded files route 403s a link to nothing, S3 404s. */
const GONE = STANDALONE ? 403 : 404;

test('files_expire_at is finished_at + 3 s; the files download until then, then 410 files_expired, and are deleted', async () => {
  const acct = await newAccount(jobs.svc, { credits: 3 });
  const created = await acct.client.upload(await gradientImage(24, 16), { quality: 'fast' });
  const job = await waitForJob(acct.client, created.body.id, isFinal);
  expect(job.status).toBe('succeeded');
  expect(job.files_expire_at).toBe(new Date(Date.parse(job.finished_at) + 3000).toISOString());
  const result = await acct.client.get(`/jobs/${job.id}/result?redirect=false`);
  const source = await acct.client.get(`/jobs/${job.id}/result?redirect=false&asset=source`);
  expect([result.status, source.status]).toEqual([200, 200]);
  expect((await download(result.body.url)).bytes.length).toBe(job.result.bytes);

  await sleep(Date.parse(job.files_expire_at) - Date.now() + 20);
  for (const asset of ['result', 'source']) {
    const gone = await acct.client.get(`/jobs/${job.id}/result?redirect=false&asset=${asset}`);
    expectError(gone, 410, 'files_expired');
    expect(gone.body.error.message).toBe(`This job's files were deleted at ${job.files_expire_at}.`);
  }
  expect((await acct.client.get('/jobs')).body.data[0].thumbnail).toBeNull();
  // the sweep (every 1.5 s at this retention) deletes both objects: the links signed before find nothing
  await eventually(async () => ((await download(result.body.url)).status === GONE ? true : undefined), 'the result to be deleted', 10_000);
  expect((await download(source.body.url)).status).toBe(GONE);
  // the job stays, and its expiry does not move
  expect((await acct.client.get(`/jobs/${job.id}`)).body).toMatchObject({ status: 'succeeded', files_expire_at: job.files_expire_at });
});

test("POST /admin/accounts/{id}/delete_files deletes a finished job's files at once; an unknown account is 404", async () => {
  const acct = await newAccount(jobs.svc, { credits: 3 });
  const created = await acct.client.upload(await gradientImage(24, 16), { quality: 'fast' });
  const job = await waitForJob(acct.client, created.body.id, isFinal);
  const link = await acct.client.get(`/jobs/${job.id}/result?redirect=false`);
  const thumbnail = (await acct.client.get('/jobs')).body.data[0].thumbnail;
  expect((await download(thumbnail.url)).status).toBe(200);
  const r = await acct.operator.post(`/admin/accounts/${acct.accountId}/delete_files`, {});
  expect([r.status, r.body]).toEqual([
    200,
    { object: 'file_deletion', account_id: acct.accountId, jobs_deleted: 1, jobs_already_deleted: 0, jobs_unfinished: 0 },
  ]);
  expect((await download(link.body.url)).status).toBe(GONE);
  // the list's thumbnail goes with the files: the object is deleted and the item no longer links to it
  expect((await download(thumbnail.url)).status).toBe(GONE);
  expect((await acct.client.get('/jobs')).body.data[0].thumbnail).toBeNull();
  const after = (await acct.client.get(`/jobs/${job.id}`)).body;
  expect(Date.parse(after.files_expire_at)).toBeLessThan(Date.parse(job.files_expire_at));
  expectError(await acct.client.get(`/jobs/${job.id}/result`), 410, 'files_expired');
  const again = await acct.operator.post(`/admin/accounts/${acct.accountId}/delete_files`, {});
  expect(again.body).toMatchObject({ jobs_deleted: 0, jobs_already_deleted: 1 });
  expectError(await acct.operator.post('/admin/accounts/acct_0190a1b2c3d47e8f9a0b1c2d3e4f5a6c/delete_files', {}), 404, 'not_found');
});
