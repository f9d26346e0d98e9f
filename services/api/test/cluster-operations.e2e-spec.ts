import { appendFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import {
  ApiClient,
  clusterDatabaseUrl,
  clusterScript,
  e2eMode,
  gradientImage,
  helm,
  kubectl,
  podsOf,
  readCluster,
  REPO_ROOT,
  startTarget,
  startSuiteReceiver,
  type StartedService,
} from '@upscaler/testing';
import { isFinal, ledger, newAccount, sleep, waitForJob, type TestAccount } from './jobs-harness';

/**
 * What a platform team does to a running release, done to the chart's release on the local Kubernetes cluster
 * (npm run test:cluster; scripts/cluster/up.sh, docs/kubernetes.md): an upgrade to a new image tag while jobs
 * stream, a busy processor pod deleted, processors autoscaled 1 -> 3 -> 1 under load, two api replicas sharing one
 * per-key rate limit, the webhooks pod restarted mid-delivery. Each checks that no accepted job is lost and none is
 * charged twice, and reports its figures (CLUSTER_REPORT_FILE, printed by scripts/cluster/test.sh).
 *
 * Runs in the e2e-cluster project only; the scenarios change the release, so they run after the shared suites.
 */
const describeCluster = e2eMode() === 'cluster' ? describe : describe.skip;

function report(scenario: string, figures: Record<string, unknown>): void {
  const line = JSON.stringify({ scenario, ...figures });
  if (process.env.CLUSTER_REPORT_FILE) appendFileSync(process.env.CLUSTER_REPORT_FILE, `${line}\n`);
}

let svc: StartedService;
let db: Client;
let image: Buffer;
beforeAll(async () => {
  if (e2eMode() !== 'cluster') return;
  svc = await startTarget();
  db = new Client({ connectionString: clusterDatabaseUrl() });
  await db.connect();
  image = await gradientImage(96, 64, 'png');
});
afterAll(async () => {
  await db?.end();
});

/** How many events of `type` the job has (JobSucceeded twice would be a double charge: settled on final). */
async function eventCount(type: string, jobId: string): Promise<number> {
  const r = await db.query(`SELECT count(*)::int AS n FROM events WHERE type = $1 AND data->>'jobId' = $2`, [type, jobId]);
  return r.rows[0].n as number;
}

interface Submitted {
  id?: string;
  /** the last answer when no attempt was accepted */
  failure?: string;
  /** attempts after the first: documented retries (a dropped connection, or 503 with Retry-After; docs/api.md) */
  retries: number;
  /** why each retry was made */
  retryReasons: string[];
}

/** POST /upscale with an Idempotency-Key, retried as docs/api.md allows: after a dropped connection or a 503. */
async function submitWithRetries(client: ApiClient, fields: Record<string, string>, body = image): Promise<Submitted> {
  const key = randomUUID();
  const reasons: string[] = [];
  for (let attempt = 0; attempt < 8; attempt++) {
    try {
      const r = await client.upload(body, fields, { headers: { 'Idempotency-Key': key } });
      if (r.status === 202 || r.status === 200) return { id: r.body.id as string, retries: attempt, retryReasons: reasons };
      const why = `${r.status} ${(r.body as { error?: { code?: string } } | undefined)?.error?.code ?? r.text.slice(0, 100)}`;
      if (r.status !== 503 && r.status !== 409) return { failure: why, retries: attempt, retryReasons: reasons };
      reasons.push(why);
      await sleep(Number(r.headers.get('retry-after') ?? '1') * 1000);
    } catch (e) {
      reasons.push(`network: ${(e as Error).message}`);
      await sleep(500);
    }
  }
  return { failure: reasons[reasons.length - 1], retries: 7, retryReasons: reasons };
}

/** GET /jobs/{id} until final, riding out a dropped connection or a 503 the same way. */
async function finalJob(client: ApiClient, jobId: string, timeoutMs = 300_000): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const r = await client.get(`/jobs/${jobId}`);
      if (r.status === 200 && isFinal(r.body)) return r.body;
    } catch {
      // a connection dropped while a pod was replaced: poll again
    }
    if (Date.now() > deadline) throw new Error(`job ${jobId} not final after ${timeoutMs} ms`);
    await sleep(250);
  }
}

/** Submits `body` every `everyMs` (at most `concurrency` in flight) until stop(); stop() resolves to every submit. */
function streamJobs(client: ApiClient, fields: Record<string, string>, body: Buffer, everyMs: number, concurrency = 3) {
  const results: Submitted[] = [];
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      if (inFlight.size < concurrency) {
        const p: Promise<void> = submitWithRetries(client, fields, body).then((s) => {
          results.push(s);
          inFlight.delete(p);
        });
        inFlight.add(p);
      }
      await sleep(everyMs);
    }
    await Promise.all(inFlight);
  })();
  return {
    async stop(): Promise<Submitted[]> {
      stopped = true;
      await loop;
      return results;
    },
  };
}

