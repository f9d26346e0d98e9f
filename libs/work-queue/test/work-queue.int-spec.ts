import type { DataSource } from 'typeorm';
import { newId, streams, type JobQueuedData } from '@upscaler/contracts';
import { jobDecider, jobFixtures, type JobCommand } from '@upscaler/jobs';
import { accountDecider } from '@upscaler/billing';
import { EVENT_STORE_MIGRATIONS, handleCommand, PostgresEventStore } from '@upscaler/eventstore';
import { useTestPostgres } from '@upscaler/testing';
import {
  JobProgress,
  leaseGuards,
  LeaseLostError,
  WorkQueue1764000000100,
  WorkQueueProgress1764100000000,
  WorkQueueProjection,
  WorkQueueRepository,
  type Lease,
} from '@upscaler/work-queue';

/**
 * The work queue on a real Postgres (docs/distributed.md, "The work queue"): enqueued with JobQueued
 * in one transaction, claimed oldest first with fair share between accounts, a per-account limit,
 * leases that renew, expire and are guarded, and no job ever leased twice by concurrent claims.
 */
const pg = useTestPostgres();
const LEASE_MS = 60_000;

describe('work queue', () => {
  let db: DataSource;
  let store: PostgresEventStore;
  let queue: WorkQueueRepository;

  beforeAll(async () => {
    db = await pg.dataSource([...EVENT_STORE_MIGRATIONS, WorkQueue1764000000100, WorkQueueProgress1764100000000]);
    store = new PostgresEventStore(db, { inlineProjections: [new WorkQueueProjection()] });
    queue = new WorkQueueRepository(db);
  });
  afterAll(async () => {
    await store.close();
  });
  beforeEach(async () => {
    await db.query('DELETE FROM work_queue');
    await db.query('DELETE FROM work_queue_accounts');
  });

  const now = () => new Date().toISOString();
  const job = (jobId: string, command: JobCommand, guard?: Parameters<typeof handleCommand>[4]) =>
    handleCommand(store, streams.job(jobId), jobDecider, command, guard);

  async function submit(accountId: string, queuedAt = now()): Promise<string> {
    const data = await queuedData(accountId, queuedAt);
    await job(data.jobId, { type: 'SubmitJob', data });
    return data.jobId;
  }

  async function queuedData(accountId: string, queuedAt = now()): Promise<JobQueuedData> {
    return jobFixtures.aJobQueuedData({ jobId: newId('job'), accountId, queuedAt });
  }

  async function start(lease: Lease): Promise<void> {
    await job(lease.jobId, { type: 'StartJob', data: { workerId: 'w', now: now() } }, { guard: leaseGuards.held(lease) });
  }

  async function claimOrder(n: number, limit = 0): Promise<string[]> {
    const order: string[] = [];
    for (let i = 0; i < n; i++) {
      const { lease } = await queue.claim(`w${i}`, LEASE_MS, limit);
      if (!lease) break;
      order.push(lease.jobId);
      await start(lease);
    }
    return order;
  }

  it('a job is claimable the moment its JobQueued commits, oldest first within an account', async () => {
    const acct = newId('acct');
    const a = await submit(acct, '2026-01-01T00:00:01.000Z');
    const b = await submit(acct, '2026-01-01T00:00:00.000Z');
    expect(await queue.depth()).toBe(2);
    expect(await claimOrder(3)).toEqual([b, a]);
  });

  it("a claim carries the submit's trace context, so the processor's span continues the request's trace", async () => {
    const jobId = newId('job');
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await handleCommand(
      store,
      streams.job(jobId),
      jobDecider,
      { type: 'SubmitJob', data: { ...(await queuedData(newId('acct'))), jobId } },
      {
        metadata: { traceparent, producer: 'api' },
      },
    );
    const { lease } = await queue.claim('w1', LEASE_MS, 0);
    expect([lease!.jobId, lease!.trace]).toEqual([jobId, { traceparent }]);
  });

  it("serves accounts in turn: a backlog of 10 delays another account's single job by one claim", async () => {
    const big = newId('acct');
    const small = newId('acct');
    const backlog: string[] = [];
    for (let i = 0; i < 10; i++) backlog.push(await submit(big));
    const first = await claimOrder(1);
    const single = await submit(small);
    const next = await claimOrder(2);
    expect([first, next]).toEqual([[backlog[0]], [single, backlog[1]]]);
  });

  it('never leases one job twice under concurrent claims, and every job is leased once', async () => {
    const ids = new Set<string>();
    for (let a = 0; a < 4; a++) {
      const acct = newId('acct');
      for (let i = 0; i < 10; i++) ids.add(await submit(acct));
    }
    const leased: string[] = [];
    await Promise.all(
      Array.from({ length: 8 }, async (_, w) => {
        for (;;) {
          const { lease, contended } = await queue.claim(`w${w}`, LEASE_MS, 0);
          if (lease) leased.push(lease.jobId);
          else if (!contended) return;
        }
      }),
    );
    expect([leased.length, new Set(leased).size, leased.every((j) => ids.has(j))]).toEqual([40, 40, true]);
  });

  it('a per-account limit holds across claimers: further jobs wait until one of the running ends', async () => {
    const acct = newId('acct');
    await handleCommand(store, streams.account(acct), accountDecider, {
      type: 'OpenAccount',
      data: { accountId: acct, name: 'a', credits: 0, now: now() },
    });
    await handleCommand(store, streams.account(acct), accountDecider, {
      type: 'SetAccountLimits',
      data: { maxConcurrentJobs: 2, now: now() },
    });
    for (let i = 0; i < 4; i++) await submit(acct);
    const running = await claimOrder(4);
    expect(running).toHaveLength(2);
    // the service default (1) does not override the account's own limit (2)
    expect((await queue.claim('w9', LEASE_MS, 1)).lease).toBeNull();
    await job(running[0], { type: 'CancelJob', data: { now: now() } });
    expect(await claimOrder(4)).toHaveLength(1);
  });

  it('a lease renews while held; the guard refuses a start once it expired and was swept or taken', async () => {
    const jobId = await submit(newId('acct'));
    const { lease } = await queue.claim('w1', 1_000, 0);
    expect(await queue.renew(lease!, LEASE_MS)).toBe(true);
    await db.query(`UPDATE work_queue SET lease_expires_at = clock_timestamp() - interval '1 second' WHERE job_id = $1`, [jobId]);
    expect((await queue.expired()).map((e) => [e.jobId, e.status])).toEqual([[jobId, 'queued']]);
    await queue.release(lease!);
    const other = (await queue.claim('w2', LEASE_MS, 0)).lease!;
    expect(other.jobId).toBe(jobId);
    expect(await queue.renew(lease!, LEASE_MS)).toBe(false);
    await expect(start(lease!)).rejects.toBeInstanceOf(LeaseLostError);
    await start(other);
    expect(await db.query(`SELECT status, attempt FROM work_queue WHERE job_id = $1`, [jobId])).toEqual([
      { status: 'processing', attempt: 1 },
    ]);
  });

  it('a lost attempt waits in pending until its backoff ends; the final event removes the job', async () => {
    const jobId = await submit(newId('acct'));
    const { lease } = await queue.claim('w1', LEASE_MS, 0);
    await start(lease!);
    await db.query(`UPDATE work_queue SET lease_expires_at = clock_timestamp() - interval '1 second' WHERE job_id = $1`, [jobId]);
    const [expired] = await queue.expired();
    await job(
      jobId,
      { type: 'LoseAttempt', data: { attempt: 1, reason: 'lease expired', now: now(), retryDelayMs: 300 } },
      {
        guard: leaseGuards.expired(expired.jobId, expired.token),
      },
    );
    expect(await queue.duePending()).toEqual([]);
    expect((await queue.claim('w2', LEASE_MS, 0)).lease).toBeNull();
    await new Promise((r) => setTimeout(r, 400));
    expect(await queue.duePending()).toEqual([jobId]);
    await job(jobId, { type: 'RequeueJob', data: { now: now() } });
    const again = (await queue.claim('w2', LEASE_MS, 0)).lease!;
    await start(again);
    await job(jobId, { type: 'CancelJob', data: { now: now() } });
    expect(await db.query(`SELECT * FROM work_queue WHERE job_id = $1`, [jobId])).toEqual([]);
  });

  it('the expiry guard refuses to lose an attempt whose lease was renewed in time', async () => {
    const jobId = await submit(newId('acct'));
    const { lease } = await queue.claim('w1', LEASE_MS, 0);
    await start(lease!);
    await expect(
      job(
        jobId,
        { type: 'LoseAttempt', data: { attempt: 1, reason: 'lease expired', now: now(), retryDelayMs: 0 } },
        {
          guard: leaseGuards.expired(jobId, lease!.token),
        },
      ),
    ).rejects.toBeInstanceOf(LeaseLostError);
    expect((await store.readStream(streams.job(jobId))).map((e) => e.type)).toEqual(['JobQueued', 'JobStarted']);
  });

  describe('progress of running jobs', () => {
    const silent = { warn: () => undefined };
    const until = async (check: () => boolean, what: string) => {
      const deadline = Date.now() + 10_000;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };

    it('the lease holder records progress and every listener hears it; a stale lease writes nothing', async () => {
      const progress = new JobProgress(queue, silent);
      progress.start();
      try {
        const jobId = await submit(newId('acct'));
        const lease = (await queue.claim('w1', LEASE_MS, 0)).lease!;
        await start(lease);
        expect(progress.of(jobId)).toBeUndefined();
        // the first value arrives by notification or by the catch-up after LISTEN: either way the listener is on
        expect(await queue.reportProgress(lease, 0.125)).toBe(true);
        await until(() => progress.of(jobId) === 0.125, '0.125');
        // reconciling runs only at connect and every 30 s: this one can only come by notification
        expect(await queue.reportProgress(lease, 0.25)).toBe(true);
        await until(() => progress.of(jobId) === 0.25, 'the notification of 0.25');
        expect(await queue.reportProgress({ ...lease, token: '00000000-0000-4000-8000-000000000000' }, 0.9)).toBe(false);
        expect(await db.query(`SELECT progress FROM work_queue WHERE job_id = $1`, [jobId])).toEqual([{ progress: 0.25 }]);
        expect(await queue.runningProgress()).toEqual(new Map([[jobId, 0.25]]));
      } finally {
        await progress.stop();
      }
    });

    it('a listener that starts late catches up from the table, and forgets a job once it ended', async () => {
      const jobId = await submit(newId('acct'));
      const lease = (await queue.claim('w1', LEASE_MS, 0)).lease!;
      await start(lease);
      await queue.reportProgress(lease, 0.5);
      const progress = new JobProgress(queue, silent);
      progress.start();
      try {
        await until(() => progress.of(jobId) === 0.5, 'the catch-up after connecting');
        await job(jobId, { type: 'CancelJob', data: { now: now() } });
        await progress.reconcile();
        expect(progress.of(jobId)).toBeUndefined();
      } finally {
        await progress.stop();
      }
    });

    it('a new attempt starts from 0 again', async () => {
      const jobId = await submit(newId('acct'));
      const first = (await queue.claim('w1', LEASE_MS, 0)).lease!;
      await start(first);
      await queue.reportProgress(first, 0.75);
      await db.query(`UPDATE work_queue SET lease_expires_at = clock_timestamp() - interval '1 second' WHERE job_id = $1`, [jobId]);
      const [expired] = await queue.expired();
      await job(
        jobId,
        { type: 'LoseAttempt', data: { attempt: 1, reason: 'lease expired', now: now(), retryDelayMs: 0 } },
        { guard: leaseGuards.expired(expired.jobId, expired.token) },
      );
      await job(jobId, { type: 'RequeueJob', data: { now: now() } });
      const second = (await queue.claim('w2', LEASE_MS, 0)).lease!;
      await start(second);
      expect(await queue.runningProgress()).toEqual(new Map());
    });
  });
});
