import type { Logger } from '@upscaler/config';

/**
 * A background pass run again and again (the sweepers: leases, reservations, file retention). Each pass starts a
 * delay after the previous one ended, so passes never overlap however long one takes: the delay the pass returned
 * (the lease sweeper wakes sooner for a backoff about to end), else `intervalMs()`. A failed pass is logged and the
 * schedule goes on. The timer never keeps the process alive; `stop` ends the schedule (a pass already running
 * finishes, and may read `stopped` to return early). Our own rather than a scheduler library's: interval and cron
 * schedulers start passes on the clock, which overlaps a slow pass, and cannot take a delay from the pass.
 */
export class RepeatingTask {
  private timer: NodeJS.Timeout | undefined;
  private stoppedFlag = false;

  constructor(
    private readonly what: string,
    private readonly pass: () => Promise<number | void>,
    private readonly intervalMs: () => number,
    private readonly logger: Logger,
  ) {}

  get stopped(): boolean {
    return this.stoppedFlag;
  }

  /** The first pass runs `firstDelayMs` from now (default: intervalMs()). */
  start(firstDelayMs = this.intervalMs()): void {
    this.schedule(firstDelayMs);
  }

  stop(): void {
    this.stoppedFlag = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule(ms: number): void {
    if (this.stoppedFlag) return;
    this.timer = setTimeout(() => {
      this.pass().then(
        (next) => this.schedule(typeof next === 'number' ? next : this.intervalMs()),
        (err: unknown) => {
          this.logger.error({ err }, `${this.what} failed`);
          this.schedule(this.intervalMs());
        },
      );
    }, ms);
    this.timer.unref();
  }
}
