import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { PgNotificationListener, pgConfigOf } from '@upscaler/eventstore';
import { RUNTIME, type Runtime } from '@upscaler/runtime';
import { inSpan } from '@upscaler/tracing';
import { stoppedJobOf, WORK_CHANNEL } from '@upscaler/work-queue';
import { JobRunner } from './job.runner';

/** Without a notification, look for work this often anyway (a NOTIFY lost while reconnecting). */
const POLL_MS = 1_000;
/** Readiness fails when the loop has not completed a claim for this long (database away, loop dead). */
const STALE_MS = 15_000;

/**
 * The processor's work loop (docs/distributed.md, "The work queue"): claim the next job from the
 * Postgres work queue (leased, fair between accounts), run it, repeat; one job at a time, since the
 * engine uses every core. Woken by NOTIFY the moment a job becomes claimable, so an idle processor
 * starts it within milliseconds; the same connection carries `stop <job>` when a running job is
 * cancelled. Independent of Kafka: any number of processors, no partitions, no rebalances.
 */
@Injectable()
export class ClaimLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  private listener: PgNotificationListener | undefined;
  private stopping = false;
  private loop: Promise<void> | undefined;
  private woken = false;
  private wake: (() => void) | undefined;
  private lastOkAt = Date.now();
  private listening = false;

  constructor(
    @Inject(RUNTIME) private readonly rt: Runtime,
    private readonly runner: JobRunner,
  ) {}

  onApplicationBootstrap(): void {
    this.listener = new PgNotificationListener(pgConfigOf(this.rt.db), WORK_CHANNEL, {
      onNotification: (payload) => {
        const stopped = stoppedJobOf(payload);
        if (stopped) this.runner.stop(stopped, 'cancelled');
        else this.poke();
      },
      onConnected: () => {
        this.listening = true;
        this.poke();
      },
      onError: (err) => {
        this.listening = false;
        this.rt.logger.warn({ err }, 'work queue LISTEN connection lost; reconnecting');
      },
    });
    this.listener.start();
    this.rt.readiness.queue = async () => this.check();
    this.loop = this.run();
  }

  /** SIGTERM: stop claiming; let the running job finish within the grace period, else hand it back. */
  async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.poke();
    const handBack = setTimeout(() => this.runner.handBack(), this.rt.config.shutdownGraceMs);
    try {
      await this.loop;
    } finally {
      clearTimeout(handBack);
      await this.listener?.stop();
    }
  }

  /** Readiness: the loop is alive and reached the queue recently, and cancels can reach it. */
  check(): void {
    if (this.stopping) throw new Error('shutting down');
    if (!this.listening) throw new Error('work queue LISTEN connection is down');
    if (!this.runner.busyWith && Date.now() - this.lastOkAt > STALE_MS) {
      throw new Error(`no successful claim for ${Math.round((Date.now() - this.lastOkAt) / 1000)} s`);
    }
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      try {
        const { lease, contended } = await this.rt.workQueue.claim(this.runner.workerId, this.rt.config.leaseMs, this.rt.config.accountMaxConcurrentJobs);
        this.lastOkAt = Date.now();
        failures = 0;
        if (lease) {
          const outcome = await inSpan('processor.job', { 'upscaler.job_id': lease.jobId, 'upscaler.worker': this.runner.workerId }, null, () =>
            this.runner.run(lease),
          );
          this.rt.logger.info({ jobId: lease.jobId, outcome, worker: this.runner.workerId }, 'job handled');
          this.lastOkAt = Date.now();
          continue;
        }
        // Another processor held the candidate for an instant: look again almost at once.
        if (contended) await sleep(2 + Math.random() * 8);
        else await this.idle(POLL_MS);
      } catch (err) {
        failures++;
        this.rt.logger.error({ err }, 'work loop failed; retrying');
        await sleep(Math.min(2_000, 100 * 2 ** Math.min(failures, 5)));
      }
    }
  }

  private poke(): void {
    this.woken = true;
    this.wake?.();
  }

  private async idle(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wake = undefined;
        resolve();
      }
      this.wake = done;
    });
    this.woken = false;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
