import { Injectable } from '@nestjs/common';
import { DomainError, isId, streams, type JobView } from '@upscaler/contracts';
import { toJobView } from '../model/job.views';
import { type JobState } from '../model/job.state';
import { ReadModelRepository } from '@upscaler/projections';
import type { Principal } from '@upscaler/api-keys';
import { EntityCache, LogTail } from '@upscaler/http-api';
import { JobProgressFeed } from './job-progress.feed';

interface Cached {
  accountId: string | null;
  view: JobView;
}

/**
 * GET /jobs/{id}, the call every client polls (spec 4.2): the job's view from its read model, kept in memory per
 * replica until the log shows the job changed (LogTail: at once for this replica's own appends, within TRUST_MS
 * for the others'). Polls of a job that has not changed cost no query. A running job's `progress` is not in its
 * stream: it comes from the processors' progress feed at each answer (JobProgressFeed, a map lookup).
 */
@Injectable()
export class JobViews {
  private readonly cache: EntityCache<Cached>;

  constructor(
    private readonly readModels: ReadModelRepository,
    tail: LogTail,
    private readonly progress: JobProgressFeed,
  ) {
    this.cache = new EntityCache<Cached>(tail, 'job', 20_000);
  }

  async get(p: Principal, jobId: string): Promise<JobView> {
    if (!isId(jobId, 'job')) throw new DomainError('job_not_found');
    let job = this.cache.get(jobId);
    if (!job) {
      const start = this.cache.loadStart();
      const row = await this.readModels.byStream<JobState>(streams.job(jobId));
      if (!row) throw new DomainError('job_not_found');
      job = { accountId: row.accountId, view: toJobView(row.state) };
      this.cache.put(jobId, jobId, job, row.version, start);
    }
    if (job.accountId !== p.accountId) throw new DomainError('job_not_found');
    if (job.view.status !== 'processing') return job.view;
    const progress = this.progress.of(jobId);
    // 0..1 already: the writer clamps, the table checks it, and the listener drops anything else
    return progress === undefined ? job.view : { ...job.view, progress };
  }
}
