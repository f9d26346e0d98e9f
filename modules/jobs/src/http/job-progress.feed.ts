import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Logger } from '@upscaler/config';
import { LOGGER } from '@upscaler/runtime';
import { JobProgress, WorkQueueRepository } from '@upscaler/work-queue';

/**
 * This replica's view of running jobs' progress: libs/work-queue's JobProgress, started with the
 * module and stopped with it. Its own LISTEN connection; reading it is a map lookup.
 */
@Injectable()
export class JobProgressFeed implements OnModuleInit, OnModuleDestroy {
  private readonly progress: JobProgress;

  constructor(workQueue: WorkQueueRepository, @Inject(LOGGER) logger: Logger) {
    this.progress = new JobProgress(workQueue, logger);
  }

  onModuleInit(): void {
    this.progress.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.progress.stop();
  }

  /** The running job's share of tiles done (0..1), when a processor reported one. */
  of(jobId: string): number | undefined {
    return this.progress.of(jobId);
  }
}