/** Every accepted job final: how many succeeded, lost (not succeeded) and charged twice, with the ledger checked. */
async function settle(acct: TestAccount, submitted: Submitted[]) {
  const ids = submitted.flatMap((s) => (s.id ? [s.id] : []));
  const jobs = await Promise.all(ids.map((id) => finalJob(acct.client, id)));
  const succeeded = jobs.filter((j) => j.status === 'succeeded');
  const twice: string[] = [];
  for (const id of ids) if ((await eventCount('JobSucceeded', id)) > 1 || (await eventCount('CreditsReserved', id)) > 1) twice.push(id);
  const l = await ledger(acct);
  // A submit answered 503 billing_unavailable may still have reserved credits (billing answered after the api gave
  // up): no job holds them, and billing releases them after UPSCALE_RESERVATION_TIMEOUT_MS (30 s on this cluster,
  // scripts/cluster/values-local.yaml). They must come back, and nothing else may stay reserved.
  const heldAtSettle = l.reserved;
  const t0 = Date.now();
  let reserved = l.reserved;
  while (reserved > 0 && Date.now() - t0 < 120_000) {
    await sleep(2000);
    reserved = (await ledger(acct)).reserved;
  }
  return {
    accepted: ids.length,
    distinct: new Set(ids).size,
    succeeded: succeeded.length,
    lost: jobs.filter((j) => j.status !== 'succeeded').map((j) => `${j.id} ${j.status} ${j.error?.code ?? ''}`),
    chargedTwice: twice,
    failedRequests: submitted.filter((s) => s.failure).map((s) => s.failure!),
    retries: submitted.reduce((n, s) => n + s.retries, 0),
    retryReasons: [...new Set(submitted.flatMap((s) => s.retryReasons))],
    charged: l.charged,
    creditsOfSucceeded: succeeded.reduce((n, j) => n + (j.credits as number), 0),
    heldAtSettle,
    secondsUntilReleased: heldAtSettle > 0 ? (Date.now() - t0) / 1000 : 0,
    reserved,
  };
}

/** No failed request (after the documented retries), no accepted job lost, none charged twice, nothing reserved. */
function expectNothingLost(s: Awaited<ReturnType<typeof settle>>): void {
  expect({ failedRequests: s.failedRequests, lost: s.lost, chargedTwice: s.chargedTwice, reserved: s.reserved }).toEqual({
    failedRequests: [],
    lost: [],
    chargedTwice: [],
    reserved: 0,
  });
  expect(s.distinct).toBe(s.accepted);
  expect(s.charged).toBe(s.creditsOfSucceeded);
}

async function rolloutStatus(deployment: string): Promise<void> {
  await kubectl(['rollout', 'status', `deployment/${deployment}`, '--timeout=300s']);
}

