import type { JobFailureCode, JobQueuedData, JobSucceededData, ResultObject } from '@upscaler/contracts';

/**
 * Commands of a `job-…` stream. Every `now` is an ISO 8601 UTC instant supplied by the caller (the
 * decider never reads the clock); the job id comes from the state, except in SubmitJob.
 */

/** POST /upscale accepted (spec 3, first row). Only on an empty stream. */
export interface SubmitJob {
  type: 'SubmitJob';
  data: JobQueuedData;
}

/** A worker picked the job from the queue: queued -> processing, attempt = previous attempts + 1. */
export interface StartJob {
  type: 'StartJob';
  data: { workerId: string; now: string };
}

/**
 * The processing attempt was lost (worker died, shut down, lease expired, handed back, or a dependency such as
 * storage failed for a moment): processing -> pending until `now + retryDelayMs`, or failed after MAX_ATTEMPTS,
 * with `exhausted` as the error code when given (what kept failing, e.g. storage_unavailable), else
 * attempts_exhausted. `attempt`, when given, must be the current one (a late report about an older attempt is stale).
 */
export interface LoseAttempt {
  type: 'LoseAttempt';
  data: { attempt?: number; reason: string; now: string; retryDelayMs: number; exhausted?: 'storage_unavailable' };
}

/** The backoff of a pending job is over: pending -> queued. */
export interface RequeueJob {
  type: 'RequeueJob';
  data: { now: string };
}

/** The engine produced output for `attempt`: processing -> succeeded. */
export interface CompleteJob {
  type: 'CompleteJob';
  data: { attempt: number; result: ResultObject; engine: JobSucceededData['engine']; now: string };
}

/**
 * The engine (or the service) gave up: any non-final state -> failed. With `attempt`, only that
 * attempt, while it is processing, may fail the job; without it (a sweep, an operator), any
 * non-final job fails.
 */
export interface FailJob {
  type: 'FailJob';
  data: { attempt?: number; error: { code: JobFailureCode; message: string }; now: string };
}

/** DELETE /jobs/{id}: any non-final state -> cancelled (spec 3, rules 1 and 2). */
export interface CancelJob {
  type: 'CancelJob';
  data: { now: string };
}

/**
 * The job's source and result were deleted from storage (their retention ran out, or an operator deleted them):
 * only a final job; a second report changes nothing.
 */
export interface DeleteJobFiles {
  type: 'DeleteJobFiles';
  data: { reason: 'retention' | 'operator'; now: string };
}

export type JobCommand = SubmitJob | StartJob | LoseAttempt | RequeueJob | CompleteJob | FailJob | CancelJob | DeleteJobFiles;
export type JobCommandType = JobCommand['type'];
