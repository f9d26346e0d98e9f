import { Inject, Injectable } from '@nestjs/common';
import { hostname } from 'node:os';
import { DomainError, isDomainError, type JobFailureCode, JOB_FAILURE_CODES } from '@upscaler/contracts';
import { contentOf, type JobState } from '../model/job.state';
import { JobCommandHandler } from '../job.command-handler';
import { planSize } from '../model/output-size';
import { type JobCommand } from '../model/job.commands';
import { type HandleCommandOptions } from '@upscaler/eventstore';
import { EngineCancelledError } from '@upscaler/engine';
import { eventMetadata, STORAGE, LOGGER, Metrics } from '@upscaler/runtime';
import { JobMetrics } from '../jobs.metrics';
import { inSpan } from '@upscaler/tracing';
import { leaseGuards, LeaseLostError, type Lease, WorkQueueRepository } from '@upscaler/work-queue';
import { EngineProvider } from './engine.provider';
import { ProgressReporter } from './progress.reporter';
import type { ObjectStorage } from '@upscaler/storage';
import { type Logger } from '@upscaler/config';
import { isDependencyUnavailable } from '@upscaler/http-errors';
import { JOB_SETTINGS, type JobSettings } from '../jobs.config';

/** How often a running job's progress is written at most (a progress bar wants a few values a second). */
export const PROGRESS_INTERVAL_MS = 250;

export type RunOutcome = 'succeeded' | 'failed' | 'cancelled' | 'lease_lost' | 'skipped' | 'handed_back' | 'retrying';

/**
 * Waits between tries of a storage read or write (or the final append) that failed for a moment (disk full,
 * read-only, MinIO or Postgres away), while the attempt keeps its lease: 15.5 s in all before the attempt is given up
 * as lost (docs/runbooks.md "Storage full or unreachable"). Retrying here keeps the engine's work: a result is not
 * computed again for a blip.
 */
export const STORAGE_RETRY_MS = [500, 1_000, 2_000, 4_000, 8_000];

/** A storage read or write that kept failing with a fault that time or an operator fixes (see STORAGE_RETRY_MS). */
class StorageFault extends Error {
  constructor(override readonly cause: unknown) {
    super(`storage unavailable: ${describeFault(cause)}`);
    this.name = 'StorageFault';
  }
}

type StopReason = 'cancelled' | 'lease_lost' | 'hand_back';

interface Running {
  jobId: string;
  attempt: number;
  abort: AbortController;
  reason: StopReason | undefined;
  /** The hand-back's appends, made as soon as it was decided (not when the engine reaches its next tile). */
  handedBack?: Promise<void>;
}

/**
 * Runs one leased attempt of a job: queued -> processing -> succeeded/failed (spec 3). The lease is
 * renewed every third of its length while the engine runs; a renewal that finds it gone (expired and
 * swept, or the job ended) stops the engine between tiles and discards the work. A cancel is pushed
 * (the work queue's NOTIFY reaches `stop`), never polled. Finish beats cancel by append order (spec 3,
 * rule 2); the job's final event is its charge or refund (settled on final).
 */
@Injectable()
export class JobRunner {
  readonly workerId = `${hostname()}-${process.pid}`;
  private current: Running | undefined;
  /** Set by SIGTERM past the grace period: a job not yet running is given back instead of started. */
  private handingBack = false;

  private readonly series: JobMetrics;

  constructor(
    private readonly jobs: JobCommandHandler,
    @Inject(STORAGE) private readonly storage: ObjectStorage,
    @Inject(JOB_SETTINGS) private readonly settings: JobSettings,
    @Inject(LOGGER) private readonly logger: Logger,
    metrics: Metrics,
    private readonly workQueue: WorkQueueRepository,
    private readonly engines: EngineProvider,
  ) {
    this.series = metrics.section(JobMetrics);
  }

  get busyWith(): string | undefined {
    return this.current?.jobId;
  }

  /** Stops the running job between tiles: cancelled, lease lost, or handed back (SIGTERM past the grace period). */
  stop(jobId: string, reason: StopReason): void {
    if (this.current?.jobId === jobId && !this.current.reason) {
      this.current.reason = reason;
      this.current.abort.abort();
    }
  }

  /**
   * Hands back the running job, and any job this runner is about to start (it may be between claim and
   * engine). The attempt is recorded as lost and the job requeued at once, so another processor can
   * start it while this one's engine finishes its current network pass (which cannot be interrupted:
   * a pass of a network with a large receptive field can take seconds); the late result is discarded.
   */
  handBack(): void {
    this.handingBack = true;
    const current = this.current;
    if (!current) return;
    this.stop(current.jobId, 'hand_back');
    current.handedBack ??= this.giveBack(current.jobId, current.attempt).catch((err: Error) =>
      this.logger.error({ err, jobId: current.jobId }, 'hand-back failed; the lease will expire instead'),
    );
  }

