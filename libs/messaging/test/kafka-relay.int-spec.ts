import type { StoredEvent } from '@upscaler/contracts';
import { EVENT_STORE_MIGRATIONS, PostgresCheckpointStore, PostgresEventStore } from '@upscaler/eventstore';
import { createKafka, decodeEventMessage, ensureTopics, EventRelay, TOPICS, type TransportLog } from '@upscaler/messaging';
import type { Admin, Consumer, Kafka } from 'kafkajs';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresConnectionOptions } from 'typeorm/driver/postgres/PostgresConnectionOptions';
import { startTestKafka, type TestKafka } from '../../testing/src/kafka';
import { useTestPostgres } from '../../testing/src/postgres';
import { sleep, waitFor } from './kafka-test-events';

// Real Postgres (embedded) + real Kafka (scripts/infra): the relay between the log and the topics.
jest.setTimeout(240_000);

const quiet: TransportLog = () => undefined;
const pg = useTestPostgres();
let kafka: TestKafka;
let client: Kafka;
let admin: Admin;
const cleanup: Array<() => Promise<unknown>> = [];

interface Received {
  partition: number;
  key: string;
  event: StoredEvent;
}

/** Reads whole topics from the beginning with a throw-away group, as a consumer of the relay would. */
async function collect(categories: string[]): Promise<Received[]> {
  const topics = categories.map((c) => TOPICS.events(c));
  await ensureTopics(admin, topics, 6);
  const out: Received[] = [];
  const consumer: Consumer = client.consumer({ groupId: `collector-${Math.random().toString(36).slice(2)}` });
  await consumer.connect();
  await consumer.subscribe({ topics, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ topic, partition, message }) => {
      out.push({ partition, key: message.key!.toString(), event: decodeEventMessage(topic, message.value) });
    },
  });
  cleanup.push(() => consumer.disconnect());
  return out;
}

interface Log {
  db: DataSource;
  url: string;
  store: PostgresEventStore;
  checkpoints: PostgresCheckpointStore;
}

async function freshLog(): Promise<Log> {
  const db = await pg.dataSource(EVENT_STORE_MIGRATIONS);
  const store = new PostgresEventStore(db);
  cleanup.push(() => store.close());
  return { db, url: (db.options as PostgresConnectionOptions).url!, store, checkpoints: new PostgresCheckpointStore(db) };
}

function relay(log: Log, extra: { name?: string; pollIntervalMs?: number } = {}): EventRelay {
  const r = new EventRelay({
    brokers: kafka.brokers,
    partitions: 6,
    store: log.store,
    checkpoints: log.checkpoints,
    lockConnection: log.url,
    pollIntervalMs: extra.pollIntervalMs ?? 200,
    name: extra.name,
    log: quiet,
  });
  cleanup.push(() => r.stop());
  return r;
}

/** Appends `count` events round-robin over `streams` streams of `category`, one append each. */
async function appendEvents(log: Log, category: string, streams: number, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await log.store.append(`${category}-s${i % streams}`, 'any', [{ type: 'TestHappened', data: { i } }]);
  }
}

function versionsPerStream(received: Received[]): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const r of received) (out[r.event.streamId] ??= []).push(r.event.version);
  return out;
}

function expectedVersions(category: string, streams: number, count: number): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (let i = 0; i < count; i++) (out[`${category}-s${i % streams}`] ??= []).push(Math.floor(i / streams) + 1);
  return out;
}

/** No event of a stream ever arrives after a later one of that stream, except as a repeat of what came before. */
function firstOccurrences(received: Received[]): Record<string, number[]> {
  const seen = new Set<number>();
  return versionsPerStream(received.filter((r) => !seen.has(r.event.position) && seen.add(r.event.position)));
}

beforeAll(async () => {
  kafka = await startTestKafka({ partitions: 6 });
  client = createKafka({ brokers: kafka.brokers, log: quiet });
  admin = client.admin();
  await admin.connect();
}, 30 * 60_000);

afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn().catch(() => undefined);
});

afterAll(async () => {
  await admin?.disconnect();
  await kafka?.dispose();
});

