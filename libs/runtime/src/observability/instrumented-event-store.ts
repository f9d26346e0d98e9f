import type { NewEvent, StoredEvent } from '@upscaler/contracts';
import type { AppendOptions, AppendResult, EventStore, ExpectedVersion } from '@upscaler/eventstore';
import type { Metrics } from './metrics';

/** What a capability counts in what is appended (its `metrics`, libs/runtime/src/capability.ts). */
export type EventMeter = (event: StoredEvent) => void;

/**
 * Counts what this process appends: the one place every business fact passes, so each capability's meters (credits,
 * job outcomes, webhook outcomes) count each fact exactly once, whichever service decided it.
 */
export class InstrumentedEventStore implements EventStore {
  constructor(
    private readonly inner: EventStore,
    private readonly metrics: Metrics,
    private readonly meters: readonly EventMeter[] = [],
  ) {}

  async append(streamId: string, expected: ExpectedVersion, events: NewEvent[], opts?: AppendOptions): Promise<AppendResult> {
    const result = await this.inner.append(streamId, expected, events, opts);
    for (const e of result.events) this.count(e);
    return result;
  }

  readStream(streamId: string, afterVersion?: number): Promise<StoredEvent[]> {
    return this.inner.readStream(streamId, afterVersion);
  }
  readAll(after: number, limit: number, filter?: { categories?: string[]; types?: string[] }): Promise<StoredEvent[]> {
    return this.inner.readAll(after, limit, filter);
  }
  headPosition(): Promise<number> {
    return this.inner.headPosition();
  }
  onAppended(listener: (lastPosition: number) => void): () => void {
    return this.inner.onAppended(listener);
  }
  async close(): Promise<void> {
    await (this.inner as { close?: () => Promise<void> }).close?.();
  }

  private count(e: StoredEvent): void {
    this.metrics.eventsAppended.inc({ type: e.type });
    for (const meter of this.meters) meter(e);
  }
}