  async run(lease: Lease): Promise<RunOutcome> {
    if (this.handingBack) {
      await this.workQueue.release(lease);
      return 'skipped';
    }
    let started: JobState;
    try {
      started = await this.decide(
        lease.jobId,
        { type: 'StartJob', data: { workerId: this.workerId, now: this.now() } },
        { guard: leaseGuards.held(lease) },
      );
    } catch (e) {
      // Cancelled (its row is gone), or no longer queued: nothing to run.
      if (e instanceof LeaseLostError || (isDomainError(e) && e.code === 'conflict')) {
        await this.workQueue.release(lease).catch(() => undefined);
        return 'skipped';
      }
      throw e;
    }
    const attempt = started.running!.attempt;
    const job = started.job!;
    const current: Running = { jobId: lease.jobId, attempt, abort: new AbortController(), reason: undefined };
    this.current = current;
    if (this.handingBack) this.handBack(); // SIGTERM's grace ran out while it was starting
    const renewal = this.keepLease(lease);
    const progress = new ProgressReporter(
      (fraction) => this.workQueue.reportProgress(lease, fraction),
      PROGRESS_INTERVAL_MS,
      (err) => this.logger.warn({ err, jobId: lease.jobId }, 'progress write failed'),
    );
    try {
      const input = await this.withStorage(current, () => this.storage.get(job.source.key));
      const content = contentOf(job);
      const attributes = { 'upscaler.target': job.target, 'upscaler.quality': job.quality, 'upscaler.content': content };
      const out = await inSpan('engine.upscale', attributes, null, () =>
        this.engines.engine.upscale({
          input,
          target: job.target,
          format: job.format,
          quality: job.quality,
          content,
          // output by pixel size: the api picked a target that reaches it (docs/api.md "Output by pixel size")
          size: job.size && planSize(job.source.width, job.source.height, job.size),
          signal: current.abort.signal,
          onProgress: (fraction) => progress.update(fraction),
        }),
      );
      await progress.close();
      this.series.engineSeconds.observe({ network: out.network, scale: String(out.scale) }, out.engineMs / 1000);
      const resultKey = `results/${lease.jobId}`;
      await this.withStorage(current, () => this.storage.put(resultKey, out.output, out.contentType));
      try {
        // The result is stored: Postgres away for a moment must not cost the engine's work, so the append is tried
        // again like a storage write (a duplicate cannot happen: the attempt check refuses a second CompleteJob).
        await this.retryPassingFaults(current, () =>
          this.decide(lease.jobId, {
            type: 'CompleteJob',
            data: {
              attempt,
              result: { key: resultKey, bytes: out.output.length, contentType: out.contentType, width: out.width, height: out.height },
              engine: { network: out.network, scale: out.scale, engineMs: out.engineMs, tiles: out.tiles },
              now: this.now(),
            },
          }),
        );
        return 'succeeded';
      } catch (e) {
        // Cancelled (or the attempt lost) while the result was being stored: the earlier append wins.
        if (isDomainError(e) && e.code === 'conflict') return 'cancelled';
        throw e;
      }
    } catch (e) {
      if (e instanceof EngineCancelledError || current.abort.signal.aborted) return this.stopped(current);
      if (e instanceof StorageFault) return this.loseToStorage(lease.jobId, attempt, e);
      // Postgres away while the attempt was being recorded: nothing can be recorded now. The lease expires and the
      // sweeper counts the attempt as lost (with backoff); failing the job for it would be wrong.
      if (isDependencyUnavailable(e)) throw e;
      const error = toFailure(e);
      if (error.code === 'engine_error') this.logger.error({ err: e, jobId: lease.jobId }, 'engine failed');
      try {
        await this.decide(lease.jobId, { type: 'FailJob', data: { attempt, error, now: this.now() } });
      } catch (fe) {
        if (!(isDomainError(fe) && fe.code === 'conflict')) throw fe;
        return 'cancelled';
      }
      return 'failed';
    } finally {
      renewal.stop();
      await progress.close();
      this.current = undefined;
    }
  }

  /** A storage read or write, tried again over STORAGE_RETRY_MS; still failing, a StorageFault (the attempt is lost). */
  private async withStorage<T>(current: Running, op: () => Promise<T>): Promise<T> {
    try {
      return await this.retryPassingFaults(current, op);
    } catch (e) {
      throw isDependencyUnavailable(e) ? new StorageFault(e) : e;
    }
  }

