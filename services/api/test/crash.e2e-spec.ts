import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { Webhook } from 'standardwebhooks';
import { describeStandalone } from './jobs-harness';
import {
  ApiClient,
  createAccountWithKey,
  createTestCa,
  gradientImage,
  startHttpsServer,
  startService,
  writeSlowX3RegistryFile,
  type StartedService,
} from '@upscaler/testing';

/**
 * docs/design.md §3 "Nothing is lost on restart": the standalone is killed with SIGKILL while jobs are queued
 * and processing, then started again on the same data directory (its embedded Postgres must recover
 * from the crash). Every job reaches a final state, nothing is charged twice and no credit is lost
 * (docs/design.md §2: granted = available + reserved + charged). Also: SIGTERM on a busy standalone hands the
 * running job back after UPSCALE_SHUTDOWN_GRACE_MS, and after a restart it finishes once.
 */

const OPERATOR_TOKEN = 'op-e2e-crash-8c1d2f7a6b3e4950';
const PRICE_4K = 9;
const PRICE_3K = 6;
const FINAL = ['succeeded', 'failed', 'cancelled'];

/** Each test starts the standalone two to four times: more than the global timeout on a busy machine. */
const TEST_TIMEOUT_MS = 600_000;

const dirs: string[] = [];
const running: StartedService[] = [];

function newDataDir(): string {
  // mkdtemp makes a 0700 directory; run as root, the embedded Postgres (user postgres) must traverse it.
  const dir = mkdtempSync(join(tmpdir(), 'upscaler-e2e-crash-'));
  chmodSync(dir, 0o711);
  dirs.push(dir);
  return dir;
}

async function start(dataDir: string, env: Record<string, string> = {}): Promise<StartedService> {
  const svc = await startService({
    dataDir,
    env: {
      UPSCALE_OPERATOR_TOKEN: OPERATOR_TOKEN,
      UPSCALE_RATE_LIMIT_PER_MINUTE: '10000',
      UPSCALE_DEFAULT_QUALITY: 'fast',
      ...env,
    },
  });
  running.push(svc);
  return svc;
}

afterEach(async () => {
  // A failed test must not leave a standalone (and its Postgres) behind.
  for (const svc of running.splice(0)) await svc.kill();
});

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function statuses(client: ApiClient, ids: string[]): Promise<string[]> {
  return Promise.all(
    ids.map(async (id) => {
      const r = await client.get(`/jobs/${id}`);
      if (r.status !== 200) throw new Error(`GET /jobs/${id}: ${r.status} ${r.text}`);
      return r.body.status as string;
    }),
  );
}

async function waitUntil(what: string, probe: () => Promise<boolean>, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 40));
  }
}

/** Follows the 302 of GET /jobs/{id}/result to the signed URL and returns the bytes. */
async function download(client: ApiClient, jobId: string): Promise<Buffer> {
  const r = await client.get(`/jobs/${jobId}/result`);
  expect(r.status).toBe(302);
  const file = await fetch(new URL(r.headers.get('location')!, client.apiUrl));
  expect(file.status).toBe(200);
  return Buffer.from(await file.arrayBuffer());
}

/** Fails with the service's error lines when a job ended in an unexpected way (to tell why). */
function expectOnly(svc: StartedService, jobs: any[], allowed: (job: any) => boolean): void {
  const unexpected = jobs.filter((j) => !allowed(j)).map((j) => [j.id, j.status, j.error?.code]);
  if (unexpected.length === 0) return;
  const errors = svc
    .logs()
    .split('\n')
    .filter((l) => /error|fail/i.test(l))
    .slice(-40)
    .join('\n');
  throw new Error(`unexpected job outcomes ${JSON.stringify(unexpected)}; service errors:\n${errors}`);
}

