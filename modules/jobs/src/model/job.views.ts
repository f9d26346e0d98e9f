import {
  DomainError,
  type ThumbnailObject,
  type JobCancelView,
  type JobCreateView,
  type JobListItemView,
  type JobView,
} from '@upscaler/contracts';
import { elapsedMs } from '@upscaler/domain';
import { contentOf, filesExpireAt, filesExpired, startedAtOf, type JobState } from './job.state';

/** Spec 2: the result is fetched through the api, never from storage directly. */
export function resultPath(jobId: string): string {
  return `/api/v1/jobs/${jobId}/result`;
}

/**
 * The retrieve view (spec 2, Job table, all fields). `status` pending is reported as is: it is one of
 * the spec's states (a lost attempt waiting to re-enter the queue).
 *
 * duration_ms is the recorded wall-clock processing time once final. While processing, and only when
 * `now` is given, it is the time elapsed so far in the running attempt; otherwise null.
 *
 * progress: 0 while queued or pending, `runningProgress` (the processor's share of tiles done,
 * kept outside the job's stream) while processing, 1 once succeeded, null for failed and cancelled jobs.
 */
export function toJobView(state: JobState, now?: string, runningProgress?: number): JobView {
  const job = state.job;
  if (state.status === 'none' || job === null) throw new DomainError('job_not_found');
  let durationMs = state.durationMs;
  if (state.status === 'processing' && state.running && now !== undefined) {
    durationMs = elapsedMs(state.running.startedAt, now);
  }
  return {
    id: job.jobId,
    object: 'job',
    status: state.status,
    target: job.target,
    filename: job.filename,
    credits: job.credits,
    error: state.status === 'failed' && state.error ? { code: state.error.code, message: state.error.message } : null,
    source: { bytes: job.source.bytes, content_type: job.source.contentType, width: job.source.width, height: job.source.height },
    result:
      state.status === 'succeeded' && state.result
        ? {
            bytes: state.result.bytes,
            content_type: state.result.contentType,
            url: resultPath(job.jobId),
            width: state.result.width,
            height: state.result.height,
          }
        : null,
    created_at: job.queuedAt,
    finished_at: state.finishedAt,
    duration_ms: durationMs,
    started_at: startedAtOf(state),
    progress: progressOf(state, runningProgress),
    format: job.format,
    quality: job.quality,
    requested_target: job.requestedTarget,
    content: contentOf(job),
    size: job.size ?? null,
    files_expire_at: filesExpireAt(state),
  };
}

function progressOf(state: JobState, runningProgress: number | undefined): number | null {
  switch (state.status) {
    case 'succeeded':
      return 1;
    case 'failed':
    case 'cancelled':
      return null;
    case 'processing':
      return Math.min(1, Math.max(0, runningProgress ?? 0));
    default:
      return 0;
  }
}

/** The fields `keys` of the full view, in that order (each smaller view is a pick of the retrieve view). */
function pickOf<K extends keyof JobView>(state: JobState, keys: readonly K[]): Pick<JobView, K> {
  const v = toJobView(state);
  return Object.fromEntries(keys.map((k) => [k, v[k]])) as Pick<JobView, K>;
}

/** Spec 2, create response (202, and 200 on an idempotent replay). */
export function toCreateView(state: JobState): JobCreateView {
  return pickOf(state, ['id', 'object', 'status', 'target', 'filename', 'credits', 'source', 'created_at']);
}

/**
 * Spec 2, list items; plus filename, format, quality, error and thumbnail (additive: jobs told apart, failures
 * explained). `thumbnailUrl`: the signed link to the thumbnail thumbnailOf names (null: none).
 */
export function toListItemView(state: JobState, thumbnailUrl: string | null = null): JobListItemView {
  const thumb = state.job?.source.thumbnail;
  return {
    ...pickOf(state, ['id', 'object', 'status', 'target', 'credits', 'created_at', 'filename', 'format', 'quality', 'error']),
    thumbnail: thumbnailUrl !== null && thumb ? { url: thumbnailUrl, width: thumb.width, height: thumb.height } : null,
  };
}

/** The job's stored thumbnail while its files are kept (none once deleted or past files_expire_at at `now`). */
export function thumbnailOf(state: JobState, now: string): ThumbnailObject | null {
  const thumb = state.job?.source.thumbnail;
  return !thumb || filesExpired(state, now) ? null : thumb;
}

/** Spec 2, cancel response (200). */
export function toCancelView(state: JobState): JobCancelView {
  return pickOf(state, ['id', 'object', 'status', 'target', 'credits', 'created_at', 'finished_at']);
}