describe('EventRelay', () => {
  it('publishes every event to its category topic with key = stream id, in order per stream, and resumes from its checkpoint', async () => {
    const log = await freshLog();
    const received = await collect(['rela', 'relb']);
    await appendEvents(log, 'rela', 3, 30);
    await appendEvents(log, 'relb', 2, 10);
    const first = relay(log, { name: 'relay-resume' });
    await first.start();
    await waitFor('40 events', () => received.length >= 40);
    await first.stop();
    expect(await log.checkpoints.load('relay-resume')).toBe(40);

    await appendEvents(log, 'relb', 2, 10); // positions 41..50 while no relay runs
    const second = relay(log, { name: 'relay-resume' });
    await second.start();
    await waitFor('50 events', () => received.length >= 50);
    await sleep(1_500);

    // Exactly once after a clean stop: the restart began at the checkpoint, not at 0.
    expect(received.map((r) => r.event.position).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(received.every((r) => r.key === r.event.streamId)).toBe(true);
    const byStream = versionsPerStream(received);
    expect(byStream).toEqual({ ...expectedVersions('rela', 3, 30), ...expectedVersions('relb', 2, 20) });
    // One stream, one partition: that is what keeps its order.
    for (const stream of Object.keys(byStream)) {
      expect(new Set(received.filter((r) => r.key === stream).map((r) => r.partition)).size).toBe(1);
    }
    expect(second.getStatus()).toEqual({ active: true, publishedUpTo: 50 });
    expect(await log.checkpoints.load('relay-resume')).toBe(50);
  });

  it('with two replicas only one publishes; the standby takes over when it stops, and order per stream holds', async () => {
    const log = await freshLog();
    const received = await collect(['relc']);
    const a = relay(log, { name: 'relay-pair' });
    const b = relay(log, { name: 'relay-pair' });
    await a.start();
    await waitFor('a active', () => a.getStatus().active);
    await b.start();
    await sleep(1_000);
    expect([a.getStatus().active, b.getStatus().active]).toEqual([true, false]);

    const writing = appendEvents(log, 'relc', 8, 160);
    await waitFor('some published', () => received.length >= 40);
    await a.stop(); // releases the lock mid-flow
    await writing;
    await waitFor('160 events', () => new Set(received.map((r) => r.event.position)).size >= 160, 120_000);
    await sleep(1_000);
    expect(b.getStatus()).toEqual({ active: true, publishedUpTo: 160 });
    expect(received).toHaveLength(160); // a clean hand-over repeats nothing
    expect(versionsPerStream(received)).toEqual(expectedVersions('relc', 8, 160));
  });

  it('when the active relay’s database session dies, the standby takes over without reordering any stream', async () => {
    const log = await freshLog();
    const received = await collect(['reld']);
    const a = relay(log, { name: 'relay-crash' });
    const b = relay(log, { name: 'relay-crash' });
    await a.start();
    await waitFor('a active', () => a.getStatus().active);
    await b.start();

    const writing = appendEvents(log, 'reld', 6, 120);
    await waitFor('some published', () => received.length >= 30);
    // Kill the session that holds the advisory lock, as a crashed pod or a network cut would.
    const admin = new Client({ connectionString: log.url });
    await admin.connect();
    const killed = await admin.query(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND granted`,
      [0x75707363],
    );
    await admin.end();
    expect(killed.rows).toEqual([{ ok: true }]);
    await writing;
    await waitFor('120 events', () => new Set(received.map((r) => r.event.position)).size >= 120, 120_000);
    await sleep(1_000);
    // At least once: a batch in flight at the cut may come again, but never out of order.
    expect(firstOccurrences(received)).toEqual(expectedVersions('reld', 6, 120));
    for (const [stream, versions] of Object.entries(versionsPerStream(received))) {
      for (let i = 1; i < versions.length; i++) {
        if (versions[i]! < versions[i - 1]!) {
          // A repeat starts over at a version already delivered, and then runs on in order.
          expect(versions.slice(0, i)).toContain(versions[i]);
        }
      }
      expect(stream.startsWith('reld-')).toBe(true);
    }
  });

  it('loses nothing when the broker stops and restarts while events are appended', async () => {
    const log = await freshLog();
    const received = await collect(['rele']);
    const r = relay(log, { name: 'relay-broker' });
    await r.start();
    await appendEvents(log, 'rele', 5, 30);
    await waitFor('first 30', () => new Set(received.map((x) => x.event.position)).size >= 30);

    await kafka.stop();
    await appendEvents(log, 'rele', 5, 30); // the relay keeps trying meanwhile
    await sleep(2_000);
    expect(r.getStatus().publishedUpTo).toBe(30);
    await kafka.start();
    await waitFor('all 60', () => new Set(received.map((x) => x.event.position)).size >= 60, 180_000);
    await sleep(1_000);
    expect(firstOccurrences(received)).toEqual(expectedVersions('rele', 5, 60));
    expect(r.getStatus().publishedUpTo).toBe(60);
    expect(await log.checkpoints.load('relay-broker')).toBe(60);
  });
});
