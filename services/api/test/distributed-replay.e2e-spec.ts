import type { IncomingMessage, ServerResponse } from 'node:http';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { TOPICS } from '@upscaler/messaging';
import { createTestCa, gradientImage, startHttpsServer, type StartedService, type TestCa, type TestServer } from '@upscaler/testing';
import { CheckedClient, eventually, isFinal, newAccount, settledLedger, waitForJob, type TestAccount } from './jobs-harness';
import { useDeployment } from './distributed-harness';

/**
 * Distributed mode: every consumer replayed from offset 0 changes nothing (docs/design.md §2:
 * "consumers are idempotent: an event delivered twice changes nothing"). After real jobs (succeeded
 * and cancelled, with webhook deliveries), every service is stopped, every consumer group is reset to
 * the earliest offset and the relay's checkpoint is deleted, so the relay publishes the whole log a
 * second time: each consumer then reads every event twice. Once all have caught up, the read models,
 * the ledgers and the log are exactly as before, and no webhook was sent again.
 */

const JOB_DEADLINE_MS = 600_000;
/**
 * The consumer groups of the job topic. Read models, balances and the work queue are applied inside
 * each append's transaction and processors claim from the work queue, so only the webhook scheduler
 * still consumes the log.
 */
const CONSUMER_GROUPS = ['webhooks-scheduler'];

let ca: TestCa;
let receiver: TestServer;
const received: string[] = [];

function onWebhook(req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  req.on('end', () => {
    received.push(String(req.headers['webhook-id']));
    res.writeHead(200).end();
  });
}

beforeAll(async () => {
  ca = await createTestCa();
  receiver = await startHttpsServer(onWebhook, ca);
});
const dist = useDeployment({ env: () => ({ NODE_EXTRA_CA_CERTS: ca.caPath, UPSCALE_ALLOW_PRIVATE_NETWORKS: 'true' }) });

afterAll(async () => {
  await receiver?.close();
  ca?.cleanup();
});

/**
 * A fresh admin client per use: one that once looked at a reply topic keeps asking for its
 * metadata, and fails once a stopping service deleted that topic.
 */
