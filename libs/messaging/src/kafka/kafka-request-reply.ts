import { randomUUID } from 'node:crypto';
import type { Admin, Consumer, Kafka, Producer } from 'kafkajs';
import { RequestTimeoutError } from '../transport.port';
import { parseJson } from './event-message.schema';
import type { TransportLog } from './kafka-options';
import {
  RemoteHandlerError,
  ReplyMessageSchema,
  RequestMessageSchema,
  type ReplyMessage,
  type RequestMessage,
} from './request-message.schema';
import { ensureTopics } from './topics';
import { withTimeout } from './with-timeout';

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
  topic: string;
}

/** Replies are only useful for seconds; an abandoned reply topic of a crashed instance empties itself. */
const REPLY_TOPIC_RETENTION_MS = String(60 * 60 * 1000);
const SETUP_TIMEOUT_MS = 60_000;

/**
 * Request/reply over Kafka (docs/design.md §2: billing's reserve before answering POST /upscale).
 * A request carries a correlation id and this instance's reply topic; responders form one group
 * per request topic, so each request is answered by one replica.
 */
export class KafkaRequestReply {
  readonly instanceId = randomUUID();
  readonly replyTopic = `upscale.replies.${this.instanceId}.v1`;
  private readonly pending = new Map<string, Pending>();
  private replyConsumer: Promise<Consumer> | null = null;
  private readonly responders: Consumer[] = [];
  private readonly requestTopics = new Set<string>();

  constructor(
    private readonly kafka: Kafka,
    private readonly producer: () => Promise<Producer>,
    private readonly admin: () => Promise<Admin>,
    private readonly partitions: number,
    private readonly log: TransportLog,
  ) {}

  async request<TReq, TRes>(topic: string, payload: TReq, timeoutMs: number): Promise<TRes> {
    // Setup (topic, consumer joining its group) is bounded on its own so the first request does
    // not spend its whole timeout on it.
    await withTimeout(this.ensureReplyConsumer(), SETUP_TIMEOUT_MS, 'reply consumer setup');
    const correlationId = randomUUID();
    const message: RequestMessage = { correlationId, replyTo: this.replyTopic, expiresAt: Date.now() + timeoutMs, payload };
    const answer = new Promise<TRes>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(correlationId);
        reject(new RequestTimeoutError(topic, timeoutMs));
      }, timeoutMs);
      this.pending.set(correlationId, { resolve: resolve as (v: unknown) => void, reject, timer, topic });
    });
    // Sending runs under the same timer: with the broker away, kafkajs would retry for a minute,
    // but the caller (POST /upscale answering 503) must hear within timeoutMs.
    void (async () => {
      await this.ensureRequestTopic(topic);
      const producer = await this.producer();
      await producer.send({ topic, acks: -1, messages: [{ key: correlationId, value: JSON.stringify(message) }] });
    })().catch((err: Error) => {
      const p = this.pending.get(correlationId);
      if (!p) return; // timed out already
      clearTimeout(p.timer);
      this.pending.delete(correlationId);
      p.reject(err);
    });
    return answer;
  }

  /** Sets up the reply channel now (call at start-up) so the first request does not wait for it. */
  async warmUp(): Promise<void> {
    await withTimeout(this.ensureReplyConsumer(), SETUP_TIMEOUT_MS, 'reply consumer setup');
  }

  async reply<TReq, TRes>(topic: string, handler: (payload: TReq) => Promise<TRes>): Promise<void> {
    await this.ensureRequestTopic(topic);
    const consumer = this.kafka.consumer({
      groupId: `${topic}.responders`,
      sessionTimeout: 30_000,
      heartbeatInterval: 3_000,
      retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 300, maxRetryTime: 5_000 },
    });
    this.responders.push(consumer);
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    const joined = waitForJoin(consumer);
    await consumer.run({
      partitionsConsumedConcurrently: this.partitions,
      eachMessage: async ({ message }) => {
        let request: RequestMessage;
        try {
          request = parseJson(topic, message.value, RequestMessageSchema);
        } catch (err) {
          this.log('error', (err as Error).message);
          return;
        }
        // The requester gave up already: acting now would only surprise it.
        if (request.expiresAt < Date.now()) return;
        let reply: ReplyMessage;
        try {
          const result = await handler(request.payload as TReq);
          reply = { correlationId: request.correlationId, ok: true, result: result ?? null };
        } catch (err) {
          const e = err as Error & { code?: unknown };
          reply = {
            correlationId: request.correlationId,
            ok: false,
            error: { name: e.name ?? 'Error', message: e.message ?? String(err), ...(typeof e.code === 'string' ? { code: e.code } : {}) },
          };
        }
        const producer = await this.producer();
        await producer.send({ topic: request.replyTo, acks: -1, messages: [{ key: request.correlationId, value: JSON.stringify(reply) }] });
      },
    });
    await withTimeout(joined, SETUP_TIMEOUT_MS, `responder group join on ${topic}`);
  }

  async close(): Promise<void> {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(new Error('transport closed'));
    }
    this.pending.clear();
    await Promise.all(this.responders.map((c) => c.disconnect().catch(() => undefined)));
    if (this.replyConsumer) {
      const consumer = await this.replyConsumer.catch(() => null);
      await consumer?.disconnect().catch(() => undefined);
      try {
        const admin = await this.admin();
        await admin.deleteGroups([`upscale.replies.${this.instanceId}`]).catch(() => undefined);
        await admin.deleteTopics({ topics: [this.replyTopic] }).catch(() => undefined);
      } catch {
        // Best effort: the topic's short retention cleans up after us anyway.
      }
    }
  }

  private ensureReplyConsumer(): Promise<Consumer> {
    this.replyConsumer ??= this.startReplyConsumer().catch((err) => {
      this.replyConsumer = null;
      throw err;
    });
    return this.replyConsumer;
  }

  private async startReplyConsumer(): Promise<Consumer> {
    await ensureTopics(await this.admin(), [this.replyTopic], 1, [{ name: 'retention.ms', value: REPLY_TOPIC_RETENTION_MS }]);
    const consumer = this.kafka.consumer({
      groupId: `upscale.replies.${this.instanceId}`,
      sessionTimeout: 30_000,
      heartbeatInterval: 3_000,
      retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 300, maxRetryTime: 5_000 },
    });
    await consumer.connect();
    await consumer.subscribe({ topics: [this.replyTopic], fromBeginning: true });
    const joined = waitForJoin(consumer);
    await consumer.run({
      eachMessage: async ({ message }) => {
        let reply: ReplyMessage;
        try {
          reply = parseJson(this.replyTopic, message.value, ReplyMessageSchema);
        } catch (err) {
          this.log('error', (err as Error).message);
          return;
        }
        const pending = this.pending.get(reply.correlationId);
        if (!pending) return; // timed out already, or a redelivery
        clearTimeout(pending.timer);
        this.pending.delete(reply.correlationId);
        if (reply.ok) pending.resolve(reply.result);
        else pending.reject(new RemoteHandlerError(pending.topic, reply.error.name, reply.error.message, reply.error.code));
      },
    });
    await joined;
    return consumer;
  }

  private async ensureRequestTopic(topic: string): Promise<void> {
    if (this.requestTopics.has(topic)) return;
    await ensureTopics(await this.admin(), [topic], this.partitions);
    this.requestTopics.add(topic);
  }
}

function waitForJoin(consumer: Consumer): Promise<void> {
  return new Promise((resolve) => {
    const remove = consumer.on(consumer.events.GROUP_JOIN, () => {
      remove();
      resolve();
    });
  });
}
