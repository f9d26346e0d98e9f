import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import { type EventSubscription, type RunningSubscription, TOPICS } from '../transport.port';
import { decodeEventMessage, InvalidMessageError } from './event-message.schema';
import type { TransportLog } from './kafka-options';

export interface ConsumerTuning {
  /** The broker drops a member that sent no heartbeat for this long (default 30 s). */
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  /** How long the group waits for members to rejoin during a rebalance; a handler may be mid-job. */
  rebalanceTimeoutMs?: number;
  /** Partitions handled at once by one member; order inside a partition is kept either way. */
  partitionsConsumedConcurrently?: number;
}

/**
 * One consumer group member (group id = `sub.consumer`) over the topics of the subscribed
 * categories. Messages of a partition are handled one after another; the offset is committed only
 * after the handler resolved, so a crash redelivers (handlers are idempotent by contract).
 */
export async function startKafkaSubscription(
  kafka: Kafka,
  sub: EventSubscription,
  tuning: ConsumerTuning,
  log: TransportLog,
): Promise<RunningSubscription> {
  const consumer: Consumer = kafka.consumer({
    groupId: sub.consumer,
    sessionTimeout: tuning.sessionTimeoutMs ?? 30_000,
    heartbeatInterval: tuning.heartbeatIntervalMs ?? 3_000,
    rebalanceTimeout: tuning.rebalanceTimeoutMs ?? 120_000,
    retry: { retries: Number.MAX_SAFE_INTEGER, initialRetryTime: 300, maxRetryTime: 5_000 },
  });
  let highest = 0;
  let stopping = false;
  // A crash kafkajs restarts by itself (retriable errors) keeps the member; one it does not restart, or
  // a disconnect nobody asked for, leaves the service without this consumer: readiness says so.
  let down: string | null = null;
  consumer.on(consumer.events.CRASH, (e) => {
    if (!e.payload.restart) down = `consumer ${sub.consumer} crashed: ${e.payload.error.message}`;
  });
  consumer.on(consumer.events.GROUP_JOIN, () => {
    down = null;
  });
  consumer.on(consumer.events.DISCONNECT, () => {
    if (!stopping) down = `consumer ${sub.consumer} disconnected`;
  });
  await consumer.connect();
  await consumer.subscribe({ topics: sub.categories.map((c) => TOPICS.events(c)), fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: tuning.partitionsConsumedConcurrently ?? 1,
    eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload) => {
      for (const message of batch.messages) {
        if (!isRunning() || isStale()) return;
        let event;
        try {
          event = decodeEventMessage(batch.topic, message.value);
        } catch (err) {
          if (!(err instanceof InvalidMessageError)) throw err;
          // It can never succeed: log it and move on instead of blocking the partition forever.
          log('error', err.message, { topic: batch.topic, partition: batch.partition, offset: message.offset });
          event = null;
        }
        if (event) await withHeartbeat(() => sub.handle(event), heartbeat, tuning.heartbeatIntervalMs ?? 3_000);
        resolveOffset(message.offset);
        await consumer.commitOffsets([
          { topic: batch.topic, partition: batch.partition, offset: (BigInt(message.offset) + 1n).toString() },
        ]);
        if (event && event.position > highest) highest = event.position;
      }
    },
  });
  return {
    caughtUpTo: () => highest,
    health: () => (down ? { ok: false, reason: down } : { ok: true }),
    stop: () => {
      stopping = true;
      return consumer.disconnect();
    },
  };
}

/** Keeps the group membership alive while a long handler (a whole upscaling job) runs. */
async function withHeartbeat<T>(fn: () => Promise<T>, heartbeat: () => Promise<void>, intervalMs: number): Promise<T> {
  const timer = setInterval(() => {
    heartbeat().catch(() => undefined);
  }, intervalMs);
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}