async function withAdmin<T>(fn: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = new Kafka({
    clientId: 'e2e-replay',
    brokers: dist.d.kafka.brokers,
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.disconnect();
  }
}

/** Consumer groups with members, and how many messages each has not committed yet. */
function lagOfActiveGroups(): Promise<Record<string, number>> {
  return withAdmin(async (admin) => {
    const { groups } = await admin.describeGroups((await admin.listGroups()).groups.map((g) => g.groupId));
    const out: Record<string, number> = {};
    for (const g of groups) {
      if (g.state !== 'Stable') continue;
      let lag = 0;
      for (const t of await admin.fetchOffsets({ groupId: g.groupId })) {
        const high = new Map((await admin.fetchTopicOffsets(t.topic)).map((p) => [p.partition, Number(p.high)]));
        for (const p of t.partitions) lag += (high.get(p.partition) ?? 0) - Math.max(0, Number(p.offset));
      }
      out[g.groupId] = lag;
    }
    return out;
  });
}

async function relayLag(): Promise<number> {
  const r = await dist.db.query<{ lag: string }>(
    `SELECT (SELECT COALESCE(max(position), 0) FROM events) - COALESCE((SELECT position FROM checkpoints WHERE consumer = 'kafka-relay'), 0) AS lag`,
  );
  return Number(r.rows[0].lag);
}

/** Relay and every consumer group caught up with the log (the consumer lag is 0 everywhere). */
async function quiet(groups: string[]): Promise<Record<string, number>> {
  return eventually(
    async () => {
      if ((await relayLag()) !== 0) return undefined;
      const lag = await lagOfActiveGroups();
      return groups.every((g) => lag[g] === 0) && Object.values(lag).every((n) => n === 0) ? lag : undefined;
    },
    'every consumer to catch up',
    300_000,
  );
}

async function snapshot(accounts: TestAccount[], api: string) {
  const readModels = (await dist.db.query(`SELECT stream_id, version, state FROM read_models ORDER BY 1`)).rows;
  const events = (await dist.db.query(`SELECT type, count(*)::int AS n FROM events GROUP BY 1 ORDER BY 1`)).rows;
  const jobStarted = (
    await dist.db.query(`SELECT data->>'jobId' AS job, count(*)::int AS n FROM events WHERE type = 'JobStarted' GROUP BY 1 ORDER BY 1`)
  ).rows;
  const scheduled = (
    await dist.db.query(`SELECT stream_id, count(*)::int AS n FROM events WHERE type = 'DeliveryScheduled' GROUP BY 1 ORDER BY 1`)
  ).rows;
  const ledgers = [];
  for (const a of accounts) ledgers.push((await new CheckedClient(api, a.key).get('/account')).body);
  const messages: Record<string, number> = {};
  await withAdmin(async (admin) => {
    for (const topic of (await admin.listTopics()).filter((t) => t.endsWith('-events.v1')).sort()) {
      messages[topic] = (await admin.fetchTopicOffsets(topic)).reduce((s, p) => s + Number(p.high), 0);
    }
  });
  return {
    readModels,
    events,
    jobStarted,
    scheduled,
    ledgers,
    webhooksSent: [...received].sort(),
    messages,
  };
}

it('every consumer replayed from offset 0 (and the log relayed again) changes no read model, ledger, event or delivery', async () => {
  const withHooks = await newAccount(dist.d.api, {
    credits: 100,
    scopes: ['jobs:read', 'jobs:write', 'webhooks:read', 'webhooks:write'],
  });
  const plain = await newAccount(dist.d.api, { credits: 100 });
  const ep = await withHooks.client.post('/webhook_endpoints', {
    url: `${receiver.url}/hooks`,
  });
  expect(ep.status).toBe(201);

  const small = await gradientImage(32, 32);
  const big = await gradientImage(256, 256);
  const ids: Array<[TestAccount, string]> = [];
  for (const acct of [withHooks, plain]) {
    for (let i = 0; i < 3; i++) {
      const r = await acct.client.upload(small, {
        target: '2k',
        quality: 'fast',
      });
      expect(r.status).toBe(202);
      ids.push([acct, r.body.id]);
    }
    // Cancelled at once: while queued (refund) or, if the processor was quick, after it finished (409).
    const r = await acct.client.upload(big, { target: '4k', quality: 'fast' });
    expect(r.status).toBe(202);
    expect([200, 409]).toContain((await acct.client.delete(`/jobs/${r.body.id}`)).status);
    ids.push([acct, r.body.id]);
  }
  const finals = [];
  for (const [acct, id] of ids) finals.push((await waitForJob(acct.client, id, isFinal, JOB_DEADLINE_MS)).status);
  expect(finals.filter((s) => s === 'succeeded').length).toBeGreaterThanOrEqual(6);
  for (const acct of [withHooks, plain]) await settledLedger(acct);
  // One webhook per final job of the account with an endpoint.
  await eventually(async () => (received.length === 4 ? true : undefined), 'webhooks delivered', 120_000);
  await quiet(CONSUMER_GROUPS);
  const before = await snapshot([withHooks, plain], dist.d.api.apiUrl);
  // Each success is charged by its own final event (settled on final), nothing appended beside it.
  expect(before.events.find((e) => e.type === 'JobSucceeded')?.n).toBe(finals.filter((s) => s === 'succeeded').length);
  expect(before.events.find((e) => e.type === 'CreditsCharged')).toBeUndefined();

  // Stop every service (SIGTERM: consumers leave their groups and commit), then rewind everything.
  const services: StartedService[] = [dist.d.api, dist.d.billing, dist.d.webhooks, ...dist.d.processors];
  expect(await Promise.all(services.map((s) => s.stop()))).toEqual(services.map(() => 0));
  const rewound = await withAdmin(async (admin) => {
    const done: string[] = [];
    for (const { groupId } of (await admin.listGroups()).groups) {
      for (const t of await admin.fetchOffsets({ groupId })) {
        await admin.resetOffsets({ groupId, topic: t.topic, earliest: true });
        done.push(`${groupId} ${t.topic}`);
      }
    }
    return done;
  });
  for (const g of CONSUMER_GROUPS) expect(rewound).toContain(`${g} ${TOPICS.events('job')}`);
  await dist.db.query(`DELETE FROM checkpoints`);

  const api = await dist.d.startService('api');
  await Promise.all([dist.d.startService('billing'), dist.d.startService('webhooks'), dist.d.startService('processor')]);
  await quiet(CONSUMER_GROUPS);
  const after = await snapshot([withHooks, plain], api.apiUrl);

  // The relay published the whole log again (every group read both copies, lag 0 above)…
  const perCategory = (
    await dist.db.query<{ category: string; n: number }>(
      `SELECT split_part(stream_id, '-', 1) AS category, count(*)::int AS n FROM events GROUP BY 1`,
    )
  ).rows;
  for (const { category, n } of perCategory) {
    const topic = TOPICS.events(category);
    expect({ topic, messages: after.messages[topic] }).toEqual({
      topic,
      messages: before.messages[topic] + n,
    });
  }
  // …and nothing changed.
  expect(after.readModels).toEqual(before.readModels);
  expect(after.ledgers).toEqual(before.ledgers);
  expect(after.events).toEqual(before.events);
  expect(after.jobStarted).toEqual(before.jobStarted);
  expect(after.scheduled).toEqual(before.scheduled);
  expect(after.scheduled.every((s: { n: number }) => s.n === 1)).toBe(true);
  expect(after.webhooksSent).toEqual(before.webhooksSent);
}, 1_800_000);
