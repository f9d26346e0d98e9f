import { foldedBy, type ProjectionDef } from '@upscaler/projections';
import { jobDecider } from '../model/job.decider';
import { type JobState, filesExpireAt } from '../model/job.state';

/**
 * A `job-…` stream's read model: its decider's state, with the columns the job list, the backoff sweep and the file
 * retention sweep filter on.
 */
export const jobProjection: ProjectionDef<JobState> = {
  category: 'job',
  ...foldedBy(jobDecider),
  columns: (s) => ({
    entityId: s.job!.jobId,
    accountId: s.job!.accountId,
    status: s.status,
    // pending jobs re-enter the queue when their backoff is over (docs/job-states.md); a final job's files are deleted
    // when their retention runs out (docs/operations.md "Retention")
    nextAt: s.status === 'pending' ? s.retryAt : s.filesDeletedAt ? null : filesExpireAt(s),
    createdAt: s.job!.queuedAt,
  }),
};
