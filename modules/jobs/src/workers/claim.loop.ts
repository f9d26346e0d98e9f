import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { PgNotificationListener } from '@upscaler/eventstore';
import { CONFIG, LOGGER, RUNTIME_MODE, Readiness } from '@upscaler/runtime';
import { inSpan } from '@upscaler/tracing';
import { stoppedJobOf, WorkQueueRepository } from '@upscaler/work-queue';
import { JobRunner } from './job.runner';
import { type AppConfig, type Logger } from '@upscaler/config';
import { JOB_SETTINGS, type JobSettings } from '../jobs.config';

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
export class ClaimLoop implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private listener: PgNotificationListener | undefined;
  private stopping = false;
  private loop: Promise<void> | undefined;
  private woken = false;
  private wake: (() => void) | undefined;
  private lastOkAt = Date.now();
  private listening = false;

  constructor(
    @Inject(CONFIG) private readonly config: AppConfig,
    @Inject(JOB_SETTINGS) private readonly settings: JobSettings,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(RUNTIME_MODE) private readonly mode: 'embedded' | 'distributed',
    private readonly readiness: Readiness,
    private readonly workQueue: WorkQueueRepository,
    private readonly runner: JobRunner,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.mode === 'embedded') {
      // The embedded standalone is the only process of its data directory: any lease in it is a
      // dead predecessor's (killed mid-job). The sweeper recovers those attempts now, not a lease later.
      const taken = await this.workQueue.expireAll();
      if (taken > 0) this.logger.warn({ leases: taken }, 'leases of the previous run ended: their attempts are lost');
    }
    this.listener = this.workQueue.listen({
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
        this.logger.warn({ err }, 'work queue LISTEN connection lost; reconnecting');
      },
    });
    this.listener.start();
    this.readiness.register('work-queue', async () => this.check());
    this.loop = this.run();
  }

  /**
   * SIGTERM: stop claiming; let the running job finish within the grace period, else hand it back.
   * Before the application's shutdown hooks (Nest calls every beforeApplicationShutdown first), so
   * the engine, the LISTEN connection and the database are still there while the job drains.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.poke();
    const running = this.runner.busyWith;
    if (running)
      this.logger.info(
        { jobId: running, graceMs: this.config.shutdownGraceMs },
        'shutting down: the running job may finish within the grace period',
      );
    const handBack = setTimeout(() => {
      if (this.runner.busyWith)
        this.logger.info({ jobId: this.runner.busyWith }, 'grace period over: handing the job back at the next tile');
      this.runner.handBack();
    }, this.config.shutdownGraceMs);
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
        const { lease, contended } = await this.workQueue.claim(
          this.runner.workerId,
          this.settings.leaseMs,
          this.settings.accountMaxConcurrentJobs,
        );
        this.lastOkAt = Date.now();
        failures = 0;
        if (lease) {
          const outcome = await inSpan(
            'processor.job',
            { 'upscaler.job_id': lease.jobId, 'upscaler.worker': this.runner.workerId },
            // the submit's trace context, from JobQueued's metadata: one trace from the request to the webhook
            lease.trace,
            () => this.runner.run(lease),
          );
          this.logger.info({ jobId: lease.jobId, outcome, worker: this.runner.workerId }, 'job handled');
          this.lastOkAt = Date.now();
          continue;
        }
        // Another processor held the candidate for an instant: look again almost at once.
        if (contended) await sleep(2 + Math.random() * 8);
        else await this.idle(POLL_MS);
      } catch (err) {
        failures++;
        this.logger.error({ err }, 'work loop failed; retrying');
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
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
    this.woken = false;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
