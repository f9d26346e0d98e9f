import type { StoredEvent } from '@upscaler/contracts';
import type { DataSource } from 'typeorm';
import { useTestPostgres } from '@upscaler/testing';
import { EVENT_STORE_MIGRATIONS, PostgresCheckpointStore, PostgresEventStore } from '@upscaler/eventstore';
import {
  InProcessTransport,
  RemoteHandlerError,
  RequestTimeoutError,
  TOPICS,
  waitForCatchUp,
  type TransportLog,
} from '@upscaler/messaging';

const pg = useTestPostgres();

describe('InProcessTransport', () => {
  let db: DataSource;
  let store: PostgresEventStore;
  let checkpoints: PostgresCheckpointStore;
  let transport: InProcessTransport;
  const logged: string[] = [];
  const log: TransportLog = (level, message) => logged.push(`${level}: ${message}`);

  beforeAll(async () => {
    db = await pg.dataSource(EVENT_STORE_MIGRATIONS);
    store = new PostgresEventStore(db);
    checkpoints = new PostgresCheckpointStore(db);
  });
  beforeEach(() => {
    logged.length = 0;
    // Polling is slowed down so that only the onAppended wake-ups can explain prompt delivery.
    transport = new InProcessTransport({
      store,
      checkpoints,
      log,
      batchSize: 3,
      pollIntervalMs: 60_000,
      retry: { initialMs: 10, maxMs: 40 },
    });
  });
  afterEach(async () => {
    await transport.close();
  });
  afterAll(async () => {
    await store.close();
  });

  const summary = (events: StoredEvent[]) => events.map((e) => `${e.streamId}:${e.type}`);

  it('delivers the subscribed categories in position order, across batches, and checkpoints them', async () => {
    await store.append('job-s1', 'no_stream', [{ type: 'JobSubmitted', data: {} }]);
    await store.append('account-s1', 'no_stream', [{ type: 'CreditsGranted', data: {} }]);
    const got: StoredEvent[] = [];
    const sub = await transport.subscribe({ consumer: 'test-order', categories: ['job'], handle: async (e) => void got.push(e) });
    await store.append('job-s1', 1, [
      { type: 'JobStarted', data: {} },
      { type: 'JobProgressed', data: {} },
    ]);
    await store.append('job-s2', 'no_stream', [{ type: 'JobSubmitted', data: {} }]);
    const last = await store.append('webhook-s1', 'no_stream', [{ type: 'EndpointCreated', data: {} }]);

    await waitForCatchUp(sub, last.lastPosition, 10_000);
    expect(summary(got)).toEqual(['job-s1:JobSubmitted', 'job-s1:JobStarted', 'job-s1:JobProgressed', 'job-s2:JobSubmitted']);
    expect(got.map((e) => e.position)).toEqual([...got.map((e) => e.position)].sort((a, b) => a - b));
    // Caught up past the trailing webhook event it does not receive.
    expect(sub.caughtUpTo()).toBe(last.lastPosition);
    await sub.stop();
    expect(await checkpoints.load('test-order')).toBe(last.lastPosition);
  });

  it('resumes after its checkpoint: a restarted consumer gets only what it has not handled', async () => {
    const first: string[] = [];
    let sub = await transport.subscribe({
      consumer: 'test-resume',
      categories: ['delivery'],
      handle: async (e) => void first.push(e.type),
    });
    const a = await store.append('delivery-r1', 'no_stream', [
      { type: 'One', data: {} },
      { type: 'Two', data: {} },
    ]);
    await waitForCatchUp(sub, a.lastPosition, 10_000);
    await sub.stop();

    await store.append('delivery-r1', 2, [{ type: 'Three', data: {} }]);
    const second: string[] = [];
    sub = await transport.subscribe({ consumer: 'test-resume', categories: ['delivery'], handle: async (e) => void second.push(e.type) });
    await waitForCatchUp(sub, await store.headPosition(), 10_000);
    await sub.stop();
    expect(first).toEqual(['One', 'Two']);
    expect(second).toEqual(['Three']);
  });

  it('a handler error is logged and the same event redelivered with backoff, never skipped', async () => {
    const attempts: string[] = [];
    let failuresLeft = 2;
    const sub = await transport.subscribe({
      consumer: 'test-redeliver',
      categories: ['apikey'],
      handle: async (e) => {
        attempts.push(e.type);
        if (e.type === 'Second' && failuresLeft-- > 0) throw new Error('projection table locked');
      },
    });
    const r = await store.append('apikey-x1', 'no_stream', [
      { type: 'First', data: {} },
      { type: 'Second', data: {} },
      { type: 'Third', data: {} },
    ]);
    await waitForCatchUp(sub, r.lastPosition, 10_000);
    await sub.stop();
    expect(attempts).toEqual(['First', 'Second', 'Second', 'Second', 'Third']);
    expect(logged.filter((l) => l.startsWith('error:'))).toEqual([
      `error: subscription test-redeliver: handler failed on Second at position ${r.events[1].position}; retrying in 10 ms`,
      `error: subscription test-redeliver: handler failed on Second at position ${r.events[1].position}; retrying in 20 ms`,
    ]);
    // The progress before the failing event was saved before backing off.
    expect(await checkpoints.load('test-redeliver')).toBe(r.lastPosition);
  });

  it('stop() lets the running handler finish and starts no further event', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const seen: string[] = [];
    const sub = await transport.subscribe({
      consumer: 'test-stop',
      categories: ['idempotency'],
      handle: async (e) => {
        seen.push(`start ${e.type}`);
        if (e.type === 'Slow') await gate;
        seen.push(`end ${e.type}`);
      },
    });
    const r = await store.append('idempotency-t1', 'no_stream', [
      { type: 'Slow', data: {} },
      { type: 'Next', data: {} },
    ]);
    while (!seen.includes('start Slow')) await new Promise((res) => setTimeout(res, 5));
    const stopped = sub.stop();
    release();
    await stopped;
    expect(seen).toEqual(['start Slow', 'end Slow']);
    expect(sub.caughtUpTo()).toBe(r.events[0].position);
    expect(await checkpoints.load('test-stop')).toBe(r.events[0].position);
  });

  it('a consumer stopped while its handler keeps failing gets the failing event again at its next start', async () => {
    let attempts = 0;
    let sub = await transport.subscribe({
      consumer: 'test-stop-failing',
      categories: ['webhook'],
      handle: async (e) => {
        if (e.type === 'Broken') {
          attempts++;
          throw new Error('endpoint table missing');
        }
      },
    });
    const r = await store.append('webhook-u1', 'no_stream', [
      { type: 'Fine', data: {} },
      { type: 'Broken', data: {} },
    ]);
    while (attempts < 2) await new Promise((res) => setTimeout(res, 5));
    await sub.stop();
    expect(await checkpoints.load('test-stop-failing')).toBe(r.events[0].position);

    const seen: string[] = [];
    sub = await transport.subscribe({
      consumer: 'test-stop-failing',
      categories: ['webhook'],
      handle: async (e) => void seen.push(e.type),
    });
    await waitForCatchUp(sub, r.lastPosition, 10_000);
    expect(seen).toEqual(['Broken']);
  });

  it('refuses a second subscription with the same consumer name', async () => {
    await transport.subscribe({ consumer: 'test-dup', categories: ['job'], handle: async () => undefined });
    await expect(transport.subscribe({ consumer: 'test-dup', categories: ['job'], handle: async () => undefined })).rejects.toThrow(
      'consumer test-dup is already subscribed',
    );
  });

  it('waitForCatchUp rejects when the position is not reached in time', async () => {
    const sub = await transport.subscribe({ consumer: 'test-wait', categories: ['job'], handle: async () => undefined });
    const head = await store.headPosition();
    await waitForCatchUp(sub, head, 10_000);
    await expect(waitForCatchUp(sub, head + 1000, 50)).rejects.toThrow(
      `subscription reached position ${head}, not ${head + 1000}, within 50 ms`,
    );
  });

  it('request/reply answers through a JSON wire', async () => {
    await transport.reply<{ jobId: string; at: Date }, { reserved: number; at: string }>(TOPICS.billingReserve, async (req) => ({
      reserved: 4,
      at: String(req.at),
    }));
    const at = new Date('2026-01-02T03:04:05.000Z');
    expect(await transport.request(TOPICS.billingReserve, { jobId: 'job_1', at }, 1_000)).toEqual({
      reserved: 4,
      at: '2026-01-02T03:04:05.000Z',
    });
  });

  it('a handler error reaches the requester as RemoteHandlerError with its code', async () => {
    await transport.reply(TOPICS.billingReserve, async () => {
      throw Object.assign(new Error('balance too low'), { name: 'DomainError', code: 'insufficient_credits' });
    });
    const err = await transport.request(TOPICS.billingReserve, {}, 1_000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RemoteHandlerError);
    expect(err).toMatchObject({
      topic: TOPICS.billingReserve,
      remoteName: 'DomainError',
      message: 'balance too low',
      code: 'insufficient_credits',
    });
  });

  it('with nobody answering (billing down) a request rejects with RequestTimeoutError', async () => {
    await transport.reply(TOPICS.billingReserve, async () => 'up');
    expect(await transport.request(TOPICS.billingReserve, {}, 1_000)).toBe('up');
    transport.removeReply(TOPICS.billingReserve);
    const err = await transport.request(TOPICS.billingReserve, {}, 30).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect(err).toMatchObject({
      topic: TOPICS.billingReserve,
      timeoutMs: 30,
      message: `No reply on ${TOPICS.billingReserve} within 30 ms`,
    });
  });

  it('a handler slower than the timeout also times out', async () => {
    await transport.reply(TOPICS.billingReserve, () => new Promise((r) => setTimeout(() => r('late'), 200)));
    await expect(transport.request(TOPICS.billingReserve, {}, 20)).rejects.toBeInstanceOf(RequestTimeoutError);
  });

  it('a request waiting for a handler is answered when one registers within its timeout', async () => {
    const answer = transport.request<number, number>('upscale.test.double.v1', 21, 5_000);
    await new Promise((r) => setTimeout(r, 20));
    await transport.reply<number, number>('upscale.test.double.v1', async (n) => n * 2);
    expect(await answer).toBe(42);
  });
});
