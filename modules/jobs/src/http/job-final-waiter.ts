import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { LogTail } from '@upscaler/http-api';

/** The events that end a job (spec 3): after one of them the job's view no longer changes. */
const FINAL_EVENTS = new Set(['JobSucceeded', 'JobFailed', 'JobCancelled']);

/**
 * `Prefer: wait` (docs/api.md, "Waiting instead of polling"): lets a request wait until its job reaches a final state (or, with
 * If-None-Match, until anything in its stream happens), or its time is up, without polling. The api already follows the event log (LogTail: this replica's appends at once, the others'
 * by NOTIFY or within 200 ms), and the job's read model is written in the transaction of its event, so when a
 * final event is read here the job's view is final too. A waiting request holds a timer and a callback, no query.
 */
@Injectable()
export class JobFinalWaiter implements OnModuleDestroy {
  private readonly waiting = new Map<string, Set<() => void>>();
  private readonly watching = new Map<string, Set<() => void>>();

  constructor(tail: LogTail) {
    tail.on('job', (e) => {
      const jobId = e.streamId.slice('job-'.length);
      this.release(this.watching, jobId);
      if (FINAL_EVENTS.has(e.type)) this.release(this.waiting, jobId);
    });
  }

  /**
   * `done` resolves when the job's final event is read, or after `ms` (whichever is first); it never rejects.
   * Register before reading the job's view, so that an end between the read and the wait is not missed; `cancel()`
   * (the view was final already) resolves it at once and frees its timer.
   */
  untilFinal(jobId: string, ms: number): { done: Promise<void>; cancel(): void } {
    return this.register(this.waiting, jobId, ms);
  }

  /** As `untilFinal`, released by any event of the job (started, lost, requeued, final): its status may have moved. */
  untilEvent(jobId: string, ms: number): { done: Promise<void>; cancel(): void } {
    return this.register(this.watching, jobId, ms);
  }

  private register(map: Map<string, Set<() => void>>, jobId: string, ms: number): { done: Promise<void>; cancel(): void } {
    let finish!: () => void;
    const done = new Promise<void>((resolve) => {
      const waiters = map.get(jobId) ?? new Set<() => void>();
      map.set(jobId, waiters);
      finish = () => {
        clearTimeout(timer);
        waiters.delete(finish);
        if (waiters.size === 0 && map.get(jobId) === waiters) map.delete(jobId);
        resolve();
      };
      const timer = setTimeout(finish, ms);
      waiters.add(finish);
    });
    return { done, cancel: finish };
  }

  /** Requests waiting now (for tests and the shutdown). */
  get size(): number {
    let n = 0;
    for (const map of [this.waiting, this.watching]) for (const w of map.values()) n += w.size;
    return n;
  }

  /** Shutting down: every waiting request answers with what it has. */
  onModuleDestroy(): void {
    for (const map of [this.waiting, this.watching]) for (const jobId of [...map.keys()]) this.release(map, jobId);
  }

  private release(map: Map<string, Set<() => void>>, jobId: string): void {
    for (const done of [...(map.get(jobId) ?? [])]) done();
  }
}
