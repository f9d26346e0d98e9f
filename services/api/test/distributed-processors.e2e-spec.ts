import { Client } from 'pg';
import { gradientImage, startDeployment, type Deployment, type StartedService } from '@upscaler/testing';
import { isFinal, newAccount, settledLedger, sleep, waitForJob, type TestAccount } from './jobs-harness';

/**
 * Issue 4, distributed mode: processors as separate processes sharing the `processor` consumer group
 * over Kafka. Two processors both take jobs from the queue; a processor SIGKILLed in the middle of a
 * job loses nothing: Kafka hands its partitions to the survivor, which finds the job `processing`,
 * records the lost attempt (pending) and runs it again after UPSCALE_RETRY_DELAY_MS (docs/job-states.md).
 * Every job is charged exactly once (DESIGN 2: granted = available + reserved + charged).
 */

const PRICE = { '2k': 3, '4k': 9 } as const;
// The rebalance after a SIGKILL waits for the session timeout (30 s); the machine is shared.
const JOB_DEADLINE_MS = 600_000;

let d: Deployment;
let db: Client;

beforeAll(async () => {
  d = await startDeployment({
    processors: 2,
    // "job handled" is logged at info. Bursts of concurrent submits on one account queue up in
    // billing (one ledger stream); on this shared 2-core machine that can pass the default 5 s.
    env: {
      LOG_LEVEL: 'info',
      UPSCALE_RATE_LIMIT_PER_MINUTE: '100000',
      UPSCALE_DEFAULT_QUALITY: 'fast',
      UPSCALE_BILLING_TIMEOUT_MS: '30000',
    },
  });
  db = new Client({ connectionString: d.postgres.url });
  await db.connect();
}, 1_800_000);

afterAll(async () => {
  await db?.end();
  await d?.stop();
}, 300_000);

interface Handled {
  jobId: string;
  outcome: string;
}

/** The processor's "job handled" log lines (pino JSON). */
function handledBy(p: StartedService): Handled[] {
  const out: Handled[] = [];
  for (const line of p.logs().split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const rec = JSON.parse(line) as {
        msg?: string;
        jobId?: string;
        outcome?: string;
      };
      if (rec.msg === 'job handled' && rec.jobId && rec.outcome) out.push({ jobId: rec.jobId, outcome: rec.outcome });
    } catch {
      // not a log record
    }
  }
  return out;
}

async function eventCounts(type: string, jobIds: string[]): Promise<Record<string, number>> {
  const rows = (
    await db.query<{ job_id: string; n: string }>(
      `SELECT data->>'jobId' AS job_id, count(*) AS n FROM events WHERE type = $1 AND data->>'jobId' = ANY($2) GROUP BY 1`,
      [type, jobIds],
    )
  ).rows;
  const counts = Object.fromEntries(jobIds.map((id) => [id, 0]));
  for (const r of rows) counts[r.job_id] = Number(r.n);
  return counts;
}

const each = (jobIds: string[], n: number) => Object.fromEntries(jobIds.map((id) => [id, n]));

async function submitAll(acct: TestAccount, n: number, size: number, target: '2k' | '4k'): Promise<string[]> {
  const image = await gradientImage(size, size);
  const answers = await Promise.all(Array.from({ length: n }, () => acct.client.upload(image, { target, quality: 'fast' })));
  expect(answers.map((a) => a.status)).toEqual(Array(n).fill(202));
  return answers.map((a) => a.body.id as string);
}

it(
  'two processors share the queue: both handle jobs, each job runs and is charged once',
  async () => {
    // 16 jobs over 4 partitions split between two members: all landing on one member's two
    // partitions has a chance of 2 x 2^-16.
    const n = 16;
    const acct = await newAccount(d.api, { credits: n * PRICE['2k'] });
    const ids = await submitAll(acct, n, 32, '2k');
    for (const id of ids) expect((await waitForJob(acct.client, id, isFinal, JOB_DEADLINE_MS)).status).toBe('succeeded');

    const handled = d.processors.map((p) => handledBy(p).filter((h) => ids.includes(h.jobId)));
    expect(handled.map((h) => h.length > 0)).toEqual([true, true]);
    // Every job succeeded on exactly one processor.
    const succeeded = handled.flat().filter((h) => h.outcome === 'succeeded');
    expect(Object.fromEntries(ids.map((id) => [id, succeeded.filter((h) => h.jobId === id).length]))).toEqual(each(ids, 1));
    expect(await eventCounts('JobStarted', ids)).toEqual(each(ids, 1));
    expect(await settledLedger(acct)).toEqual({
      balance: 0,
      reserved: 0,
      charged: n * PRICE['2k'],
    });
    expect(await eventCounts('CreditsCharged', ids)).toEqual(each(ids, 1));
  },
  JOB_DEADLINE_MS + 120_000,
);

it(
  'SIGKILL of a processor mid-job: the other processor finishes every job, each charged once',
  async () => {
    const n = 6;
    const acct = await newAccount(d.api, { credits: n * PRICE['4k'] });
    // 256x256 at 4k: a few seconds of engine time each.
    const ids = await submitAll(acct, n, 256, '4k');

    // The first job seen processing, and the processor that holds it (JobStarted names its pid).
    let victimJob: string | undefined;
    const deadline = Date.now() + JOB_DEADLINE_MS;
    while (!victimJob) {
      if (Date.now() > deadline) throw new Error('no job started processing');
      for (const id of ids) {
        const r = await acct.client.get(`/jobs/${id}`);
        if (r.body.status === 'processing') {
          victimJob = id;
          break;
        }
      }
      if (!victimJob) await sleep(100);
    }
    const started = await db.query<{ worker: string }>(
      `SELECT data->>'workerId' AS worker FROM events WHERE type = 'JobStarted' AND data->>'jobId' = $1`,
      [victimJob],
    );
    const pid = Number(started.rows[0].worker.split('-').pop());
    const victim = d.processors.find((p) => p.process.pid === pid);
    const survivor = d.processors.find((p) => p !== victim);
    expect(victim).toBeDefined();
    await victim!.kill();

    const finals = [];
    for (const id of ids) finals.push((await waitForJob(acct.client, id, isFinal, JOB_DEADLINE_MS)).status);
    expect(finals).toEqual(Array(n).fill('succeeded'));

    // The killed attempt was recorded as lost (not finished by the dead worker), and the job ran again.
    const lost = await db.query<{ reason: string }>(
      `SELECT data->>'reason' AS reason FROM events WHERE type = 'JobAttemptLost' AND data->>'jobId' = $1`,
      [victimJob],
    );
    expect(lost.rows).toEqual([{ reason: 'worker lost' }]);
    expect(await eventCounts('JobStarted', [victimJob!])).toEqual({
      [victimJob!]: 2,
    });
    expect(handledBy(survivor!).filter((h) => h.jobId === victimJob && h.outcome === 'succeeded')).toHaveLength(1);

    expect(await eventCounts('JobSucceeded', ids)).toEqual(each(ids, 1));
    expect(await settledLedger(acct)).toEqual({
      balance: 0,
      reserved: 0,
      charged: n * PRICE['4k'],
    });
    expect(await eventCounts('CreditsCharged', ids)).toEqual(each(ids, 1));
  },
  2 * JOB_DEADLINE_MS,
);