/** Every job final; the ledger invariant; each success charged once and downloadable. */
async function expectSettled(svc: StartedService, client: ApiClient, ids: string[], granted: number, size: number, scale: 3 | 4 = 4) {
  const jobs = await Promise.all(ids.map((id) => client.waitForFinal(id, 300_000)));
  // A job interrupted too often may fail, but only that way; none is cancelled here.
  expectOnly(svc, jobs, (j) => j.status === 'succeeded' || (j.status === 'failed' && j.error.code === 'attempts_exhausted'));
  const succeeded = jobs.filter((j) => j.status === 'succeeded');
  // Settled on final: read right after the last final view, the account holds every charge and refund.
  const account = (await client.get('/account')).body;
  expect([account.charged, account.reserved, account.balance + account.charged]).toEqual([
    (scale === 4 ? PRICE_4K : PRICE_3K) * succeeded.length,
    0,
    granted,
  ]);
  for (const job of succeeded) {
    const bytes = await download(client, job.id);
    expect(bytes.length).toBe(job.result.bytes);
    const meta = await sharp(bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', size * scale, size * scale]);
  }
  return jobs;
}

/**
 * These kill and restart the standalone on its data directory: they run in the standalone pass of
 * the e2e tier only (the distributed pass has its own crash tests, distributed-*.e2e-spec.ts).
 */

describeStandalone('crash recovery', () => {
  it(
    'SIGKILL while jobs are queued and processing: after a restart every job is final, charged once, no credit lost',
    async () => {
      const dataDir = newDataDir();
      const first = await start(dataDir, { UPSCALE_RETRY_DELAY_MS: '3000' });
      const granted = 100;
      const { client: firstClient, key } = await createAccountWithKey(first.apiUrl, OPERATOR_TOKEN, {
        credits: granted,
        scopes: ['jobs:read', 'jobs:write'],
      });
      const size = 256;
      const image = await gradientImage(size, size);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await firstClient.upload(image, { target: '4k', quality: 'fast' });
        expect([r.status, r.body.credits]).toEqual([202, PRICE_4K]);
        ids.push(r.body.id);
      }
      // Kill just after the second job starts: the first has succeeded (its charge and result must
      // survive), the second is surely mid-run (it started a poll interval ago), the rest are queued.
      await waitUntil('the first job to succeed and the second to start', async () => {
        const s = await statuses(firstClient, ids.slice(0, 3));
        return s[0] === 'succeeded' && s[1] === 'processing';
      });
      const before = await statuses(firstClient, ids);
      await first.kill();
      expect(before.slice(0, 2)).toEqual(['succeeded', 'processing']);
      expect(before.slice(2).every((s) => s === 'queued' || s === 'processing')).toBe(true);

      const second = await start(dataDir, { UPSCALE_RETRY_DELAY_MS: '3000' });
      const client = new ApiClient(second.apiUrl, key);
      // The interrupted job goes back through pending (its attempt was lost) before it runs again.
      const seen = new Set<string>();
      await waitUntil('the interrupted job to finish', async () => {
        const [s] = await statuses(client, [ids[1]]);
        seen.add(s);
        return FINAL.includes(s);
      });
      expect(seen.has('pending')).toBe(true);

      const jobs = await expectSettled(second, client, ids, granted, size);
      expect(jobs.map((j) => j.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded', 'succeeded']);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'SIGTERM on a busy standalone: it exits within the grace period; after a restart the job finishes once, charged once',
    async () => {
      const dataDir = newDataDir();
      // The balanced tier's x3 network named explicitly: the converted esrgan-medium-x3 (libs/testing registry.ts).
      // (info: the shutdown's steps are logged, and shown when the exit code is not 0)
      const env = { UPSCALE_SHUTDOWN_GRACE_MS: '300', UPSCALE_ENGINE_REGISTRY: writeSlowX3RegistryFile(), LOG_LEVEL: 'info' };
      const first = await start(dataDir, env);
      const granted = 50;
      const { client: firstClient, key } = await createAccountWithKey(first.apiUrl, OPERATOR_TOKEN, {
        credits: granted,
        scopes: ['jobs:read', 'jobs:write'],
      });
      // The job must outlast the whole shutdown (0.3 s grace, at most one network pass until the engine stops,
      // then closing the service and its embedded Postgres: a few seconds on a loaded 2-core machine), and its
      // passes must be short: the engine stops only between them. 768x768 at 3x on esrgan-medium-x3 is 9 tiles
      // of ~1.7 s each on the AMD EPYC of 2026-11-24 (~15 s a job). The best tier's esrgan-thick-x3 (radius 154:
      // every tile is the whole image) took 23.6 s for ONE pass there, longer than the service's forced exit.
      const size = 768;
      const image = await gradientImage(size, size);
      const busy = await firstClient.upload(image, { target: '3k', quality: 'balanced' });
      const queued = await firstClient.upload(image, { target: '3k', quality: 'balanced' });
      expect([busy.status, queued.status]).toEqual([202, 202]);
      const ids = [busy.body.id, queued.body.id];
      await waitUntil('the first job to start', async () => (await statuses(firstClient, ids))[0] === 'processing');

      const stopStarted = Date.now();
      const code = await first.stop();
      const stopMs = Date.now() - stopStarted;
      running.splice(running.indexOf(first), 1);
      // on a failure, the standalone's last log lines say where its shutdown stood
      expect({ code, logs: code === 0 ? '' : first.logs().split('\n').slice(-25).join('\n') }).toEqual({ code: 0, logs: '' });

      const restartedAt = Date.now();
      const second = await start(dataDir, env);
      const client = new ApiClient(second.apiUrl, key);
      const jobs = await expectSettled(second, client, ids, granted, size, 3);
      expect(jobs.map((j) => j.status)).toEqual(['succeeded', 'succeeded']);
      // The running job was handed back, not finished during the shutdown: it finished after the
      // restart, and the shutdown took less time than one whole run of that job.
      expect(Date.parse(jobs[0].finished_at)).toBeGreaterThan(restartedAt);
      expect(stopMs).toBeLessThan(jobs[0].duration_ms);
      await second.stop();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a job whose attempt is lost three times fails with attempts_exhausted and is refunded',
    async () => {
      const dataDir = newDataDir();
      // Long enough that, after each restart, the job is seen waiting before it runs again.
      const env = { UPSCALE_RETRY_DELAY_MS: '4000' };
      let svc = await start(dataDir, env);
      const granted = 20;
      const { key } = await createAccountWithKey(svc.apiUrl, OPERATOR_TOKEN, { credits: granted, scopes: ['jobs:read', 'jobs:write'] });
      let client = new ApiClient(svc.apiUrl, key);
      const size = 256;
      const r = await client.upload(await gradientImage(size, size), { target: '4k', quality: 'fast' });
      expect(r.status).toBe(202);
      const id = r.body.id;
      for (let attempt = 1; attempt <= 3; attempt++) {
        // Wait for a run that started in this process: after a restart the job first shows the
        // state it had at the crash (processing), then pending, then processing again.
        const seen: string[] = [];
        await waitUntil(`attempt ${attempt} to start`, async () => {
          const [s] = await statuses(client, [id]);
          if (seen.at(-1) !== s) seen.push(s);
          return s === 'processing' && (attempt === 1 || seen.includes('pending'));
        });
        await svc.kill();
        running.splice(running.indexOf(svc), 1);
        svc = await start(dataDir, env);
        client = new ApiClient(svc.apiUrl, key);
      }
      const job = await client.waitForFinal(id);
      expect([job.status, job.error?.code, job.result]).toEqual(['failed', 'attempts_exhausted', null]);
      const account = (await client.get('/account')).body;
      expect([account.balance, account.reserved, account.charged]).toEqual([granted, 0, 0]);
      const result = await client.get(`/jobs/${id}/result`);
      expect(result.status).toBe(409);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'SIGKILL in the middle of a burst of submits with Idempotency-Keys: every key gets its one job after the restart, no credit lost',
    async () => {
      const dataDir = newDataDir();
      const first = await start(dataDir);
      const granted = 90;
      const { key } = await createAccountWithKey(first.apiUrl, OPERATOR_TOKEN, { credits: granted, scopes: ['jobs:read', 'jobs:write'] });
      const firstClient = new ApiClient(first.apiUrl, key);
      const image = await gradientImage(16, 16);
      const submit = (client: ApiClient, idempotencyKey: string) =>
        client.upload(image, { target: '2k', quality: 'fast' }, { headers: { 'idempotency-key': idempotencyKey } });
      let answered = 0;
      const sent: string[] = [];
      // 30 submits of 3 credits, 6 at a time, each with its own key; the kill lands while some are in flight.
      const inFlight = new Set<Promise<unknown>>();
      let killed: Promise<void> | undefined;
      for (let i = 0; i < 30 && !killed; i++) {
        sent.push(`burst-${i}`);
        const p = submit(firstClient, `burst-${i}`)
          .then((res) => {
            if (res.status === 202) answered++;
          })
          .catch(() => undefined)
          .finally(() => inFlight.delete(p));
        inFlight.add(p);
        if (answered >= 8 && !killed) killed = first.kill();
        while (inFlight.size >= 6) await Promise.race(inFlight);
      }
      await (killed ?? first.kill());
      await Promise.all(inFlight);
      running.splice(running.indexOf(first), 1);
      expect(answered).toBeGreaterThanOrEqual(8);

      // A reservation whose job never appeared is released by billing after this timeout.
      const second = await start(dataDir, { UPSCALE_RESERVATION_TIMEOUT_MS: '3000' });
      const client = new ApiClient(second.apiUrl, key);
      // Every key sent is retried as a client would: a key cut off between its claim and its job answers 409
      // idempotency_in_progress until its claim is abandoned (docs/api.md "Idempotency", 30 s), then creates the job.
      const restarted = Date.now();
      const outcomes = await Promise.all(
        sent.map(async (k) => {
          const statuses: number[] = [];
          for (;;) {
            const r = await submit(client, k);
            statuses.push(r.status);
            if (r.status === 200 || r.status === 202) return { key: k, jobId: r.body.id as string, statuses, ms: Date.now() - restarted };
            if (r.status !== 409 || r.body.error.code !== 'idempotency_in_progress' || Date.now() - restarted > 60_000) {
              throw new Error(`key ${k}: ${r.status} ${r.text}`);
            }
          }
        }),
      );
      const stuck = outcomes.filter((o) => o.statuses[0] === 409);
      console.log(
        `idempotency after SIGKILL: ${sent.length} keys sent, ${answered} answered before the kill, ${stuck.length} cut off between claim and job; ` +
          `all ${sent.length} answered 200/202 after the restart, the last ${Math.max(...outcomes.map((o) => o.ms))} ms after it`,
      );
      const list = await client.get('/jobs?limit=100');
      expect(list.status).toBe(200);
      const ids: string[] = list.body.data.map((j: any) => j.id);
      // One job per key, and no job without a key's answer.
      expect(new Set(outcomes.map((o) => o.jobId)).size).toBe(sent.length);
      expect([...ids].sort()).toEqual(outcomes.map((o) => o.jobId).sort());
      const jobs = await Promise.all(ids.map((id) => client.waitForFinal(id, 300_000)));
      expectOnly(second, jobs, (j) => j.status === 'succeeded');
      let account: any;
      await waitUntil('every reservation to be settled or released', async () => {
        account = (await client.get('/account')).body;
        return account.reserved === 0;
      });
      expect([account.charged, account.reserved, account.balance + account.charged]).toEqual([3 * jobs.length, 0, granted]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a webhook delivery waiting for its retry when the standalone is killed is retried after the restart',
    async () => {
      const ca = await createTestCa();
      const hits: Array<{ headers: Record<string, string>; body: string }> = [];
      const receiver = await startHttpsServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          hits.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
          const status = hits.length === 1 ? 500 : 200;
          res.writeHead(status).end();
        });
      }, ca);
      try {
        const dataDir = newDataDir();
        const env = {
          NODE_EXTRA_CA_CERTS: ca.caPath,
          UPSCALE_ALLOW_PRIVATE_NETWORKS: 'true',
          // The retry is due well after the kill.
          UPSCALE_WEBHOOK_RETRY_SCHEDULE_MS: '4000',
        };
        const first = await start(dataDir, env);
        const { key, client: firstClient } = await createAccountWithKey(first.apiUrl, OPERATOR_TOKEN, { credits: 10 });
        const created = await firstClient.post('/webhook_endpoints', { url: `${receiver.url}/hook` });
        expect(created.status).toBe(201);
        const endpointId = created.body.id;
        const job = await firstClient.upload(await gradientImage(16, 16), { quality: 'fast' });
        expect(job.status).toBe(202);
        expect((await firstClient.waitForFinal(job.body.id)).status).toBe('succeeded');
        await waitUntil('the first attempt to be recorded', async () => {
          const log = (await firstClient.get(`/webhook_endpoints/${endpointId}/deliveries`)).body.data;
          return log.length === 1 && log[0].outcome === 'retrying';
        });
        await first.kill();
        running.splice(running.indexOf(first), 1);
        expect(hits).toHaveLength(1);

        const second = await start(dataDir, env);
        const client = new ApiClient(second.apiUrl, key);
        let log: any[] = [];
        await waitUntil('the retry after the restart', async () => {
          log = (await client.get(`/webhook_endpoints/${endpointId}/deliveries`)).body.data;
          return log.length > 0 && log[0].outcome !== 'retrying';
        });
        expect(log.map((a) => [a.attempt, a.status_code, a.outcome])).toEqual([
          [2, 200, 'succeeded'],
          [1, 500, 'retrying'],
        ]);
        expect(hits).toHaveLength(2);
        expect(hits[1].headers['webhook-id']).toBe(hits[0].headers['webhook-id']);
        expect(hits[1].body).toBe(hits[0].body);
        expect(new Webhook(created.body.secret).verify(hits[1].body, hits[1].headers)).toMatchObject({ type: 'job.succeeded' });
        const account = (await client.get('/account')).body;
        expect([account.balance, account.reserved, account.charged]).toEqual([7, 0, 3]);
      } finally {
        await receiver.close();
        ca.cleanup();
      }
    },
    TEST_TIMEOUT_MS,
  );
});
