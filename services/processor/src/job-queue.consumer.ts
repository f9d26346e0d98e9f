import { Inject, Injectable } from '@nestjs/common';
import type { JobQueuedData, StoredEvent } from '@upscaler/contracts';
import { EventLogConsumer, RUNTIME, type Runtime } from '@upscaler/runtime';
import { inSpan } from '@upscaler/tracing';
import { JobRunner } from './job.runner';

/**
 * The queue is the job event log itself: JobQueued and JobRequeued events, consumed in order by the
 * `processor` consumer group (one job at a time per process: the engine uses every core). The
 * checkpoint only moves past a job once it is handled, so a crash re-delivers it.
 */
@Injectable()
export class JobQueueConsumer extends EventLogConsumer {
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;

  constructor(
    @Inject(RUNTIME) rt: Runtime,
    private readonly runner: JobRunner,
  ) {
    super(rt, { consumer: 'processor', categories: ['job'] });
  }

  override async onApplicationBootstrap(): Promise<void> {
    await super.onApplicationBootstrap();
    this.timer = setInterval(() => {
      if (this.stopping) return;
      void this.runner.requeueDue().catch((err) => this.rt.logger.error({ err }, 'requeue sweep failed'));
    }, 500);
    this.timer.unref();
  }

  async handle(event: StoredEvent): Promise<void> {
    if (this.stopping) throw new Error('processor is shutting down');
    if (event.type !== 'JobQueued' && event.type !== 'JobRequeued') return;
    const jobId = (event.data as Pick<JobQueuedData, 'jobId'>).jobId;
    const outcome = await inSpan('processor.job', { 'upscaler.job_id': jobId, 'upscaler.worker': this.runner.workerId }, event.metadata, () =>
      this.runner.run(jobId),
    );
    this.rt.logger.info({ jobId, outcome, worker: this.runner.workerId }, 'job handled');
  }

  /** SIGTERM: stop taking work; let the running job finish within the grace period, else hand it back. */
  override async onApplicationShutdown(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    const grace = this.rt.config.shutdownGraceMs;
    const handBackTimer = setTimeout(() => this.runner.handBack(), grace);
    try {
      await this.stopConsuming();
    } finally {
      clearTimeout(handBackTimer);
    }
  }
}