  /**
   * Runs `op`, trying again over STORAGE_RETRY_MS while it fails with a passing fault (storage or Postgres away,
   * full, read-only; a bug or a missing object fails at once), unless the attempt is stopped meanwhile (cancelled,
   * lease lost, handed back). The lease keeps being renewed (and outlasts the retries: 15.5 s < UPSCALE_LEASE_MS).
   */
  private async retryPassingFaults<T>(current: Running, op: () => Promise<T>): Promise<T> {
    for (let i = 0; ; i++) {
      try {
        return await op();
      } catch (e) {
        if (!isDependencyUnavailable(e) || i >= STORAGE_RETRY_MS.length || current.abort.signal.aborted) throw e;
        this.logger.warn({ err: e, jobId: current.jobId, retryInMs: STORAGE_RETRY_MS[i] }, 'a dependency failed; trying again');
        await sleep(STORAGE_RETRY_MS[i]);
      }
    }
  }

  /**
   * Storage kept failing: the attempt is lost, not the job. Pending with backoff (the sweeper requeues it), like a
   * lease that expired; after the last attempt the job fails storage_unavailable, refunded.
   */
  private async loseToStorage(jobId: string, attempt: number, fault: StorageFault): Promise<RunOutcome> {
    this.logger.error({ err: fault.cause, jobId, attempt }, 'storage unavailable: the attempt is lost');
    this.series.attemptsLost.inc({ reason: 'storage' });
    try {
      const state = await this.decide(jobId, {
        type: 'LoseAttempt',
        data: {
          attempt,
          reason: fault.message,
          now: this.now(),
          retryDelayMs: this.settings.retryDelayMs * 2 ** Math.max(0, attempt - 1),
          exhausted: 'storage_unavailable',
        },
      });
      return state.status === 'failed' ? 'failed' : 'retrying';
    } catch (e) {
      if (isDomainError(e) && e.code === 'conflict') return 'cancelled';
      throw e;
    }
  }

  /** After the engine stopped early: the hand-back's appends are done (or being done), or the job is just let go. */
  private async stopped(current: Running): Promise<RunOutcome> {
    if (current.reason === 'lease_lost') return 'lease_lost';
    if (current.reason !== 'hand_back') return 'cancelled';
    await current.handedBack;
    return 'handed_back';
  }

  /** The lost attempt frees the lease; requeued right away, another processor starts the job within moments. */
  private async giveBack(jobId: string, attempt: number): Promise<void> {
    try {
      await this.decide(jobId, {
        type: 'LoseAttempt',
        data: { attempt, reason: 'handed back at shutdown', now: this.now(), retryDelayMs: 0 },
      });
      await this.decide(jobId, { type: 'RequeueJob', data: { now: this.now() } });
    } catch (e) {
      // finished or cancelled meanwhile: nothing to give back
      if (!(isDomainError(e) && e.code === 'conflict')) throw e;
    }
  }

  /** Renews the lease every third of its length; a renewal that finds it gone stops the engine. */
  private keepLease(lease: Lease): { stop(): void } {
    const every = Math.max(200, Math.floor(this.settings.leaseMs / 3));
    const timer = setInterval(() => {
      this.workQueue.renew(lease, this.settings.leaseMs).then(
        (held) => {
          if (!held) this.stop(lease.jobId, 'lease_lost');
        },
        (err: Error) => this.logger.warn({ err, jobId: lease.jobId }, 'lease renewal failed; retrying'),
      );
    }, every);
    timer.unref();
    return { stop: () => clearInterval(timer) };
  }

  private async decide(jobId: string, command: JobCommand, opts: Pick<HandleCommandOptions, 'guard'> = {}): Promise<JobState> {
    const { newState } = await this.jobs.handle(jobId, command, {
      ...opts,
      metadata: eventMetadata('processor', { correlationId: jobId }),
    });
    return newState;
  }

  private now(): string {
    return this.jobs.now().toISOString();
  }
}

function describeFault(e: unknown): string {
  const err = e as { code?: unknown; message?: unknown };
  const message = typeof err?.message === 'string' ? err.message : String(e);
  return typeof err?.code === 'string' && !message.startsWith(err.code) ? `${err.code}: ${message}` : message;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function toFailure(e: unknown): { code: JobFailureCode; message: string } {
  if (e instanceof DomainError && (JOB_FAILURE_CODES as readonly string[]).includes(e.code)) {
    return { code: e.code as JobFailureCode, message: e.message };
  }
  return { code: 'engine_error', message: 'The engine failed to process the image.' };
}
