import type { StoredEvent } from '@upscaler/contracts';
import type { CheckpointStore, EventStore } from '@upscaler/eventstore';
import type { TransportLog } from '../kafka/kafka-options';
import type { EventSubscription, RunningSubscription } from '../transport.port';

export interface SubscriptionLoopOptions {
  batchSize: number;
  /** Fallback poll of the log when no wake-up arrives (e.g. a NOTIFY lost during a reconnect). */
  pollIntervalMs: number;
  /** Backoff between retries of a failing handler (or a failing read), doubling up to `maxMs`. */
  retry: { initialMs: number; maxMs: number };
  log: TransportLog;
}

/**
 * One durable consumer tailing the Postgres log (the embedded transport, docs/design.md §3):
 * load checkpoint -> read a batch after it (the subscription's categories) -> handle each event in
 * order -> save checkpoint -> wait for a wake-up (onAppended) or the poll interval -> repeat.
 *
 * A handler that throws is logged and retried with backoff; the event is never skipped (the
 * consumer stalls on it, as a Kafka partition would). Delivery is at least once: after a crash the
 * events since the last saved checkpoint come again (handlers are idempotent by contract).
 */
export class SubscriptionLoop implements RunningSubscription {
  /** Every event of the subscribed categories up to here has been handled. */
  private position: number;
  private saved: number;
  private stopping = false;
  /** Set by a wake-up that arrives while a pass runs, so the next wait returns at once. */
  private dirty = true;
  private wake: { finish: () => void; onAppend: boolean } | undefined;
  private readonly done: Promise<void>;
  private ended = false;
  private readonly unlisten: () => void;

  private constructor(
    private readonly store: EventStore,
    private readonly checkpoints: CheckpointStore,
    private readonly sub: EventSubscription,
    private readonly opts: SubscriptionLoopOptions,
    checkpoint: number,
  ) {
    this.position = checkpoint;
    this.saved = checkpoint;
    this.unlisten = store.onAppended((lastPosition) => {
      if (lastPosition <= this.position) return;
      this.dirty = true;
      if (this.wake?.onAppend) this.wake.finish();
    });
    this.done = this.run().finally(() => {
      this.ended = true;
    });
  }

  static async start(
    store: EventStore,
    checkpoints: CheckpointStore,
    sub: EventSubscription,
    opts: SubscriptionLoopOptions,
  ): Promise<SubscriptionLoop> {
    return new SubscriptionLoop(store, checkpoints, sub, opts, await checkpoints.load(sub.consumer));
  }

  caughtUpTo(): number {
    return this.position;
  }

  /** The loop retries failures itself; it is unhealthy only once ended without a stop. */
  health(): { ok: true } | { ok: false; reason: string } {
    return this.ended && !this.stopping ? { ok: false, reason: `${this.sub.consumer} stopped consuming` } : { ok: true };
  }

  /** Lets the event being handled finish, saves the checkpoint, and ends the loop. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.finish();
    await this.done;
    this.unlisten();
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      let more = false;
      try {
        more = await this.pass();
        failures = 0;
      } catch (err) {
        // The log or the checkpoint table is unreachable (database restarting): retry with backoff.
        this.opts.log('warn', `subscription ${this.sub.consumer}: reading the log failed: ${(err as Error).message}`);
        await this.sleep(this.backoff(failures++), false);
        continue;
      }
      if (!more) await this.idle();
    }
    await this.saveCheckpoint().catch((err: Error) =>
      this.opts.log('warn', `subscription ${this.sub.consumer}: saving the checkpoint at stop failed: ${err.message}`),
    );
  }

  /** One batch. Returns true when the batch was full (more may be waiting: no pause). */
  private async pass(): Promise<boolean> {
    this.dirty = false;
    // Read the head BEFORE the batch: positions become visible in commit order, so every event up
    // to `head` is visible to the read below. If the read returns less than a full batch, every
    // event of our categories up to `head` is in it, and we are caught up to `head` even when the
    // last events belong to other categories (what waitForCatchUp relies on).
    const head = await this.store.headPosition();
    const events = await this.store.readAll(this.position, this.opts.batchSize, { categories: this.sub.categories });
    for (const event of events) {
      // stop() lets the current event finish, then no further one starts.
      if (this.stopping || !(await this.handle(event))) return false;
      this.position = event.position;
    }
    const full = events.length === this.opts.batchSize;
    if (!full && head > this.position) this.position = head;
    await this.saveCheckpoint();
    return full;
  }

  /** True once handled; false when stop() was called while the handler kept failing. */
  private async handle(event: StoredEvent): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.sub.handle(event);
        return true;
      } catch (err) {
        const delay = this.backoff(attempt);
        this.opts.log(
          'error',
          `subscription ${this.sub.consumer}: handler failed on ${event.type} at position ${event.position}; retrying in ${delay} ms`,
          {
            consumer: this.sub.consumer,
            position: event.position,
            streamId: event.streamId,
            attempt: attempt + 1,
            error: (err as Error).stack ?? String(err),
          },
        );
        if (attempt === 0) await this.saveCheckpoint().catch(() => undefined);
        if (this.stopping) return false;
        await this.sleep(delay, false);
        if (this.stopping) return false;
      }
    }
  }

  private async saveCheckpoint(): Promise<void> {
    if (this.position === this.saved) return;
    const position = this.position;
    await this.checkpoints.save(this.sub.consumer, position);
    this.saved = position;
  }

  private backoff(attempt: number): number {
    return Math.min(this.opts.retry.initialMs * 2 ** attempt, this.opts.retry.maxMs);
  }

  private idle(): Promise<void> {
    if (this.dirty) return Promise.resolve();
    return this.sleep(this.opts.pollIntervalMs, true);
  }

  /** Sleeps, but wakes early on stop() and, when `onAppend`, on new events. */
  private sleep(ms: number, onAppend: boolean): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(finish, ms);
      timer.unref();
      this.wake = { finish, onAppend };
    });
  }
}
