import type { StoredEvent } from '@upscaler/contracts';
import type { EventStore } from '@upscaler/eventstore';
import type { ClientConfig } from 'pg';
import type { Admin, Kafka, Producer } from 'kafkajs';
import { SpanStatusCode } from '@opentelemetry/api';
import { startProducerSpan, untraced } from '@upscaler/tracing';
import { TOPICS } from '../transport.port';
import { AdvisoryLock } from './advisory-lock';
import { encodeEventMessage } from './event-message.schema';
import {
  createKafka,
  DEFAULT_PARTITIONS,
  defaultLog,
  KNOWN_CATEGORIES,
  type KafkaConnectionOptions,
  type TransportLog,
} from './kafka-options';
import { ensureTopics } from './topics';

/**
 * Same rule as contracts' `categoryOf` (the stream id up to its first '-'); kept here so the relay
 * loads no runtime code from contracts (its `uuid` import is ESM-only, which jest cannot load).
 */
function categoryOf(streamId: string): string {
  return streamId.slice(0, streamId.indexOf('-'));
}

/** Where the relay remembers how far it published (the CheckpointStore of libs/eventstore fits). */
export interface RelayCheckpoints {
  load(name: string): Promise<number>;
  save(name: string, position: number): Promise<void>;
}

export interface EventRelayOptions extends KafkaConnectionOptions {
  store: EventStore;
  checkpoints: RelayCheckpoints;
  /** A dedicated Postgres connection for the advisory lock (DATABASE_URL). */
  lockConnection: string | ClientConfig;
  /** Checkpoint and lock name; replicas of one relay share it. */
  name?: string;
  batchSize?: number;
  /** How often a standby replica tries the lock, and the fallback poll of the log. */
  pollIntervalMs?: number;
  kafka?: Kafka;
  /** How long `stop()` waits for a batch in flight (default 10 s). */
  stopGraceMs?: number;
}

export interface RelayStatus {
  active: boolean;
  /** Highest position acknowledged by the broker and checkpointed. */
  publishedUpTo: number;
}

/**
 * Publishes the Postgres log to Kafka (docs/design.md §2): every event, in position order, to
 * `upscale.<category>-events.v1` with key = stream id (so one stream stays in one partition, in
 * order), at least once. The checkpoint moves only after the broker acknowledged (acks = all,
 * idempotent producer, one request in flight, so retries cannot reorder). Several replicas may
 * run: a Postgres advisory lock lets exactly one publish, the others stand by and take over when
 * its session ends.
 */
export class EventRelay {
  private readonly kafka: Kafka;
  private readonly log: TransportLog;
  private readonly name: string;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly partitions: number;
  private readonly lock: AdvisoryLock;
  private readonly knownTopics = new Set<string>();
  private producer: Producer | null = null;
  private admin: Admin | null = null;
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private unsubscribe: (() => void) | null = null;
  private status: RelayStatus = { active: false, publishedUpTo: 0 };

  constructor(private readonly opts: EventRelayOptions) {
    this.kafka = opts.kafka ?? createKafka({ ...opts, clientId: opts.clientId ?? 'upscaler-relay' });
    this.log = opts.log ?? defaultLog;
    this.name = opts.name ?? 'kafka-relay';
    this.batchSize = opts.batchSize ?? 500;
    this.pollIntervalMs = opts.pollIntervalMs ?? 1_000;
    this.partitions = opts.partitions ?? DEFAULT_PARTITIONS;
    this.lock = new AdvisoryLock(opts.lockConnection, `upscaler.${this.name}`);
  }

  /** Creates the known topics, then runs in the background (active or standby) until `stop()`. */
  async start(): Promise<void> {
    if (this.running) return;
    this.admin = this.kafka.admin();
    await this.admin.connect();
    const topics = KNOWN_CATEGORIES.map((c) => TOPICS.events(c));
    await ensureTopics(this.admin, topics, this.partitions);
    topics.forEach((t) => this.knownTopics.add(t));
    this.producer = this.kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await this.producer.connect();
    this.running = true;
    this.unsubscribe = this.opts.store.onAppended(() => this.wakeUp());
    this.loop = this.run();
  }

