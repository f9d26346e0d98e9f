import type { StoredEvent } from '@upscaler/contracts';
import {
  createKafka,
  ensureTopics,
  KafkaTransport,
  RemoteHandlerError,
  RequestTimeoutError,
  TOPICS,
  type TransportLog,
} from '@upscaler/messaging';
import { startTestKafka, type TestKafka } from '../../testing/src/kafka';
import type { Admin, Kafka, Producer } from 'kafkajs';
import { eventsFor, publish, sleep, versionsByStream, waitFor } from './kafka-test-events';

// Real single-node Kafka (scripts/infra/start-kafka.sh); the first run fetches the jars.
jest.setTimeout(180_000);

const quiet: TransportLog = () => undefined;
let kafka: TestKafka;
let client: Kafka;
let producer: Producer;
let admin: Admin;
const transports: KafkaTransport[] = [];

function transport(extra: Partial<ConstructorParameters<typeof KafkaTransport>[0]> = {}): KafkaTransport {
  const t = new KafkaTransport({ brokers: kafka.brokers, partitions: 6, log: quiet, ...extra });
  transports.push(t);
  return t;
}

async function groupIsStable(groupId: string, members: number): Promise<boolean> {
  const { groups } = await admin.describeGroups([groupId]);
  return groups[0]?.state === 'Stable' && groups[0].members.length === members;
}

beforeAll(async () => {
  kafka = await startTestKafka({ partitions: 6 });
  client = createKafka({ brokers: kafka.brokers, log: quiet });
  producer = client.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  admin = client.admin();
  await admin.connect();
}, 30 * 60_000);

afterEach(async () => {
  await Promise.all(transports.splice(0).map((t) => t.close()));
});

afterAll(async () => {
  await producer?.disconnect();
  await admin?.disconnect();
  await kafka?.dispose();
});

describe('KafkaTransport subscribe', () => {
  it('hands every event to the handler, in version order per stream, and reports the highest position handled', async () => {
    const seen: StoredEvent[] = [];
    const sub = await transport().subscribe({
      consumer: 'order-test',
      categories: ['ordera'],
      handle: async (e) => {
        seen.push(e);
      },
    });
    const events = eventsFor('ordera', 4, 40);
    await publish(producer, 'ordera', events);
    // caughtUpTo moves after the handler returns AND the offset commit is acknowledged, so the
    // 40th handler call can be seen a moment before it: wait for both.
    await waitFor('40 events handled and committed', () => seen.length >= 40 && sub.caughtUpTo() >= 40);
    expect(seen).toHaveLength(40);
    expect(sub.caughtUpTo()).toBe(40);
    expect(versionsByStream(seen)).toEqual(versionsByStream(events));
    expect(seen.map((e) => e.position).sort((a, b) => a - b)).toEqual(events.map((e) => e.position));
  });

  it('commits after each handled event: a restarted member resumes after the last handled event', async () => {
    const first: number[] = [];
    const t1 = transport();
    const sub1 = await t1.subscribe({ consumer: 'resume-test', categories: ['resume'], handle: async (e) => void first.push(e.position) });
    await publish(producer, 'resume', eventsFor('resume', 3, 10));
    await waitFor('first 10', () => first.length >= 10);
    await sub1.stop();

    await publish(producer, 'resume', eventsFor('resume', 3, 5, 11));
    const second: number[] = [];
    const sub2 = await transport().subscribe({
      consumer: 'resume-test',
      categories: ['resume'],
      handle: async (e) => void second.push(e.position),
    });
    await waitFor('next 5', () => second.length >= 5);
    await sleep(1_000);
    expect(second.sort((a, b) => a - b)).toEqual([11, 12, 13, 14, 15]);
    expect(sub2.caughtUpTo()).toBe(15);
  });

  it('two members of one consumer group share the partitions and each event is handled once', async () => {
    const byMember: number[][] = [[], []];
    for (const i of [0, 1]) {
      await transport().subscribe({
        consumer: 'group-test',
        categories: ['shared'],
        handle: async (e) => void byMember[i]!.push(e.position),
      });
    }
    await waitFor('group of two stable', () => groupIsStable('group-test', 2));
    const { groups } = await admin.describeGroups(['group-test']);
    expect(groups[0]!.members).toHaveLength(2);

    await publish(producer, 'shared', eventsFor('shared', 24, 120));
    await waitFor('120 events', () => byMember[0]!.length + byMember[1]!.length >= 120);
    await sleep(1_000);
    expect(byMember[0]!.length).toBeGreaterThan(0);
    expect(byMember[1]!.length).toBeGreaterThan(0);
    const all = [...byMember[0]!, ...byMember[1]!].sort((a, b) => a - b);
    expect(all).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
  });

  it('keeps its partitions through a handler longer than the session timeout (heartbeats while handling)', async () => {
    const handled: number[] = [];
    await transport({ sessionTimeoutMs: 6_000, heartbeatIntervalMs: 1_000 }).subscribe({
      consumer: 'slow-test',
      categories: ['slow'],
      handle: async (e) => {
        if (e.position === 1) await sleep(10_000);
        handled.push(e.position);
      },
    });
    await publish(producer, 'slow', eventsFor('slow', 1, 3));
    await waitFor('3 events', () => handled.length >= 3, 60_000);
    await sleep(2_000);
    // Without heartbeats the member is dropped after 6 s, its commit fails and event 1 comes again.
    expect(handled).toEqual([1, 2, 3]);
  });

  it('skips a message that fails validation and goes on with the next', async () => {
    const handled: number[] = [];
    const errors: string[] = [];
    await transport({ log: (level, msg) => void (level === 'error' && errors.push(msg)) }).subscribe({
      consumer: 'invalid-test',
      categories: ['invalid'],
      handle: async (e) => void handled.push(e.position),
    });
    const [good1, good2] = eventsFor('invalid', 1, 2);
    await producer.send({
      topic: TOPICS.events('invalid'),
      messages: [
        { key: good1!.streamId, value: JSON.stringify(good1) },
        { key: good1!.streamId, value: JSON.stringify({ ...good2, position: 'two' }) },
        { key: good1!.streamId, value: JSON.stringify({ ...good2, position: 3 }) },
      ],
    });
    await waitFor('2 valid events', () => handled.length >= 2);
    expect(handled).toEqual([1, 3]);
    // kafkajs may log its own transient errors on a fresh topic; only ours are counted.
    expect(errors.filter((m) => m.startsWith('Invalid message'))).toEqual([
      'Invalid message on upscale.invalid-events.v1: position: Expected number, received string',
    ]);
  });
});

