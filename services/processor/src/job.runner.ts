import { Inject, Injectable } from '@nestjs/common';
import { hostname } from 'node:os';
import { DomainError, isDomainError, streams, type JobFailureCode, JOB_FAILURE_CODES } from '@upscaler/contracts';
import { jobDecider, type JobCommand, type JobState, foldEvents } from '@upscaler/domain';
import { handleCommand } from '@upscaler/eventstore';
import { EngineCancelledError } from '@upscaler/engine';
import { eventMetadata, RUNTIME, type Runtime } from '@upscaler/runtime';
import { inSpan } from '@upscaler/tracing';
import { EngineProvider } from './engine.provider';

export type RunOutcome = 'succeeded' | 'failed' | 'cancelled' | 'lost' | 'skipped' | 'handed_back';

/**
 * Runs one job: queued -> processing -> succeeded/failed (spec 3). A job found already processing
 * when this worker receives it was held by a worker that died: that attempt is lost and the job
 * waits in pending to re-enter the queue (docs/job-states.md). Cancellation is checked between
 * tiles; finish beats cancel by append order (spec 3, rule 2).
 */
@Injectable()
export class JobRunner {
  readonly workerId = `${hostname()}-${process.pid}`;
  private current: { jobId: string; abort: AbortController; handBack: boolean } | undefined;

  constructor(
    @Inject(RUNTIME) private readonly rt: Runtime,
    private readonly engines: EngineProvider,
  ) {}

  get busyWith(): string | undefined {
    return this.current?.jobId;
  }

  /** Stop the running job between tiles and give it back to the queue (SIGTERM past the grace period). */
  handBack(): void {
    if (this.current) {
      this.current.handBack = true;
      this.current.abort.abort();
    }
  }

  async run(jobId: string): Promise<RunOutcome> {
    const stream = streams.job(jobId);
    const state = await this.load(stream);
    if (state.status === 'processing' && state.running) {
      await this.decide(stream, {
        type: 'LoseAttempt',
        data: { attempt: state.running.attempt, reason: 'worker lost', now: this.now(), retryDelayMs: this.rt.config.retryDelayMs },
      });
      return 'lost';
    }
    if (state.status !== 'queued') return 'skipped';

    let started: JobState;
    try {
      started = await this.decide(stream, { type: 'StartJob', data: { workerId: this.workerId, now: this.now() } });
    } catch (e) {
      if (isDomainError(e) && e.code === 'conflict') return 'skipped';
      throw e;
    }
    const attempt = started.running!.attempt;
    const job = started.job!;
    const abort = new AbortController();
    this.current = { jobId, abort, handBack: false };
    const watcher = this.watchForCancel(stream, abort);
    try {
      const input = await this.rt.storage.get(job.source.key);
      const out = await inSpan('engine.upscale', { 'upscaler.target': job.target, 'upscaler.quality': job.quality }, null, () =>
        this.engines.engine.upscale({ input, target: job.target, format: job.format, quality: job.quality, signal: abort.signal }),
      );
      this.rt.metrics.engineSeconds.observe({ network: out.network, scale: String(out.scale) }, out.engineMs / 1000);
      const resultKey = `results/${jobId}`;
      await this.rt.storage.put(resultKey, out.output, out.contentType);
      try {
        await this.decide(stream, {
          type: 'CompleteJob',
          data: {
            attempt,
            result: { key: resultKey, bytes: out.output.length, contentType: out.contentType, width: out.width, height: out.height },
            engine: { network: out.network, scale: out.scale, engineMs: out.engineMs, tiles: out.tiles },
            now: this.now(),
          },
        });
        return 'succeeded';
      } catch (e) {
        // Cancelled (or taken over) while the result was being stored: the cancel was first, it wins.
        if (isDomainError(e) && e.code === 'conflict') return 'cancelled';
        throw e;
      }
    } catch (e) {
      if (e instanceof EngineCancelledError || abort.signal.aborted) {
        if (this.current?.handBack) {
          await this.decide(stream, {
            type: 'LoseAttempt',
            data: { attempt, reason: 'handed back at shutdown', now: this.now(), retryDelayMs: 0 },
          }).catch(() => undefined);
          return 'handed_back';
        }
        return 'cancelled';
      }
      const error = toFailure(e);
      if (error.code === 'engine_error') this.rt.logger.error({ err: e, jobId }, 'engine failed');
      try {
        await this.decide(stream, { type: 'FailJob', data: { attempt, error, now: this.now() } });
      } catch (fe) {
        if (!(isDomainError(fe) && fe.code === 'conflict')) throw fe;
        return 'cancelled';
      }
      return 'failed';
    } finally {
      watcher.stop();
      this.current = undefined;
    }
  }

  /** Re-enters the queue every pending job whose backoff is over (durable: read from the read model). */
  async requeueDue(): Promise<number> {
    const due = await this.rt.readModels.due<JobState>('job', this.rt.clock.now(), 100);
    let n = 0;
    for (const row of due) {
      if (row.status !== 'pending') continue;
      try {
        await this.decide(row.streamId, { type: 'RequeueJob', data: { now: this.now() } });
        n++;
      } catch (e) {
        if (!(isDomainError(e) && e.code === 'conflict')) throw e;
      }
    }
    return n;
  }

  private watchForCancel(stream: string, abort: AbortController): { stop(): void } {
    let stopped = false;
    const tick = async () => {
      while (!stopped && !abort.signal.aborted) {
        await new Promise((r) => setTimeout(r, 250));
        if (stopped) return;
        try {
          const state = await this.load(stream);
          if (state.status === 'cancelled' || state.status === 'failed') abort.abort();
        } catch {
          // a transient read error: keep running, look again at the next tick
        }
      }
    };
    void tick();
    return { stop: () => (stopped = true) };
  }

  private async load(stream: string): Promise<JobState> {
    const events = await this.rt.store.readStream(stream);
    return foldEvents(jobDecider, events as never);
  }

  private async decide(stream: string, command: JobCommand): Promise<JobState> {
    const { newState, newEvents } = await handleCommand(this.rt.store, stream, jobDecider, command, {
      metadata: eventMetadata('processor', { correlationId: stream.slice('job-'.length) }),
    });
    await this.rt.projector.apply(newEvents);
    return newState as JobState;
  }

  private now(): string {
    return this.rt.clock.now().toISOString();
  }
}

function toFailure(e: unknown): { code: JobFailureCode; message: string } {
  if (e instanceof DomainError && (JOB_FAILURE_CODES as readonly string[]).includes(e.code)) {
    return { code: e.code as JobFailureCode, message: e.message };
  }
  return { code: 'engine_error', message: 'The engine failed to process the image.' };
}
