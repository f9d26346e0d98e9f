import type { DataSource } from 'typeorm';
import { newId, streams, type JobQueuedData } from '@upscaler/contracts';
import { jobDecider, jobFixtures, jobProjection, type JobState } from '@upscaler/jobs';
import { EVENT_STORE_MIGRATIONS, handleCommand, PostgresEventStore } from '@upscaler/eventstore';
import { useTestPostgres } from '@upscaler/testing';
import { Projector, ReadModelRepository, ReadModels1732200000100, type ProjectionDef } from '@upscaler/projections';
import { rebuildProjections } from '@upscaler/runtime';

/**
 * Read models (docs/design.md §2): applied inside the append's transaction, idempotent, self-healing,
 * rebuildable from position 0 — on a real Postgres.
 */
const pg = useTestPostgres();

function queued(accountId: string, jobId = newId('job')): JobQueuedData {
  return jobFixtures.aJobQueuedData({ jobId, accountId, queuedAt: new Date().toISOString() });
}

describe('Projector', () => {
  let db: DataSource;
  let store: PostgresEventStore;
  /** The same log without the projection: a writer from before the category was projected. */
  let bare: PostgresEventStore;
  let projector: Projector;
  let repo: ReadModelRepository;

  beforeAll(async () => {
    db = await pg.dataSource([...EVENT_STORE_MIGRATIONS, ReadModels1732200000100]);
    projector = new Projector([jobProjection as ProjectionDef]);
    store = new PostgresEventStore(db, { inlineProjections: [projector] });
    bare = new PostgresEventStore(db);
    repo = new ReadModelRepository(db);
  });
  afterAll(async () => {
    await store.close();
    await bare.close();
  });

  async function submit(accountId: string, via = store) {
    const data = queued(accountId);
    const r = await handleCommand(via, streams.job(data.jobId), jobDecider, { type: 'SubmitJob', data });
    return { jobId: data.jobId, events: r.newEvents };
  }

  it('the row is there when the append returns; the same event applied again changes nothing', async () => {
    const acct = newId('acct');
    const { jobId, events } = await submit(acct);
    const row = await repo.byStream<JobState>(streams.job(jobId));
    expect(row).toMatchObject({ entityId: jobId, accountId: acct, status: 'queued', version: 1 });
    expect(row!.state.job!.jobId).toBe(jobId);
    await store.projectInline(events);
    expect(await repo.byStream<JobState>(streams.job(jobId))).toEqual(row);
  });

  it('a projection that throws rolls its append back: no event without its row', async () => {
    const failing = new PostgresEventStore(db, {
      inlineProjections: [
        projector,
        { name: 'fails', handles: () => true, apply: async () => Promise.reject(new Error('boom')), reset: async () => undefined },
      ],
    });
    const data = queued(newId('acct'));
    await expect(handleCommand(failing, streams.job(data.jobId), jobDecider, { type: 'SubmitJob', data })).rejects.toThrow('boom');
    expect([await store.readStream(streams.job(data.jobId)), await repo.byStream(streams.job(data.jobId))]).toEqual([[], null]);
    await failing.close();
  });

  it('heals a gap by folding the stream again from the log', async () => {
    // The first event was appended without the projection, so the second one finds no row.
    const { jobId } = await submit(newId('acct'), bare);
    await handleCommand(store, streams.job(jobId), jobDecider, {
      type: 'StartJob',
      data: { workerId: 'w', now: new Date().toISOString() },
    });
    const row = await repo.byStream<JobState>(streams.job(jobId));
    expect(row).toMatchObject({ status: 'processing', version: 2 });
    expect(row!.state.attempts).toBe(1);
  });

  it('pages newest first by id and never repeats or skips while new jobs arrive', async () => {
    const acct = newId('acct');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await submit(acct)).jobId);
    const first = await repo.page<JobState>('job', { accountId: acct, limit: 2 });
    expect(first.items.map((r) => r.entityId)).toEqual([ids[4], ids[3]]);
    expect(first.hasMore).toBe(true);
    await submit(acct);
    const second = await repo.page<JobState>('job', { accountId: acct, limit: 2, startingAfter: ids[3] });
    expect(second.items.map((r) => r.entityId)).toEqual([ids[2], ids[1]]);
    const third = await repo.page<JobState>('job', { accountId: acct, limit: 2, startingAfter: ids[1] });
    expect(third.items.map((r) => r.entityId)).toEqual([ids[0]]);
    expect(third.hasMore).toBe(false);
  });

  it('rebuilds every read model from position 0 to the same rows', async () => {
    const before: unknown[] = await db.query(`SELECT stream_id, status, version, state FROM read_models ORDER BY stream_id`);
    const count = await rebuildProjections({ db, eventLog: store, inlineProjections: [projector] }, 3);
    // every event once (positions may have gaps: a rolled-back append used a sequence value)
    const [{ n }]: Array<{ n: number }> = await db.query(`SELECT count(*)::int AS n FROM events`);
    expect(count).toBe(n);
    const after: unknown[] = await db.query(`SELECT stream_id, status, version, state FROM read_models ORDER BY stream_id`);
    // the healed row of the gap test included, every row is identical
    expect(after).toEqual(before);
  });
});
