import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { StoredEvent } from '@upscaler/contracts';
import type { EventStore } from '@upscaler/eventstore';
import type { Logger } from '@upscaler/config';
import { EVENT_STORE, LOGGER } from '@upscaler/runtime';

/** How often the log is read when no append was announced (appends of this process and NOTIFY wake it sooner). */
export const TAIL_EVERY_MS = 200;
/**
 * How long what was read stays trusted: past it (Postgres away, the event loop stalled) the caches answer
 * nothing, and every read goes to Postgres again. A change committed on any replica is seen within this time.
 */
export const TRUST_MS = 750;
/** Reads that follow each other (a burst of appends) leave this gap, so that a busy log costs at most 200 reads a second. */
const GAP_MS = 5;
const PAGE = 500;

/**
 * The api's view of the event log, for the read models it caches in memory (API keys, job views). Every change of
 * a key or a job is an event of its stream, and positions become visible in commit order (libs/eventstore), so
 * reading the cached categories' new events tells exactly which entries to drop: one indexed query per read,
 * whatever the number of keys, jobs or requests. Reads happen when this process appends (at once), when another
 * one does (NOTIFY) and every TAIL_EVERY_MS.
 *
 * `fresh()` is what lets a cache answer: every append announced so far has been read (so a request that follows
 * a write on this replica, a revoke or a cancel, never sees what was before it) and the last read began at most
 * TRUST_MS ago (so a change on another replica is seen within that, even when its NOTIFY is lost).
 */
@Injectable()
export class LogTail implements OnModuleInit, OnModuleDestroy {
  /** Every event up to this position has been read (undefined: not read yet). */
  private position: number | undefined;
  /** The highest position announced to this process (its own appends, NOTIFY). */
  private announced = 0;
  /** When the last successful read began (ms). */
  private readAt = 0;
  private readonly handlers = new Map<string, Array<(e: StoredEvent) => void>>();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private reading = false;
  private again = false;
  private lastError = 0;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Calls `handler` with every new event of `category` (streams `<category>-<id>`), in log order. */
  on(category: string, handler: (e: StoredEvent) => void): void {
    this.handlers.set(category, [...(this.handlers.get(category) ?? []), handler]);
  }

  /** Whether the caches may answer now (see the class comment). */
  fresh(): boolean {
    return this.position !== undefined && this.position >= this.announced && Date.now() - this.readAt <= TRUST_MS;
  }

  /** Whether the log is being followed: a value loaded from now on is dropped by any later change of it. */
  following(): boolean {
    return this.position !== undefined;
  }

  onModuleInit(): void {
    this.unsubscribe = this.store.onAppended((position) => {
      this.announced = Math.max(this.announced, position);
      this.wake();
    });
    this.timer = setInterval(() => this.wake(), TAIL_EVERY_MS);
    this.timer.unref();
    this.wake();
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private wake(): void {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    void this.read().finally(() => {
      this.reading = false;
      if (this.again && this.timer) {
        this.again = false;
        setTimeout(() => this.wake(), GAP_MS).unref();
      }
    });
  }

  private async read(): Promise<void> {
    const startedAt = Date.now();
    // every position announced by now is committed, and positions become visible in commit order
    const upTo = this.announced;
    try {
      let position = this.position ?? (await this.store.headPosition());
      if (this.position !== undefined) {
        for (;;) {
          const events = await this.store.readAll(position, PAGE, { categories: [...this.handlers.keys()] });
          for (const e of events) {
            for (const h of this.handlers.get(e.streamId.slice(0, e.streamId.indexOf('-'))) ?? []) h(e);
          }
          if (events.length > 0) position = events[events.length - 1].position;
          if (events.length < PAGE) break;
        }
      }
      this.position = Math.max(position, upTo);
      this.readAt = startedAt;
    } catch (err) {
      if (startedAt - this.lastError >= 60_000) {
        this.lastError = startedAt;
        this.logger.warn({ err }, 'the event log could not be read; cached keys and jobs are read from Postgres until it can');
      }
    }
  }
}
