import { Inject, Injectable } from '@nestjs/common';
import { JobCommandHandler } from '../job.command-handler';
import { type JobState } from '../model/job.state';
import type { ObjectStorage } from '@upscaler/storage';
import { eventMetadata, Metrics, STORAGE } from '@upscaler/runtime';
import { JobMetrics } from '../jobs.metrics';

/**
 * Deletes a final job's source (with its thumbnail) and result from storage, then records it (JobFilesDeleted): the
 * retention sweep (processor) and an operator's deletion of an account's files (api) both come here (docs/operations.md
 * "Retention"). Storage first: a crash in between leaves the job unrecorded, and the next sweep deletes again
 * (a missing key is no error) and records it.
 */
@Injectable()
export class JobFiles {
  private readonly series: JobMetrics;

  constructor(
    private readonly jobs: JobCommandHandler,
    @Inject(STORAGE) private readonly storage: ObjectStorage,
    metrics: Metrics,
  ) {
    this.series = metrics.section(JobMetrics);
  }

  /** True when this call recorded the deletion; false when the job's files were already recorded deleted. */
  async delete(state: JobState, reason: 'retention' | 'operator', by: string): Promise<boolean> {
    const job = state.job;
    if (!job || state.filesDeletedAt) return false;
    await this.storage.delete(job.source.key);
    if (job.source.thumbnail) await this.storage.delete(job.source.thumbnail.key);
    if (state.result) await this.storage.delete(state.result.key);
    // Another replica recording it first is a conflict, re-decided on the fresh stream: nothing more to record.
    const { newEvents } = await this.jobs.handle(
      job.jobId,
      { type: 'DeleteJobFiles', data: { reason, now: this.jobs.now().toISOString() } },
      { metadata: eventMetadata(by, { correlationId: job.jobId }) },
    );
    if (newEvents.length === 0) return false;
    this.series.filesDeleted.inc({ reason });
    return true;
  }
}