  getStatus(): RelayStatus {
    return { ...this.status };
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.unsubscribe?.();
    this.wakeUp();
    // A send to an absent broker retries for up to a minute; shutdown should not wait that long.
    // The checkpoint was not moved for that batch, so whoever runs next publishes it again.
    await Promise.race([this.loop, new Promise((r) => setTimeout(r, this.opts.stopGraceMs ?? 10_000).unref())]);
    await this.lock.release();
    this.status.active = false;
    await this.producer?.disconnect().catch(() => undefined);
    await this.admin?.disconnect().catch(() => undefined);
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        if (!(await this.lock.tryAcquire())) {
          this.status.active = false;
          await this.sleep(this.pollIntervalMs);
          continue;
        }
        if (!this.status.active) {
          this.status.active = true;
          this.status.publishedUpTo = await this.opts.checkpoints.load(this.name);
          this.log('info', `relay ${this.name} active from position ${this.status.publishedUpTo}`);
        }
        const published = await this.publishBatch();
        if (published === 0) await this.sleep(this.pollIntervalMs);
      } catch (err) {
        // Broker or database away: keep the checkpoint, re-read from it and try again shortly.
        this.log('warn', `relay ${this.name}: ${(err as Error).message}; retrying`);
        if (!(await this.lock.verify())) this.status.active = false;
        await this.sleep(this.pollIntervalMs);
      }
    }
  }

  /** Publishes the next batch after the checkpoint; returns how many events went out. */
  private async publishBatch(): Promise<number> {
    const from = this.status.publishedUpTo;
    const events = await this.opts.store.readAll(from, this.batchSize);
    if (events.length === 0) return 0;
    await this.ensureTopicsFor(events);
    // The lock could have been lost while reading (connection dropped): then another replica may
    // already publish, and we must not interleave with it.
    if (!(await this.lock.verify())) {
      this.status.active = false;
      return 0;
    }
    // Each event is published in the trace of the request that made it: a PRODUCER span per event, child of the
    // context in its metadata, whose W3C headers ride along so that Kafka-aware tooling (and the consumers'
    // kafkajs instrumentation) sees the trace. The batch itself is sent untraced: the instrumentation would make
    // every message a child of this loop and overwrite its traceparent.
    const byTopic = new Map<string, Array<{ event: StoredEvent; trace: ReturnType<typeof startProducerSpan> }>>();
    for (const event of events) {
      const topic = TOPICS.events(categoryOf(event.streamId));
      const trace = startProducerSpan(
        `send ${topic}`,
        {
          'messaging.system': 'kafka',
          'messaging.operation.type': 'send',
          'messaging.operation.name': 'send',
          'messaging.destination.name': topic,
          'messaging.kafka.message.key': event.streamId,
          'upscaler.event_type': event.type,
          'upscaler.event_position': event.position,
        },
        event.metadata,
      );
      const list = byTopic.get(topic) ?? [];
      list.push({ event, trace });
      byTopic.set(topic, list);
    }
    const spans = [...byTopic.values()].flatMap((list) => list.flatMap(({ trace }) => (trace.span ? [trace.span] : [])));
    try {
      await untraced(() =>
        this.producer!.sendBatch({
          acks: -1,
          topicMessages: [...byTopic].map(([topic, list]) => ({
            topic,
            messages: list.map(({ event, trace }) => ({
              key: event.streamId,
              value: encodeEventMessage(event),
              headers: { 'event-type': event.type, position: String(event.position), ...trace.headers },
            })),
          })),
        }),
      );
    } catch (err) {
      for (const span of spans) span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      for (const span of spans) span.end();
    }
    const last = events[events.length - 1]!.position;
    // Lost the lock during the send (session cut, or stop() gave up waiting and released it):
    // another replica owns the checkpoint now, and writing ours could move it back. The batch went
    // out anyway; a repeat is harmless. A graceful stop still holds the lock here and saves.
    if (!(await this.lock.verify())) {
      this.status.active = false;
      return events.length;
    }
    await this.opts.checkpoints.save(this.name, last);
    this.status.publishedUpTo = last;
    return events.length;
  }

  private async ensureTopicsFor(events: StoredEvent[]): Promise<void> {
    const needed = [...new Set(events.map((e) => TOPICS.events(categoryOf(e.streamId))))].filter((t) => !this.knownTopics.has(t));
    if (needed.length === 0) return;
    await ensureTopics(this.admin!, needed, this.partitions);
    needed.forEach((t) => this.knownTopics.add(t));
  }

  private wakeUp(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private sleep(ms: number): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
