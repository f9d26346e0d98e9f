import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { isDomainError } from '@upscaler/contracts';
import { JobCommandHandler } from '../job.command-handler';
import { eventMetadata, LOGGER, Metrics, RepeatingTask } from '@upscaler/runtime';
import { JobMetrics } from '../jobs.metrics';
import { leaseGuards, LeaseLostError, WorkQueueRepository } from '@upscaler/work-queue';
import { type Logger } from '@upscaler/config';
import { JOB_SETTINGS, type JobSettings } from '../jobs.config';

const SWEEP_MS = 1_000;

/**
 * The work queue's sweeper (every processor runs one; SKIP-free but guarded, so they never act twice):
 * - an expired lease on a started attempt is a lost attempt (JobAttemptLost with backoff, or
 *   attempts_exhausted and its refund on the last), decided inside a transaction that re-checks the
 *   lease is still expired, so a processor that renewed in time keeps its job;
 * - an expired lease on a job never started (the claimer died between claim and start) is released;
 * - a pending job whose backoff is over is requeued (JobRequeued), and claimable at once.
 * Runs every second, and sooner when the next backoff ends earlier.
 */
@Injectable()
export class LeaseSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly task: RepeatingTask;

  private readonly series: JobMetrics;

  constructor(
    private readonly jobs: JobCommandHandler,
    @Inject(JOB_SETTINGS) private readonly settings: JobSettings,
    @Inject(LOGGER) private readonly logger: Logger,
    metrics: Metrics,
    private readonly workQueue: WorkQueueRepository,
  ) {
    this.series = metrics.section(JobMetrics);
    this.task = new RepeatingTask(
      'lease sweep',
      () => this.sweepThenNextDelay(),
      () => SWEEP_MS,
      logger,
    );
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  onApplicationShutdown(): void {
    this.task.stop();
  }

  /** A pass, then the time until the next backoff ends (at least 20 ms, at most a second): the next pass then. */
  private async sweepThenNextDelay(): Promise<number> {
    await this.sweep();
    const next = await this.workQueue.msUntilNextDue().catch(() => null);
    return next === null ? SWEEP_MS : Math.min(SWEEP_MS, Math.max(20, next));
  }

  /** One pass; returns how many leases it found lost and how many pending jobs it requeued. */
  async sweep(): Promise<{ lost: number; released: number; requeued: number }> {
    const counts = { lost: 0, released: 0, requeued: 0 };
    for (const expired of await this.workQueue.expired()) {
      if (expired.status === 'queued') {
        if (expired.token) await this.workQueue.release({ jobId: expired.jobId, accountId: '', token: expired.token });
        counts.released++;
        continue;
      }
      try {
        await this.jobs.handle(
          expired.jobId,
          {
            type: 'LoseAttempt',
            data: { attempt: expired.attempt, reason: 'lease expired', now: this.now(), retryDelayMs: this.backoffMs(expired.attempt) },
          },
          {
            guard: leaseGuards.expired(expired.jobId, expired.token),
            metadata: eventMetadata('processor', { correlationId: expired.jobId }),
          },
        );
        counts.lost++;
        this.series.attemptsLost.inc({ reason: 'lease_expired' });
        this.logger.warn({ jobId: expired.jobId, attempt: expired.attempt }, 'lease expired: attempt lost');
      } catch (e) {
        if (!(e instanceof LeaseLostError) && !(isDomainError(e) && e.code === 'conflict')) throw e;
      }
    }
    for (const jobId of await this.workQueue.duePending()) {
      try {
        await this.jobs.handle(
          jobId,
          { type: 'RequeueJob', data: { now: this.now() } },
          {
            metadata: eventMetadata('processor', { correlationId: jobId }),
          },
        );
        counts.requeued++;
      } catch (e) {
        if (!(isDomainError(e) && e.code === 'conflict')) throw e;
      }
    }
    return counts;
  }

  /** UPSCALE_RETRY_DELAY_MS after the first lost attempt, doubling after each later one. */
  private backoffMs(attempt: number): number {
    return this.settings.retryDelayMs * 2 ** Math.max(0, attempt - 1);
  }

  private now(): string {
    return this.jobs.now().toISOString();
  }
}