describe('KafkaTransport request/reply', () => {
  it('answers a request through the requester’s reply topic', async () => {
    const responder = transport();
    await responder.reply<{ credits: number }, { reserved: number }>('upscale.test.reserve.v1', async (p) => ({ reserved: p.credits * 2 }));
    const requester = transport();
    const answers = await Promise.all(
      [1, 2, 3].map((credits) =>
        requester.request<{ credits: number }, { reserved: number }>('upscale.test.reserve.v1', { credits }, 20_000),
      ),
    );
    expect(answers).toEqual([{ reserved: 2 }, { reserved: 4 }, { reserved: 6 }]);
  });

  it('passes the responder’s error back with its code', async () => {
    const responder = transport();
    await responder.reply('upscale.test.fail.v1', async () => {
      throw Object.assign(new Error('balance too low'), { name: 'DomainError', code: 'insufficient_credits' });
    });
    const err = await transport()
      .request('upscale.test.fail.v1', {}, 20_000)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RemoteHandlerError);
    expect(err).toMatchObject({ remoteName: 'DomainError', message: 'balance too low', code: 'insufficient_credits' });
  });

  it('rejects with RequestTimeoutError when nobody replies in time', async () => {
    const requester = transport();
    await ensureTopics(admin, ['upscale.test.nobody.v1'], 6);
    const started = Date.now();
    const err = await requester.request('upscale.test.nobody.v1', { x: 1 }, 1_500).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect((err as RequestTimeoutError).message).toBe('No reply on upscale.test.nobody.v1 within 1500 ms');
    // The timeout counts from sending, after the reply channel is set up.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500);
  });
});

describe('KafkaTransport across a broker restart', () => {
  it('loses nothing when the broker stops and comes back while events flow; requests time out meanwhile', async () => {
    const handled: number[] = [];
    await transport().subscribe({ consumer: 'restart-test', categories: ['restart'], handle: async (e) => void handled.push(e.position) });
    const requester = transport();
    await requester.warmUpRequests();
    await publish(producer, 'restart', eventsFor('restart', 5, 20));
    await waitFor('first 20', () => new Set(handled).size >= 20);

    await requester.ping();
    await kafka.stop();
    await expect(requester.ping(1_000)).rejects.toThrow('Kafka ping took longer than 1000 ms');
    // With the broker away the caller still hears within its timeout (the api answers 503).
    const err = await requester.request('upscale.test.down.v1', {}, 2_000).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestTimeoutError);
    await kafka.start();
    await publish(producer, 'restart', eventsFor('restart', 5, 20, 21));
    await waitFor('all 40', () => new Set(handled).size >= 40, 120_000);
    expect([...new Set(handled)].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  });
});
