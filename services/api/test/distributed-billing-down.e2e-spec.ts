import { Kafka, logLevel } from 'kafkajs';
import { TOPICS } from '@upscaler/messaging';
import { gradientImage } from '@upscaler/testing';
import { useDeployment } from './distributed-harness';
import { eventually, expectError, isFinal, ledger, newAccount, settledLedger, waitForJob } from './jobs-harness';

/**
 * Distributed mode: billing is a separate process answering reservations over Kafka
 * request/reply (docs/design.md §2: "with a timeout and a clear 503 when billing does not answer"). With
 * billing stopped, POST /upscale answers 503 billing_unavailable after UPSCALE_BILLING_TIMEOUT_MS and
 * reserves nothing; the requests it left in the topic are past their expiry when billing comes back,
 * so they reserve nothing later either; a submit after billing's return succeeds.
 */

const RESERVE_TOPIC = TOPICS.billingReserve;
const RESPONDERS = `${RESERVE_TOPIC}.responders`;
const BILLING_TIMEOUT_MS = 3_000;
// Upload, sniffing and the answer on a shared 2-core machine; the failure this guards against is
// kafkajs' minute of retries (or no answer at all).
const SLACK_MS = 7_000;

const dist = useDeployment({ env: { UPSCALE_BILLING_TIMEOUT_MS: String(BILLING_TIMEOUT_MS) } });

/** Messages of `topic` not yet committed by `groupId` (all partitions). */
async function lag(groupId: string, topic: string): Promise<number> {
  const admin = new Kafka({
    clientId: 'e2e-lag',
    brokers: dist.d.kafka.brokers,
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  try {
    const [high, [committed]] = await Promise.all([admin.fetchTopicOffsets(topic), admin.fetchOffsets({ groupId, topics: [topic] })]);
    const at = new Map(committed.partitions.map((p) => [p.partition, Math.max(0, Number(p.offset))]));
    return high.reduce((sum, p) => sum + Number(p.high) - (at.get(p.partition) ?? 0), 0);
  } finally {
    await admin.disconnect();
  }
}

async function reservedJobs(accountId: string): Promise<string[]> {
  const r = await dist.db.query<{ job_id: string }>(
    `SELECT data->>'jobId' AS job_id FROM events WHERE type = 'CreditsReserved' AND data->>'accountId' = $1 ORDER BY position`,
    [accountId],
  );
  return r.rows.map((row) => row.job_id);
}

it('billing stopped: 503 billing_unavailable within the timeout and nothing reserved; billing back: a submit succeeds', async () => {
  const acct = await newAccount(dist.d.api, { credits: 30 });
  const image = await gradientImage(32, 32);
  const upload = () => acct.client.upload(image, { target: '2k', quality: 'fast' });

  // Billing answers: one job through, the request/reply path warm.
  const first = await upload();
  expect(first.status).toBe(202);
  expect((await waitForJob(acct.client, first.body.id, isFinal)).status).toBe('succeeded');
  expect(await settledLedger(acct)).toEqual({
    balance: 27,
    reserved: 0,
    charged: 3,
  });

  expect(await dist.d.billing.stop()).toBe(0);
  const elapsed: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = Date.now();
    const res = await upload();
    elapsed.push(Date.now() - t0);
    expectError(res, 503, 'billing_unavailable');
  }
  for (const ms of elapsed) {
    expect(ms).toBeGreaterThanOrEqual(BILLING_TIMEOUT_MS);
    expect(ms).toBeLessThan(BILLING_TIMEOUT_MS + SLACK_MS);
  }
  expect(await ledger(acct)).toEqual({ balance: 27, reserved: 0, charged: 3 });
  const list = await acct.client.get('/jobs');
  expect(list.body.data.map((j: { id: string }) => j.id)).toEqual([first.body.id]);

  await dist.d.startService('billing');
  const again = await upload();
  expect(again.status).toBe(202);
  expect((await waitForJob(acct.client, again.body.id, isFinal)).status).toBe('succeeded');
  expect(await settledLedger(acct)).toEqual({
    balance: 24,
    reserved: 0,
    charged: 6,
  });
  // Billing has read every request in the topic, the three left while it was away included …
  await eventually(async () => ((await lag(RESPONDERS, RESERVE_TOPIC)) === 0 ? true : undefined), 'billing to drain its request topic');
  // … and the requests billing found waiting were expired: only the two accepted jobs were ever reserved.
  expect(await reservedJobs(acct.accountId)).toEqual([first.body.id, again.body.id]);
}, 900_000);
