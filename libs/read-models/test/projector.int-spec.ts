import type { DataSource } from 'typeorm';
import { newId, streams, type JobQueuedData } from '@upscaler/contracts';
import { jobDecider, type JobState } from '@upscaler/domain';
import { EVENT_STORE_MIGRATIONS, handleCommand, PostgresEventStore } from '@upscaler/eventstore';
import { useTestPostgres } from '@upscaler/testing';
import { PROJECTIONS, Projector, ReadModelRepository, ReadModels1732200000100 } from '@upscaler/read-models';

/** Read models (DESIGN 2): idempotent, self-healing, rebuildable from position 0 — on a real Postgres. */
const pg = useTestPostgres();

function queued(accountId: string, jobId = newId('job')): JobQueuedData {
  return {
    jobId,
    accountId,
    apiKeyId: newId('key'),
    target: '2k',
    requestedTarget: '2k',
    format: 'png',
    quality: 'fast',
    filename: 'a.png',
    credits: 3,
    source: { key: `sources/${jobId}`, bytes: 10, contentType: 'image/png', format: 'png', width: 4, height: 4 },
    idempotencyKey: null,
    queuedAt: new Date().toISOString(),
  };
}

describe('Projector', () => {
  let db: DataSource;
  let store: PostgresEventStore;
  let projector: Projector;
  let repo: ReadModelRepository;

  beforeAll(async () => {
    db = await pg.dataSource([...EVENT_STORE_MIGRATIONS, ReadModels1732200000100]);
    store = new PostgresEventStore(db);
    projector = new Projector(db, store, PROJECTIONS);
    repo = new ReadModelRepository(db);
  });
  afterAll(async () => {
    await store.close();
  });

  async function submit(accountId: string) {
    const data = queued(accountId);
    const r = await handleCommand(store, streams.job(data.jobId), jobDecider, { type: 'SubmitJob', data });
    return { jobId: data.jobId, events: r.newEvents };
  }

  it('applies an event once: the same event again (inline and from the log) changes nothing', async () => {
    const acct = newId('acct');
    const { jobId, events } = await submit(acct);
    await projector.apply(events);
    await projector.apply(events);
    const row = await repo.byStream<JobState>(streams.job(jobId));
    expect(row).toMatchObject({ entityId: jobId, accountId: acct, status: 'queued', version: 1 });
    expect(row!.state.job!.jobId).toBe(jobId);
  });

  it('heals a gap by folding the stream again from the log', async () => {
    const { jobId } = await submit(newId('acct'));
    const started = await handleCommand(store, streams.job(jobId), jobDecider, {
      type: 'StartJob',
      data: { workerId: 'w', now: new Date().toISOString() },
    });
    // Only the second event arrives (the first one was never projected).
    await projector.apply(started.newEvents);
    const row = await repo.byStream<JobState>(streams.job(jobId));
    expect(row).toMatchObject({ status: 'processing', version: 2 });
    expect(row!.state.attempts).toBe(1);
  });

  it('pages newest first by id and never repeats or skips while new jobs arrive', async () => {
    const acct = newId('acct');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const s = await submit(acct);
      await projector.apply(s.events);
      ids.push(s.jobId);
    }
    const first = await repo.page<JobState>('job', { accountId: acct, limit: 2 });
    expect(first.items.map((r) => r.entityId)).toEqual([ids[4], ids[3]]);
    expect(first.hasMore).toBe(true);
    const late = await submit(acct);
    await projector.apply(late.events);
    const second = await repo.page<JobState>('job', { accountId: acct, limit: 2, startingAfter: ids[3] });
    expect(second.items.map((r) => r.entityId)).toEqual([ids[2], ids[1]]);
    const third = await repo.page<JobState>('job', { accountId: acct, limit: 2, startingAfter: ids[1] });
    expect(third.items.map((r) => r.entityId)).toEqual([ids[0]]);
    expect(third.hasMore).toBe(false);
  });

  it('rebuilds every read model from position 0 to the same rows', async () => {
    const before: unknown[] = await db.query(`SELECT stream_id, status, version, state FROM read_models ORDER BY stream_id`);
    const count = await projector.rebuild(3);
    expect(count).toBe(await store.headPosition());
    const after: unknown[] = await db.query(`SELECT stream_id, status, version, state FROM read_models ORDER BY stream_id`);
    // the healed row of the gap test included, every row is identical
    expect(after).toEqual(before);
  });
});
