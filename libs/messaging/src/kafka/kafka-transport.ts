import type { Admin, Kafka, Producer } from 'kafkajs';
import { type EventSubscription, type EventTransport, type RunningSubscription, TOPICS } from '../transport.port';
import { createKafka, DEFAULT_PARTITIONS, defaultLog, type KafkaConnectionOptions, type TransportLog } from './kafka-options';
import { KafkaRequestReply } from './kafka-request-reply';
import { LazyConnection } from './lazy-connection';
import { startKafkaSubscription, type ConsumerTuning } from './kafka-subscription';
import { ensureTopics } from './topics';
import { withTimeout } from './with-timeout';

export interface KafkaTransportOptions extends KafkaConnectionOptions, ConsumerTuning {
  kafka?: Kafka;
}

/**
 * The distributed transport (docs/design.md §3): events arrive from the topics the EventRelay fills,
 * questions go over request/reply topics. Runs next to an `EventRelay` somewhere in the system.
 */
export class KafkaTransport implements EventTransport {
  private readonly kafka: Kafka;
  private readonly log: TransportLog;
  private readonly partitions: number;
  private readonly subscriptions: RunningSubscription[] = [];
  private readonly requestReply: KafkaRequestReply;
  private readonly producer: LazyConnection<Producer>;
  private readonly admin: LazyConnection<Admin>;

  constructor(private readonly opts: KafkaTransportOptions) {
    this.kafka = opts.kafka ?? createKafka(opts);
    this.log = opts.log ?? defaultLog;
    this.partitions = opts.partitions ?? DEFAULT_PARTITIONS;
    this.producer = new LazyConnection(() => this.kafka.producer({ idempotent: true, maxInFlightRequests: 1 }));
    this.admin = new LazyConnection(() => this.kafka.admin());
    this.requestReply = new KafkaRequestReply(
      this.kafka,
      () => this.producer.get(),
      () => this.admin.get(),
      this.partitions,
      this.log,
    );
  }

  /** This instance's reply topic (`upscale.replies.<uuid>.v1`). */
  get replyTopic(): string {
    return this.requestReply.replyTopic;
  }

  async subscribe(sub: EventSubscription): Promise<RunningSubscription> {
    await ensureTopics(
      await this.admin.get(),
      sub.categories.map((c) => TOPICS.events(c)),
      this.partitions,
    );
    const running = await startKafkaSubscription(this.kafka, sub, this.opts, this.log);
    this.subscriptions.push(running);
    return running;
  }

  /**
   * Creates this instance's reply topic and joins its consumer group. Optional: the first
   * `request` does it otherwise, outside its timeout (a group join can take seconds).
   */
  warmUpRequests(): Promise<void> {
    return this.requestReply.warmUp();
  }

  request<TReq, TRes>(topic: string, payload: TReq, timeoutMs: number): Promise<TRes> {
    return this.requestReply.request<TReq, TRes>(topic, payload, timeoutMs);
  }

  reply<TReq, TRes>(topic: string, handler: (payload: TReq) => Promise<TRes>): Promise<void> {
    return this.requestReply.reply(topic, handler);
  }

  /** Health probe: resolves when a broker answers a metadata request (bounded: kafkajs would retry for a minute). */
  async ping(timeoutMs = 5_000): Promise<void> {
    await withTimeout(
      (async () => {
        await (await this.admin.get()).describeCluster();
      })(),
      timeoutMs,
      'Kafka ping',
    );
  }

  async close(): Promise<void> {
    await Promise.all(this.subscriptions.map((s) => s.stop().catch(() => undefined)));
    await this.requestReply.close();
    await Promise.all([this.producer.close(), this.admin.close()]);
  }
}
