/**
 * Writes a running job's progress at most once per `intervalMs`: the engine reports after every
 * tile (hundreds for a large image), the store needs a few values a second for a progress bar. The latest value
 * wins, one write is in flight at a time, and `close()` waits for it. A failed write is only logged: progress is a
 * hint, never a reason to fail the job.
 */
export class ProgressReporter {
  private latest: number | undefined;
  private lastWriteAt = -Infinity;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly write: (fraction: number) => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly onError: (err: unknown) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  update(fraction: number): void {
    if (this.closed) return;
    this.latest = fraction;
    this.schedule();
  }

  /** Stops writing; the write in flight (if any) finishes first. Values not yet written are dropped. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.inFlight;
  }

  private schedule(): void {
    if (this.timer || this.inFlight || this.closed) return;
    const wait = Math.max(0, this.lastWriteAt + this.intervalMs - this.now());
    this.timer = setTimeout(() => this.flush(), wait);
    this.timer.unref();
  }

  private flush(): void {
    this.timer = undefined;
    const value = this.latest;
    if (this.closed || value === undefined) return;
    this.latest = undefined;
    this.lastWriteAt = this.now();
    this.inFlight = this.write(value)
      .then(
        () => undefined,
        (err: unknown) => this.onError(err),
      )
      .finally(() => {
        this.inFlight = undefined;
        if (this.latest !== undefined) this.schedule();
      });
  }
}
