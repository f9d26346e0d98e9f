import type { StoredEvent } from '@upscaler/contracts';
import type { Producer } from 'kafkajs';
import { encodeEventMessage, TOPICS } from '@upscaler/messaging';

/** Shared by the Kafka integration suites: events as the relay would publish them, and polling. */
export function storedEvent(position: number, streamId: string, version: number): StoredEvent {
  return {
    position,
    streamId,
    version,
    type: 'TestHappened',
    data: { position },
    metadata: { producer: 'test' },
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, position)).toISOString(),
  };
}

/** `count` events spread round-robin over `streams` streams of one category, positions from `first`. */
export function eventsFor(category: string, streams: number, count: number, first = 1): StoredEvent[] {
  const versions = new Map<string, number>();
  const out: StoredEvent[] = [];
  for (let i = 0; i < count; i++) {
    const position = first + i;
    const streamId = `${category}-s${position % streams}`;
    const version = (versions.get(streamId) ?? 0) + 1;
    versions.set(streamId, version);
    out.push(storedEvent(position, streamId, version));
  }
  return out;
}

export async function publish(producer: Producer, category: string, events: StoredEvent[]): Promise<void> {
  await producer.send({
    topic: TOPICS.events(category),
    acks: -1,
    messages: events.map((e) => ({ key: e.streamId, value: encodeEventMessage(e) })),
  });
}

export async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Versions seen per stream, in arrival order. */
export function versionsByStream(events: StoredEvent[]): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const e of events) (out[e.streamId] ??= []).push(e.version);
  return out;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
