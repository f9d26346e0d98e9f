import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { FINAL_STATUSES } from '@upscaler/contracts';
import type { JobState } from '../model/job.state';
import { ReadModelRepository } from '@upscaler/projections';
import { CLOCK, type Clock, LOGGER, RepeatingTask } from '@upscaler/runtime';
import { JobFiles } from '../files/job-files';
import type { Logger } from '@upscaler/config';
import { JOB_SETTINGS, type JobSettings } from '../jobs.config';

/** The longest wait between sweeps; a short retention (tests, demos) sweeps every half of it, at least every second. */
const MAX_SWEEP_MS = 60_000;
const BATCH = 100;

/**
 * Retention (docs/operations.md "Retention"): deletes the source and result of final jobs whose files_expire_at has
 * passed, in both storage backends, and records it on the job (JobFilesDeleted). Every processor runs one; two that
 * pick the same job delete twice (a missing key is no error) and record once. Idle when the service keeps files.
 */
@Injectable()
export class FileRetentionSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly task: RepeatingTask;

  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(JOB_SETTINGS) private readonly settings: JobSettings,
    @Inject(LOGGER) logger: Logger,
    private readonly readModels: ReadModelRepository,
    private readonly files: JobFiles,
  ) {
    this.task = new RepeatingTask(
      'file retention sweep',
      async () => void (await this.sweep()),
      () => this.intervalMs,
      logger,
    );
  }

  /** Also with retention off: jobs accepted while it was on keep their promise (their own fileRetentionSeconds). */
  get intervalMs(): number {
    const retention = this.settings.fileRetentionSeconds;
    return retention === undefined ? MAX_SWEEP_MS : Math.min(MAX_SWEEP_MS, Math.max(1_000, (retention * 1000) / 2));
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  onApplicationShutdown(): void {
    this.task.stop();
  }

  /** One pass over every job due (in batches); returns how many jobs' files it deleted. */
  async sweep(): Promise<number> {
    let deleted = 0;
    for (;;) {
      const due = await this.readModels.due<JobState>('job', this.clock.now(), BATCH, FINAL_STATUSES);
      let now = 0;
      for (const row of due) {
        if (this.task.stopped) return deleted;
        if (await this.files.delete(row.state, 'retention', 'processor')) now++;
      }
      deleted += now;
      // a full batch that recorded nothing (read models behind the log): the next sweep takes it up
      if (due.length < BATCH || now === 0) return deleted;
    }
  }
}
