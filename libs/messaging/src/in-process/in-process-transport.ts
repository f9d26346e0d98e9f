import type { CheckpointStore, EventStore } from '@upscaler/eventstore';
import type { TransportLog } from '../kafka/kafka-options';
import type { EventSubscription, EventTransport, RunningSubscription } from '../transport.port';
import { InProcessRequestReply } from './request-reply';
import { SubscriptionLoop } from './subscription-loop';

export interface InProcessTransportOptions {
  store: EventStore;
  checkpoints: CheckpointStore;
  /** Events read per pass. Default 100. */
  batchSize?: number;
  /** Fallback poll when no wake-up arrives. Default 1000 ms. */
  pollIntervalMs?: number;
  /** Backoff of a failing handler: doubles from `initialMs` (default 100) up to `maxMs` (default 5000). */
  retry?: { initialMs?: number; maxMs?: number };
  log?: TransportLog;
}

const defaultLog: TransportLog = (level, message, extra) => {
  if (level === 'info') return;
  console[level](`[in-process] ${message}`, extra ?? '');
};

/**
 * The embedded transport (docs/design.md §3): subscribers tail the same Postgres log the services append to
 * (no relay, no broker), request/reply is a function call behind the same wire semantics as Kafka.
 */
export class InProcessTransport implements EventTransport {
  private readonly subscriptions = new Map<string, SubscriptionLoop>();
  private readonly requests = new InProcessRequestReply();
  private closed = false;

  constructor(private readonly opts: InProcessTransportOptions) {}

  async subscribe(sub: EventSubscription): Promise<RunningSubscription> {
    if (this.closed) throw new Error('transport closed');
    // One loop per consumer name: two would race on one checkpoint.
    if (this.subscriptions.has(sub.consumer)) throw new Error(`consumer ${sub.consumer} is already subscribed`);
    const loop = await SubscriptionLoop.start(this.opts.store, this.opts.checkpoints, sub, {
      batchSize: this.opts.batchSize ?? 100,
      pollIntervalMs: this.opts.pollIntervalMs ?? 1_000,
      retry: { initialMs: this.opts.retry?.initialMs ?? 100, maxMs: this.opts.retry?.maxMs ?? 5_000 },
      log: this.opts.log ?? defaultLog,
    });
    this.subscriptions.set(sub.consumer, loop);
    return {
      caughtUpTo: () => loop.caughtUpTo(),
      health: () => loop.health(),
      stop: async () => {
        await loop.stop();
        if (this.subscriptions.get(sub.consumer) === loop) this.subscriptions.delete(sub.consumer);
      },
    };
  }

  request<TReq, TRes>(topic: string, payload: TReq, timeoutMs: number): Promise<TRes> {
    if (this.closed) return Promise.reject(new Error('transport closed'));
    return this.requests.request<TReq, TRes>(topic, payload, timeoutMs);
  }

  async reply<TReq, TRes>(topic: string, handler: (payload: TReq) => Promise<TRes>): Promise<void> {
    this.requests.reply(topic, handler as (payload: unknown) => Promise<unknown>);
  }

  /** Stops answering `topic`, e.g. to simulate billing being down in a test. */
  removeReply(topic: string): void {
    this.requests.removeReply(topic);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.requests.close();
    const loops = [...this.subscriptions.values()];
    this.subscriptions.clear();
    await Promise.all(loops.map((l) => l.stop()));
  }
}
