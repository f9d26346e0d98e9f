import { createLogger } from '@upscaler/config';
import { Metrics } from '@upscaler/runtime';
import { createTestEventLog, useTestPostgres, type TestEventLog } from '@upscaler/testing';
import { leaseGuards, type Lease } from '@upscaler/work-queue';
import { LeaseSweeper } from '../src/workers/lease.sweeper';
import { jobSettings } from './job-settings.fixture';
import { JobCommandHandler } from '../src/job.command-handler';

/**
 * The processor's sweeper on its own (the middle tier), against a real Postgres event log with the
 * work queue and balances applied inline: a lease that expired is a lost attempt (with backoff, then
 * requeued), the third loss fails the job and refunds it in the same transaction, a lease renewed in
 * time is left alone, and a claim that never started is simply released.
 */
const pg = useTestPostgres();
let log: TestEventLog;
let sweeper: LeaseSweeper;
let metrics: Metrics;
const now = () => new Date().toISOString();

beforeAll(async () => {
  log = await createTestEventLog(pg);
  metrics = new Metrics('test');
  sweeper = new LeaseSweeper(
    new JobCommandHandler(log.store, log.clock),
    jobSettings({ UPSCALE_RETRY_DELAY_MS: '300' }),
    createLogger('silent', 'test'),
    metrics,
    log.workQueue,
  );
});
afterAll(async () => {
  await log?.close();
});
beforeEach(async () => {
  // one job in the queue at a time: each test claims the job it submitted
  await log.db.query(`DELETE FROM work_queue`);
});

async function claimAndStart(): Promise<Lease> {
  const { lease } = await log.workQueue.claim('worker-1', 60_000, 0);
  await log.job(lease!.jobId, { type: 'StartJob', data: { workerId: 'worker-1', now: now() } }, { guard: leaseGuards.held(lease!) });
  return lease!;
}

const expire = (jobId: string) =>
  log.db.query(`UPDATE work_queue SET lease_expires_at = clock_timestamp() - interval '1 ms' WHERE job_id = $1`, [jobId]);
const types = async (jobId: string) => (await log.store.readStream(`job-${jobId}`)).map((e) => e.type);
const lostCount = async () => (await metrics.registry.getSingleMetric('upscaler_job_attempts_lost_total')!.get()).values[0]?.value ?? 0;

it('an expired lease is a lost attempt with backoff; once the backoff is over the job is requeued and claimable', async () => {
  const accountId = await log.openAccount(3);
  const jobId = await log.submitJob(accountId);
  await claimAndStart();
  expect(await sweeper.sweep()).toEqual({ lost: 0, released: 0, requeued: 0 });
  await expire(jobId);
  const before = await lostCount();
  expect(await sweeper.sweep()).toEqual({ lost: 1, released: 0, requeued: 0 });
  const [lost] = (await log.store.readStream(`job-${jobId}`)).filter((e) => e.type === 'JobAttemptLost');
  const data = lost.data as { reason: string; lostAt: string; retryAt: string };
  expect([data.reason, Date.parse(data.retryAt) - Date.parse(data.lostAt), (await lostCount()) - before]).toEqual([
    'lease expired',
    300,
    1,
  ]);
  expect((await log.workQueue.claim('worker-2', 60_000, 0)).lease).toBeNull();
  await new Promise((r) => setTimeout(r, 350));
  expect(await sweeper.sweep()).toEqual({ lost: 0, released: 0, requeued: 1 });
  expect((await log.workQueue.claim('worker-2', 60_000, 0)).lease?.jobId).toBe(jobId);
  expect(await types(jobId)).toEqual(['JobQueued', 'JobStarted', 'JobAttemptLost', 'JobRequeued']);
});

it('the third lost attempt fails the job with attempts_exhausted and refunds it in the same transaction', async () => {
  const accountId = await log.openAccount(3);
  const jobId = await log.submitJob(accountId);
  const fast = new LeaseSweeper(
    new JobCommandHandler(log.store, log.clock),
    jobSettings({ UPSCALE_RETRY_DELAY_MS: '0' }),
    createLogger('silent', 'test'),
    metrics,
    log.workQueue,
  );
  for (let attempt = 1; attempt <= 3; attempt++) {
    await claimAndStart();
    await expire(jobId);
    expect((await fast.sweep()).lost).toBe(1);
    await fast.sweep(); // requeue (no backoff)
  }
  const job = await log.readModels.byStream<{ status: string; error: { code: string } }>(`job-${jobId}`);
  expect([job!.state.status, job!.state.error.code]).toEqual(['failed', 'attempts_exhausted']);
  expect(await log.balances.account(accountId)).toMatchObject({ balance: 3, reserved: 0, charged: 0 });
  expect(await log.db.query(`SELECT * FROM work_queue WHERE job_id = $1`, [jobId])).toEqual([]);
});

it('a lease renewed in time is left alone; a claim that never started is released without an event', async () => {
  const accountId = await log.openAccount(6);
  const running = await log.submitJob(accountId);
  const lease = await claimAndStart();
  await expire(running);
  expect(await log.workQueue.renew(lease, 60_000)).toBe(true); // renewed just before the sweep
  expect((await sweeper.sweep()).lost).toBe(0);
  await log.db.query(`DELETE FROM work_queue WHERE job_id = $1`, [running]);
  const idle = await log.submitJob(accountId);
  const { lease: unstarted } = await log.workQueue.claim('worker-9', 60_000, 0);
  await expire(idle);
  expect(await sweeper.sweep()).toEqual({ lost: 0, released: 1, requeued: 0 });
  expect([await types(idle), (await log.workQueue.claim('worker-2', 60_000, 0)).lease?.jobId]).toEqual([['JobQueued'], idle]);
  expect(unstarted?.jobId).toBe(idle);
});
