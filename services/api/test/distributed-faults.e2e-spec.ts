import { Client } from 'pg';
import { gradientImage, type ApiResponse, type StartedService } from '@upscaler/testing';
import { eventCountsByJob, useDeployment } from './distributed-harness';
import { newAccount, settledLedger, sleep, type TestAccount } from './jobs-harness';

/**
 * Distributed mode under faults (docs/runbooks.md "Faults"): MinIO, billing and Postgres each go away while jobs
 * run, on one deployment (api, billing, webhooks, one processor; Kafka, MinIO, Postgres). For each: what clients see
 * (a 503 with Retry-After that reserves nothing, never a 500), and that nothing is lost, charged twice or stuck:
 * every accepted job succeeds, the log holds one JobSucceeded per job, and the ledger is settled
 * (granted = balance + charged, nothing left reserved). The Kafka broker's restart is distributed-kafka-restart.
 */
const PRICE_2K = 3;
const dist = useDeployment({ env: { UPSCALE_BILLING_TIMEOUT_MS: '5000' } });

/** 128x128 at 2k: long enough that jobs are still running when the fault starts. */
let image: Buffer;
/** The billing process now (the billing test stops the first one and starts another). */
let billingNow: () => StartedService = () => dist.d.billing;
beforeAll(async () => {
  image = await gradientImage(128, 128);
});

const submit = (acct: TestAccount) => acct.client.upload(image, { target: '2k', quality: 'fast' });

/** Polls a job until final, riding out 503s while a dependency is away (what a client's retry loop does). */
async function finalStatus(acct: TestAccount, jobId: string, timeoutMs = 300_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await acct.client.get(`/jobs/${jobId}`);
    if (r.status === 200 && ['succeeded', 'failed', 'cancelled'].includes(r.body.status)) return r.body.status;
    if (r.status !== 200 && r.status !== 503) throw new Error(`GET /jobs/${jobId}: ${r.status} ${r.text}`);
    if (Date.now() > deadline) throw new Error(`job ${jobId} not final after ${timeoutMs} ms`);
    await sleep(250);
  }
}

async function waitRunning(acct: TestAccount, jobId: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const r = await acct.client.get(`/jobs/${jobId}`);
    if (r.body?.status !== 'queued') return;
    await sleep(100);
  }
  throw new Error(`job ${jobId} never started`);
}

/** A 503 that a client retries: Retry-After and the error body, one of the documented codes. */
function expectRetryable(res: ApiResponse, codes: string[]): void {
  expect([res.status, res.headers.get('retry-after'), codes.includes(res.body?.error?.code)]).toEqual([503, '5', true]);
}

/** Every job succeeded, each has exactly one JobSucceeded (its charge), and the account is settled. */
async function expectNothingLost(acct: TestAccount, granted: number, jobs: string[]): Promise<void> {
  const statuses = await Promise.all(jobs.map((id) => finalStatus(acct, id)));
  expect(statuses).toEqual(jobs.map(() => 'succeeded'));
  const succeeded = await eventCountsByJob(dist.db, 'JobSucceeded');
  expect(jobs.map((id) => succeeded[id])).toEqual(jobs.map(() => 1));
  const ledger = await settledLedger(acct);
  expect([ledger.charged, ledger.balance + ledger.charged]).toEqual([PRICE_2K * jobs.length, granted]);
}

const lostAttempts = async (jobs: string[]) => {
  const lost = await eventCountsByJob(dist.db, 'JobAttemptLost');
  return jobs.reduce((n, id) => n + (lost[id] ?? 0), 0);
};

async function readyAgain(services: StartedService[], timeoutMs = 60_000): Promise<number> {
  const started = Date.now();
  for (const s of services) {
    while ((await fetch(`${s.baseUrl}/health/ready`).catch(() => null))?.status !== 200) {
      if (Date.now() - started > timeoutMs) throw new Error(`${s.baseUrl} not ready ${timeoutMs} ms after the fault`);
      await sleep(200);
    }
  }
  return Date.now() - started;
}

