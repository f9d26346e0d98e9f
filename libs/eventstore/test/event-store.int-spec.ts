import type { DataSource } from 'typeorm';
import { Client } from 'pg';
import { createDataSource } from '@upscaler/postgres';
import { useTestPostgres } from '@upscaler/testing';
import { EVENT_LOG_LOCK_KEY, EVENT_STORE_MIGRATIONS, PostgresEventStore, WrongExpectedVersionError } from '@upscaler/eventstore';

const pg = useTestPostgres();

describe('PostgresEventStore', () => {
  let db: DataSource;
  let store: PostgresEventStore;

  beforeAll(async () => {
    db = await pg.dataSource(EVENT_STORE_MIGRATIONS);
    store = new PostgresEventStore(db);
  });
  afterAll(async () => {
    await store.close();
  });

  it('appends to a new stream and reads it back with positions, versions and ISO times', async () => {
    const result = await store.append('job-a1', 'no_stream', [
      { type: 'JobSubmitted', data: { target: '4k' }, metadata: { correlationId: 'job_a1' } },
      { type: 'JobStarted', data: [1, 2, 3] },
    ]);
    expect(result.nextVersion).toBe(2);
    expect(result.events.map((e) => [e.streamId, e.version, e.type])).toEqual([
      ['job-a1', 1, 'JobSubmitted'],
      ['job-a1', 2, 'JobStarted'],
    ]);
    expect(result.lastPosition).toBe(result.events[1].position);
    expect(result.events[1].position).toBe(result.events[0].position + 1);

    const read = await store.readStream('job-a1');
    expect(read).toEqual(result.events);
    expect(read[0].metadata).toEqual({ correlationId: 'job_a1' });
    expect(read[1].data).toEqual([1, 2, 3]);
    expect(read[1].metadata).toEqual({});
    expect(read[0].createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(await store.readStream('job-missing')).toEqual([]);
  });

  it('checks the expected version: no_stream, exact number, any', async () => {
    await store.append('job-b1', 0, [{ type: 'A', data: {} }]);
    await expect(store.append('job-b1', 'no_stream', [{ type: 'B', data: {} }])).rejects.toMatchObject({
      name: 'WrongExpectedVersionError',
      streamId: 'job-b1',
      expected: 'no_stream',
      actual: 1,
    });
    await expect(store.append('job-b1', 0, [{ type: 'B', data: {} }])).rejects.toBeInstanceOf(WrongExpectedVersionError);
    await expect(store.append('job-b1', 2, [{ type: 'B', data: {} }])).rejects.toMatchObject({ expected: 2, actual: 1 });
    expect((await store.append('job-b1', 1, [{ type: 'B', data: {} }])).nextVersion).toBe(2);
    expect((await store.append('job-b1', 'any', [{ type: 'C', data: {} }])).nextVersion).toBe(3);
    expect((await store.readStream('job-b1')).map((e) => e.type)).toEqual(['A', 'B', 'C']);
  });

  it('of two concurrent appends with the same expected version exactly one wins', async () => {
    await store.append('job-c1', 'no_stream', [{ type: 'JobSubmitted', data: {} }]);
    for (let round = 0; round < 5; round++) {
      const version = 1 + round;
      const outcomes = await Promise.allSettled([
        store.append('job-c1', version, [{ type: 'Finish', data: { round } }]),
        store.append('job-c1', version, [{ type: 'Cancel', data: { round } }]),
      ]);
      const won = outcomes.filter((o) => o.status === 'fulfilled');
      const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0].reason).toBeInstanceOf(WrongExpectedVersionError);
      expect(lost[0].reason).toMatchObject({ expected: version, actual: version + 1 });
    }
    expect((await store.readStream('job-c1')).map((e) => e.version)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('of two concurrent creations of one stream exactly one wins', async () => {
    const outcomes = await Promise.allSettled([
      store.append('account-d1', 'no_stream', [{ type: 'AccountCreated', data: { by: 'x' } }]),
      store.append('account-d1', 'no_stream', [{ type: 'AccountCreated', data: { by: 'y' } }]),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(await store.readStream('account-d1')).toHaveLength(1);
  });

  it('maps a unique violation on (stream, version) by a writer that bypassed the lock to WrongExpectedVersionError', async () => {
    await store.append('job-e1', 'no_stream', [{ type: 'A', data: {} }]);
    const rogue = new Client({ connectionString: connectionUrl(db) });
    await rogue.connect();
    try {
      await rogue.query('BEGIN');
      await rogue.query(`INSERT INTO events (stream_id, version, type, data) VALUES ('job-e1', 2, 'Rogue', '{}')`);
      // Our append sees version 1 (the rogue row is uncommitted), inserts version 2, and waits on the index.
      const append = store.append('job-e1', 1, [{ type: 'B', data: {} }]);
      await waitForLockWait(db);
      await rogue.query('COMMIT');
      await expect(append).rejects.toMatchObject({ name: 'WrongExpectedVersionError', expected: 1, actual: 2 });
    } finally {
      await rogue.end();
    }
    expect((await store.readStream('job-e1')).map((e) => e.type)).toEqual(['A', 'Rogue']);
  });

  it('the database refuses UPDATE, DELETE and TRUNCATE of events', async () => {
    await store.append('job-f1', 'no_stream', [{ type: 'A', data: { n: 1 } }]);
    await expect(db.query(`UPDATE events SET data = '{"n":2}' WHERE stream_id = 'job-f1'`)).rejects.toThrow(
      'the event log is append-only: UPDATE on events is refused',
    );
    await expect(db.query(`DELETE FROM events WHERE stream_id = 'job-f1'`)).rejects.toThrow(
      'the event log is append-only: DELETE on events is refused',
    );
    await expect(db.query(`TRUNCATE events`)).rejects.toThrow('the event log is append-only: TRUNCATE on events is refused');
    expect((await store.readStream('job-f1'))[0].data).toEqual({ n: 1 });
  });

  it('readAll pages by position and filters by category and type', async () => {
    const start = await store.headPosition();
    await store.append('job-g1', 'no_stream', [{ type: 'JobSubmitted', data: {} }]);
    await store.append('account-g1', 'no_stream', [{ type: 'CreditsGranted', data: {} }]);
    await store.append('job-g2', 'no_stream', [
      { type: 'JobSubmitted', data: {} },
      { type: 'JobStarted', data: {} },
    ]);
    await store.append('webhook-g1', 'no_stream', [{ type: 'EndpointCreated', data: {} }]);
    const page = (after: number, limit: number, filter?: { categories?: string[]; types?: string[] }) =>
      store.readAll(after, limit, filter).then((es) => es.map((e) => `${e.position - start}:${e.streamId}:${e.type}`));

    expect(await page(start, 10)).toEqual([
      '1:job-g1:JobSubmitted',
      '2:account-g1:CreditsGranted',
      '3:job-g2:JobSubmitted',
      '4:job-g2:JobStarted',
      '5:webhook-g1:EndpointCreated',
    ]);
    expect(await page(start + 1, 2)).toEqual(['2:account-g1:CreditsGranted', '3:job-g2:JobSubmitted']);
    expect(await page(start, 10, { categories: ['job'] })).toEqual([
      '1:job-g1:JobSubmitted',
      '3:job-g2:JobSubmitted',
      '4:job-g2:JobStarted',
    ]);
    expect(await page(start, 10, { categories: ['account', 'webhook'] })).toEqual([
      '2:account-g1:CreditsGranted',
      '5:webhook-g1:EndpointCreated',
    ]);
    expect(await page(start, 10, { types: ['JobStarted', 'CreditsGranted'] })).toEqual([
      '2:account-g1:CreditsGranted',
      '4:job-g2:JobStarted',
    ]);
    expect(await page(start, 10, { categories: ['job'], types: ['JobStarted'] })).toEqual(['4:job-g2:JobStarted']);
    expect(await page(start, 10, { categories: [] })).toEqual([]);
    expect(await store.headPosition()).toBe(start + 5);
  });

  it('onAppended wakes listeners for appends of this process and of another connection', async () => {
    const other = new PostgresEventStore(db); // stands in for another process: own LISTEN, own local emitter
    const heard: number[] = [];
    const unsubscribe = other.onAppended((p) => heard.push(p));
    try {
      await eventually(async () => {
        // The LISTEN connection is up once the catch-up wake-up (head position) arrived.
        expect(heard).toContain(await store.headPosition());
      });
      const { lastPosition } = await store.append('job-h1', 'no_stream', [
        { type: 'A', data: {} },
        { type: 'B', data: {} },
      ]);
      await eventually(() => expect(heard[heard.length - 1]).toBe(lastPosition));

      const local: number[] = [];
      const off = store.onAppended((p) => local.push(p));
      const second = await store.append('job-h1', 2, [{ type: 'C', data: {} }]);
      // Same process: the listener ran before append() resolved.
      expect(local).toEqual([second.lastPosition]);
      off();
    } finally {
      unsubscribe();
      await other.close();
    }
  });

  it('the LISTEN connection comes back after the server dropped it, and listeners hear appends again', async () => {
    // A second DataSource with its own application name, so its LISTEN backend is easy to find.
    const otherDb = createDataSource(connectionUrl(db), [], { applicationName: 'reconnect-test', poolSize: 2 });
    await otherDb.initialize();
    const other = new PostgresEventStore(otherDb, { listenRetryDelayMs: 20 });
    const heard: number[] = [];
    const unsubscribe = other.onAppended((p) => heard.push(p));
    const ours = async (): Promise<number[]> =>
      (await db.query(`SELECT pid FROM pg_stat_activity WHERE application_name = 'reconnect-test-listen' AND query ILIKE 'LISTEN%'`)).map(
        (r: { pid: number }) => r.pid,
      );
    try {
      await eventually(async () => expect(await ours()).toHaveLength(1));
      const [before] = await ours();
      await db.query('SELECT pg_terminate_backend($1)', [before]);
      await eventually(async () => {
        const now = await ours();
        expect(now).toHaveLength(1);
        expect(now[0]).not.toBe(before);
      });
      const { lastPosition } = await store.append('job-k1', 'no_stream', [{ type: 'AfterReconnect', data: {} }]);
      await eventually(() => expect(heard[heard.length - 1]).toBe(lastPosition));
    } finally {
      unsubscribe();
      await other.close();
      await otherDb.destroy();
    }
  });

  it('a reader tailing by position sees every position exactly once, in order, while appends run concurrently', async () => {
    const start = await store.headPosition();
    const writers = 4;
    const appendsPerWriter = 40;
    const seen: number[] = [];
    let done = false;
    const reader = (async () => {
      let checkpoint = start;
      while (!done || checkpoint < (await store.headPosition())) {
        const batch = await store.readAll(checkpoint, 7);
        for (const e of batch) {
          seen.push(e.position);
          checkpoint = e.position;
        }
      }
    })();
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        for (let i = 0; i < appendsPerWriter; i++) {
          await store.append(`job-tail${w}`, 'any', [
            { type: 'Tick', data: { w, i } },
            { type: 'Tock', data: { w, i } },
          ]);
        }
      }),
    );
    done = true;
    await reader;
    const total = writers * appendsPerWriter * 2;
    expect(seen).toEqual(Array.from({ length: total }, (_, i) => start + 1 + i));
  });

  it('an append waits while another transaction holds the log lock, so a lower position never becomes visible after a higher one', async () => {
    const start = await store.headPosition();
    const holder = new Client({ connectionString: connectionUrl(db) });
    await holder.connect();
    try {
      // A writer that took the lock and a position but has not committed yet.
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock($1)', [EVENT_LOG_LOCK_KEY]);
      await holder.query(`INSERT INTO events (stream_id, version, type, data) VALUES ('job-i1', 1, 'Slow', '{}')`);
      let appended = false;
      const append = store.append('job-i2', 'no_stream', [{ type: 'Fast', data: {} }]).then((r) => {
        appended = true;
        return r;
      });
      await waitForLockWait(db);
      expect(appended).toBe(false);
      expect(await store.readAll(start, 10)).toEqual([]);
      await holder.query('COMMIT');
      const fast = await append;
      expect((await store.readAll(start, 10)).map((e) => [e.position - start, e.type])).toEqual([
        [1, 'Slow'],
        [2, 'Fast'],
      ]);
      expect(fast.lastPosition).toBe(start + 2);
    } finally {
      await holder.end();
    }
  });

  it('(why the lock) writers that skip it let a tailing reader miss a position that commits late', async () => {
    const start = await store.headPosition();
    const slow = new Client({ connectionString: connectionUrl(db) });
    const fast = new Client({ connectionString: connectionUrl(db) });
    await Promise.all([slow.connect(), fast.connect()]);
    try {
      await slow.query('BEGIN');
      await slow.query(`INSERT INTO events (stream_id, version, type, data) VALUES ('job-j1', 1, 'Slow', '{}')`);
      await fast.query(`INSERT INTO events (stream_id, version, type, data) VALUES ('job-j2', 1, 'Fast', '{}')`);
      const firstRead = await store.readAll(start, 10);
      const checkpoint = firstRead[firstRead.length - 1].position;
      await slow.query('COMMIT');
      const secondRead = await store.readAll(checkpoint, 10);
      expect(firstRead.map((e) => e.position - start)).toEqual([2]);
      expect(secondRead).toEqual([]); // position start+1 was skipped for good
    } finally {
      await Promise.all([slow.end(), fast.end()]);
    }
  });
});

function connectionUrl(db: DataSource): string {
  return (db.options as { url: string }).url;
}

/** Resolves once some session of this database waits on a lock (our append blocked). */
async function waitForLockWait(db: DataSource): Promise<void> {
  await eventually(async () => {
    const rows: unknown[] = await db.query(
      `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    expect(rows.length).toBeGreaterThan(0);
  });
}

async function eventually(check: () => unknown, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
