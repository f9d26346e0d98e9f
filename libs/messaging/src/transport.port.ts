import type { StoredEvent } from '@upscaler/contracts';

/**
 * How services hear about the log and ask each other questions (docs/design.md §2-3). Two implementations:
 * in-process (tails the Postgres log directly) and Kafka (relay publishes the log to versioned topics).
 * Handlers must be idempotent: an event may be delivered more than once.
 */
export interface EventSubscription {
  /** Durable consumer name (checkpoint / consumer group id). */
  consumer: string;
  /** Stream categories to receive (`job`, `account`, `webhook`, `delivery`, …). */
  categories: string[];
  handle(event: StoredEvent): Promise<void>;
}

export interface RunningSubscription {
  stop(): Promise<void>;
  /**
   * In-process: position up to which every event was handled (read-your-writes waits on it).
   * Kafka: highest position whose handler returned and whose offset commit was acknowledged;
   * partitions run independently, so lower positions on other partitions may still be pending.
   */
  caughtUpTo(): number;
  /** Whether the subscription still consumes (for readiness); `reason` says why not. */
  health(): { ok: true } | { ok: false; reason: string };
}

export interface EventTransport {
  subscribe(sub: EventSubscription): Promise<RunningSubscription>;
  /** Request/reply with a timeout; rejects with `RequestTimeoutError` when nobody answers in time. */
  request<TReq, TRes>(topic: string, payload: TReq, timeoutMs: number): Promise<TRes>;
  reply<TReq, TRes>(topic: string, handler: (payload: TReq) => Promise<TRes>): Promise<void>;
  close(): Promise<void>;
}

export class RequestTimeoutError extends Error {
  constructor(
    readonly topic: string,
    readonly timeoutMs: number,
  ) {
    super(`No reply on ${topic} within ${timeoutMs} ms`);
    this.name = 'RequestTimeoutError';
  }
}

/** Versioned topic names (amplication style): one per stream category, plus request/reply topics. */
export const TOPICS = {
  events: (category: string) => `upscale.${category}-events.v1`,
  billingReserve: 'upscale.billing.reserve.v1',
  billingRelease: 'upscale.billing.release.v1',
  billingAccounts: 'upscale.billing.accounts.v1',
} as const;
