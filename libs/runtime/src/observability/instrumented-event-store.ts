import type { NewEvent, StoredEvent } from '@upscaler/contracts';
import type { AppendOptions, AppendResult, EventStore, ExpectedVersion } from '@upscaler/eventstore';
import type { Metrics } from './metrics';

/**
 * Counts what this process appends: the one place every business fact passes, so credits, job
 * outcomes and webhook outcomes are counted exactly once, whichever service decided them.
 */
export class InstrumentedEventStore implements EventStore {
  constructor(
    private readonly inner: EventStore,
    private readonly metrics: Metrics,
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
    const m = this.metrics;
    m.eventsAppended.inc({ type: e.type });
    const d = e.data as { amount?: number; credits?: number; reason?: string; outcome?: string };
    switch (e.type) {
      case 'CreditsReserved':
        m.credits.inc({ kind: 'reserved', reason: '' }, d.amount ?? 0);
        break;
      case 'CreditsCharged':
        m.credits.inc({ kind: 'charged', reason: '' }, d.amount ?? 0);
        break;
      case 'CreditsRefunded':
        m.credits.inc({ kind: 'refunded', reason: d.reason ?? '' }, d.amount ?? 0);
        break;
      // A job's final event is its settlement (docs/design.md §2): the charge or the refund of its credits.
      case 'JobSucceeded':
        m.jobsFinished.inc({ status: 'succeeded' });
        m.credits.inc({ kind: 'charged', reason: '' }, d.credits ?? 0);
        break;
      case 'JobFailed':
        m.jobsFinished.inc({ status: 'failed' });
        m.credits.inc({ kind: 'refunded', reason: 'failed' }, d.credits ?? 0);
        break;
      case 'JobCancelled':
        m.jobsFinished.inc({ status: 'cancelled' });
        m.credits.inc({ kind: 'refunded', reason: 'cancelled' }, d.credits ?? 0);
        break;
      case 'DeliveryAttempted':
        m.webhookDeliveries.inc({ outcome: d.outcome ?? 'unknown' });
        break;
    }
  }
}