it('MinIO stopped for seconds while jobs run: a submit meanwhile is a 503 that reserves nothing; every job succeeds, charged once', async () => {
  const acct = await newAccount(dist.d.api, { credits: 60 });
  const jobs = (await Promise.all(Array.from({ length: 4 }, () => submit(acct)))).map((r) => r.body.id as string);
  await waitRunning(acct, jobs[0]);

  await dist.d.minio.stop();
  const down = Date.now();
  const during = await submit(acct);
  expectRetryable(during, ['service_unavailable']);
  await sleep(Math.max(0, 6_000 - (Date.now() - down)));
  await dist.d.minio.start();
  const outageMs = Date.now() - down;

  await expectNothingLost(acct, 60, jobs);
  console.log(
    `MinIO down ${outageMs} ms mid-job: ${jobs.length}/${jobs.length} jobs succeeded, ${await lostAttempts(jobs)} attempts lost, charged once each`,
  );
  const after = await submit(acct);
  expect(after.status).toBe(202);
  await expectNothingLost(acct, 60, [...jobs, after.body.id]);
}, 600_000);

it('billing stopped while jobs finish: they settle without it; a submit meanwhile is 503 billing_unavailable; billing back: accepted again', async () => {
  const acct = await newAccount(dist.d.api, { credits: 60 });
  const jobs = (await Promise.all(Array.from({ length: 4 }, () => submit(acct)))).map((r) => r.body.id as string);
  await waitRunning(acct, jobs[0]);

  await dist.d.billing.stop();
  expectRetryable(await submit(acct), ['billing_unavailable']);
  // Each job's final event is its charge (settled on final, in the job's own append): billing is not needed for it.
  const statuses = await Promise.all(jobs.map((id) => finalStatus(acct, id)));
  expect(statuses).toEqual(jobs.map(() => 'succeeded'));
  const billing = await dist.d.startService('billing');
  billingNow = () => billing;
  const back = Date.now();
  let accepted: ApiResponse;
  do {
    accepted = await submit(acct);
    if (accepted.status !== 202) await sleep(500);
  } while (accepted.status !== 202 && Date.now() - back < 120_000);
  expect(accepted.status).toBe(202);
  console.log(
    `billing down while ${jobs.length} jobs finished: all settled; a submit accepted ${Date.now() - back} ms after billing started`,
  );
  await expectNothingLost(acct, 60, [...jobs, accepted.body.id]);
  expect((await fetch(`${billing.baseUrl}/health/ready`)).status).toBe(200);
}, 600_000);

it('Postgres restarted (5 s down) while jobs run: 503s meanwhile, every service recovers by itself, every job succeeds once', async () => {
  const acct = await newAccount(dist.d.api, { credits: 60 });
  const jobs = (await Promise.all(Array.from({ length: 4 }, () => submit(acct)))).map((r) => r.body.id as string);
  await waitRunning(acct, jobs[0]);

  // the test's own connection to the log goes down with the server: a new one once it is back
  const oldDb = dist.db;
  oldDb.on('error', () => undefined);
  let during: ApiResponse | undefined;
  await dist.d.restartPostgres(5_000, async () => {
    during = await submit(acct);
  });
  expectRetryable(during!, ['service_unavailable', 'billing_unavailable']);
  dist.db = new Client({ connectionString: dist.d.postgres.url });
  await dist.db.connect();
  await oldDb.end().catch(() => undefined);
  const services = [dist.d.api, billingNow(), dist.d.webhooks, ...dist.d.processors];
  const readyMs = await readyAgain(services);

  await expectNothingLost(acct, 60, jobs);
  console.log(
    `Postgres down 5 s mid-job: all ${services.length} services ready ${readyMs} ms after it came back; ` +
      `${jobs.length}/${jobs.length} jobs succeeded, ${await lostAttempts(jobs)} attempts lost, charged once each`,
  );
  const after = await submit(acct);
  expect(after.status).toBe(202);
  await expectNothingLost(acct, 60, [...jobs, after.body.id]);
}, 600_000);