describeCluster('on the local Kubernetes cluster', () => {
  const cluster = (): ReturnType<typeof readCluster> => readCluster();

  test('helm upgrade to a new image tag while jobs stream: no failed request beyond retries, no job lost, none charged twice', async () => {
    const acct = await newAccount(svc, { credits: 5000 });
    const before = (await helm(['get', 'values', cluster().release, '-o', 'json', '--all'])).trim();
    const oldTag = JSON.parse(before).image.tag as string;
    const newTag = `${oldTag.slice(0, 40)}-up${Date.now() % 100000}`;
    await clusterScript('retag-images.sh', [newTag]);

    const stream = streamJobs(acct.client, { target: '2k', quality: 'fast' }, image, 250);
    await sleep(3000);
    const t0 = Date.now();
    await helm([
      'upgrade',
      cluster().release,
      join(REPO_ROOT, 'charts', 'upscaler'),
      '--reuse-values',
      '--set',
      `image.tag=${newTag}`,
      '--wait',
      '--timeout',
      '8m',
    ]);
    const upgradeSeconds = (Date.now() - t0) / 1000;
    await sleep(3000);
    const submitted = await stream.stop();

    // The release's pods once the old ones are gone (helm --wait returns when the new ones are Ready).
    const tags = await eventuallyValue(async () => {
      const pods = JSON.parse(await kubectl(['get', 'pods', '-l', `app.kubernetes.io/instance=${cluster().release}`, '-o', 'json'])) as {
        items: Array<{
          metadata: { deletionTimestamp?: string; labels: Record<string, string> };
          spec: { containers: Array<{ image: string }> };
        }>;
      };
      const images = pods.items
        .filter((p) => p.metadata.labels['app.kubernetes.io/component'] !== 'test')
        .map((p) => ({
          tag: p.spec.containers[0]!.image.split(':').pop(),
          leaving: Boolean(p.metadata.deletionTimestamp),
        }));
      return images.some((i) => i.leaving) ? undefined : new Set(images.map((i) => i.tag));
    }, 120_000);
    const s = await settle(acct, submitted);
    report('helm upgrade while jobs stream', { upgradeSeconds, tags: [...tags], ...s });
    expect(tags).toEqual(new Set([newTag]));
    expectNothingLost(s);
    expect(s.accepted).toBeGreaterThan(10);
  }, 600_000);

  test('a busy processor pod deleted: its job runs again on another pod, charged once', async () => {
    const acct = await newAccount(svc, { credits: 100 });
    // Long enough to be mid-run when the pod goes: 512x512 at 4k on the best tier (several seconds on this node).
    const r = await submitWithRetries(acct.client, { target: '4k', quality: 'best', format: 'png' }, await gradientImage(512, 512, 'png'));
    expect(r.failure).toBeUndefined();
    const jobId = r.id!;
    await waitForJob(acct.client, jobId, (j) => j.status === 'processing' || isFinal(j));
    const started = await db.query(`SELECT data->>'workerId' AS worker FROM events WHERE type = 'JobStarted' AND data->>'jobId' = $1`, [
      jobId,
    ]);
    // JobStarted names its worker <host>-<pid>: in a pod the host name is the pod's name.
    const pod = (started.rows[0].worker as string).replace(/-\d+$/, '');
    expect((await podsOf('processor')).map((p) => p.name)).toContain(pod);

    const deletedAt = Date.now();
    await kubectl(['delete', 'pod', pod, '--grace-period=0', '--force', '--wait=false']);
    const job = await finalJob(acct.client, jobId);
    const restarts = await db.query(
      `SELECT data->>'workerId' AS worker, created_at FROM events WHERE type = 'JobStarted' AND data->>'jobId' = $1 ORDER BY position`,
      [jobId],
    );
    const secondStart = restarts.rows[1];
    const l = await ledger(acct);
    const figures = {
      job: job.status,
      starts: restarts.rows.length,
      secondPod: secondStart ? (secondStart.worker as string).replace(/-\d+$/, '') : null,
      secondsToRestart: secondStart ? (new Date(secondStart.created_at as string).getTime() - deletedAt) / 1000 : null,
      secondsToSucceeded: (Date.now() - deletedAt) / 1000,
      charged: l.charged,
      succeededEvents: await eventCount('JobSucceeded', jobId),
    };
    report('busy processor pod deleted', figures);
    expect(job.status).toBe('succeeded');
    expect(figures.starts).toBeGreaterThanOrEqual(2);
    expect(figures.secondPod).not.toBe(pod);
    expect({ charged: l.charged, reserved: l.reserved, succeededEvents: figures.succeededEvents }).toEqual({
      charged: job.credits,
      reserved: 0,
      succeededEvents: 1,
    });
  }, 300_000);

  test('processors autoscale 1 -> 3 -> 1 on CPU while jobs run; every job succeeds once', async () => {
    const acct = await newAccount(svc, { credits: 20000 });
    await eventuallyReplicas(1, 600_000);
    const t0 = Date.now();
    const heavy = await gradientImage(320, 320, 'png');
    const stream = streamJobs(acct.client, { target: '4k', quality: 'balanced', format: 'png' }, heavy, 500, 4);
    const upAt = await eventuallyReplicas(3, 400_000);
    const secondsToThree = (upAt - t0) / 1000;
    await sleep(10_000);
    const submitted = await stream.stop();
    const loadStoppedAt = Date.now();
    const s = await settle(acct, submitted);
    const downAt = await eventuallyReplicas(1, 600_000);
    report('processors autoscaled 1 -> 3 -> 1', {
      secondsToThree,
      secondsFromLoadStopToOne: (downAt - loadStoppedAt) / 1000,
      ...s,
    });
    expectNothingLost(s);
  }, 900_000);

  // docs/api.md "Rate limits": each replica counts in memory and settles every 100 ms, and every request in the last
  // tenth of a key's limit is counted in Postgres before it is answered; so the limit is exact across replicas as
  // long as the others take less than a tenth of it in 100 ms (60 here, against the few this client sends).
  test('two api replicas: a key limited to 600 requests a minute gets exactly 600 across both', async () => {
    await kubectl(['scale', `deployment/${cluster().release}-api`, '--replicas=2']);
    await rolloutStatus(`${cluster().release}-api`);
    const pods = (await podsOf('api')).filter((p) => p.ready);
    expect(pods).toHaveLength(2);
    const acct = await newAccount(svc, { rateLimitPerMinute: 600 });
    const servedBefore = await Promise.all(pods.map((p) => requestsServedBy(p.name)));
    // A fixed window aligned to the minute: start at the beginning of one, so that the 630 requests cannot straddle two.
    await sleep(60_000 - (Date.now() % 60_000) + 500);
    const statuses: number[] = [];
    const started = Date.now();
    for (let i = 0; i < 630; i++) statuses.push((await fetchNoKeepAlive(`${svc.apiUrl}/jobs?limit=1`, acct.key)).status);
    const seconds = (Date.now() - started) / 1000;
    expect(seconds).toBeLessThan(55);
    const servedAfter = await Promise.all(pods.map((p) => requestsServedBy(p.name)));
    const perPod = servedAfter.map((n, i) => n - servedBefore[i]!);
    const figures = { ok: statuses.filter((s) => s === 200).length, limited: statuses.filter((s) => s === 429).length, perPod, seconds };
    report('two api replicas, one per-key rate limit', figures);
    await kubectl(['scale', `deployment/${cluster().release}-api`, '--replicas=1']);
    expect({ ok: figures.ok, limited: figures.limited }).toEqual({ ok: 600, limited: 30 });
    // Both replicas answered some of them: the limit held across them, not per pod.
    expect(perPod.every((n) => n > 0)).toBe(true);
  }, 240_000);

  test('the webhooks pod restarted mid-delivery: the delivery is made, not lost', async () => {
    const { receiver } = await startSuiteReceiver();
    try {
      const acct = await newAccount(svc, { credits: 100, scopes: ['jobs:read', 'jobs:write', 'webhooks:read', 'webhooks:write'] });
      const ep = await acct.client.post('/webhook_endpoints', { url: `${receiver.url}/hook`, events: ['job.succeeded'] });
      expect(ep.status).toBe(201);
      // The first attempt is held open: the webhooks pod is deleted while it waits for the answer.
      receiver.plan('/hook', (n) => (n === 0 ? 'hold' : 200));
      const r = await submitWithRetries(acct.client, { target: '2k', quality: 'fast' });
      const jobId = r.id!;
      await receiver.nthHit('/hook', 1, 120_000);
      const pod = (await podsOf('webhooks'))[0]!.name;
      const restartedAt = Date.now();
      await kubectl(['delete', 'pod', pod, '--wait=false']);
      const second = await receiver.nthHit('/hook', 2, 180_000);
      const deliveredAfter = (Date.now() - restartedAt) / 1000;
      const bodies = receiver.hits('/hook').map((h) => JSON.parse(h.body));
      report('webhooks pod restarted mid-delivery', {
        attempts: receiver.hits('/hook').length,
        secondsFromRestartToDelivery: deliveredAfter,
        sameMessageId: receiver.hits('/hook').every((h) => h.headers['webhook-id'] === second.headers['webhook-id']),
      });
      expect(bodies.every((b) => b.type === 'job.succeeded' && b.data.id === jobId)).toBe(true);
      expect(receiver.hits('/hook').every((h) => h.headers['webhook-id'] === second.headers['webhook-id'])).toBe(true);
      await rolloutStatus(`${cluster().release}-webhooks`);
    } finally {
      await receiver.close();
    }
  }, 300_000);
});

/** Polls `check` every second until it gives a value. */
async function eventuallyValue<T>(check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`no value after ${timeoutMs} ms`);
    await sleep(1000);
  }
}

/** Waits until the processors' Deployment has `n` Ready replicas; resolves to when. */
async function eventuallyReplicas(n: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pods = await podsOf('processor');
    const ready = pods.filter((p) => p.ready).length;
    const all = pods.length;
    if (ready === n && all === n) return Date.now();
    if (Date.now() > deadline) throw new Error(`processors: ${ready} ready of ${all}, waited for ${n}`);
    await sleep(2000);
  }
}

/** The api pod's own count of answered requests (its /metrics, on the pod's address, which this machine reaches). */
async function requestsServedBy(pod: string): Promise<number> {
  const ip = (await kubectl(['get', 'pod', pod, '-o', 'jsonpath={.status.podIP}'])).trim();
  const text = await (await fetch(`http://${ip}:8080/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('upscaler_http_requests_total{') && l.includes('route="/api/v1/jobs"'))
    .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
}

/** One request on a fresh connection, so that kube-proxy balances each one on its own. */
async function fetchNoKeepAlive(url: string, key: string): Promise<Response> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}`, connection: 'close' } });
  await res.arrayBuffer();
  return res;
}
