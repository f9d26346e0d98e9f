import type { PgNotificationListener } from '@upscaler/eventstore';
import { parseProgressMessage } from './channel';
import type { WorkQueueRepository } from './work-queue.repository';

/** What JobProgress reports trouble to (the service's logger fits). */
export interface JobProgressLog {
  warn(obj: object, msg: string): void;
}

/**
 * The latest progress of every running job, as one process sees it: fed by the processors'
 * `upscale_progress` notifications on a dedicated LISTEN connection, caught up from `work_queue` after every
 * (re)connect (notifications sent while disconnected are lost), and reconciled with it every `reconcileMs`, which
 * also forgets jobs that ended (their rows are gone). Reading is a map lookup: the hot path never waits on it.
 */
export class JobProgress {
  private latest = new Map<string, number>();
  private listener: PgNotificationListener | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Values heard while a reconcile's query runs: newer than its snapshot, so they win. */
  private heardDuringReconcile: Map<string, number> | undefined;

  constructor(
    private readonly queue: Pick<WorkQueueRepository, 'listenProgress' | 'runningProgress'>,
    private readonly log: JobProgressLog,
    private readonly reconcileMs = 30_000,
  ) {}

  start(): void {
    this.listener = this.queue.listenProgress({
      onNotification: (payload) => {
        const m = parseProgressMessage(payload);
        if (!m) return;
        this.latest.set(m.jobId, m.fraction);
        this.heardDuringReconcile?.set(m.jobId, m.fraction);
      },
      onConnected: () => void this.reconcile(),
      onError: (err) => this.log.warn({ err }, 'job progress LISTEN connection lost; reconnecting'),
    });
    this.listener.start();
    this.timer = setInterval(() => void this.reconcile(), this.reconcileMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.listener?.stop();
    this.listener = undefined;
  }

  /** The share of the job's tiles done (0..1) while it runs; undefined when none was reported. */
  of(jobId: string): number | undefined {
    return this.latest.get(jobId);
  }

  /** Replaces what is known with the table's view, keeping values heard while the query ran. */
  async reconcile(): Promise<void> {
    if (this.heardDuringReconcile) return; // one at a time
    const heard = (this.heardDuringReconcile = new Map());
    try {
      const running = await this.queue.runningProgress();
      for (const [jobId, fraction] of heard) running.set(jobId, fraction);
      this.latest = running;
    } catch (err) {
      this.log.warn({ err }, 'job progress catch-up failed; keeping what was heard');
    } finally {
      this.heardDuringReconcile = undefined;
    }
  }
}
