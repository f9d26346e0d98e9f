import {
  DEFAULT_CONTENT,
  isFinalStatus,
  type ContentHint,
  type JobFailureCode,
  type JobQueuedData,
  type JobStatus,
  type JobSucceededData,
  type ResultObject,
} from '@upscaler/contracts';

/** The attempt that is running while the job is processing. */
export interface RunningAttempt {
  attempt: number;
  workerId: string;
  startedAt: string;
}

/** Why and when the last attempt was lost (kept for operations; not part of the public view). */
export interface LostAttempt {
  attempt: number;
  reason: string;
  lostAt: string;
}

/**
 * Everything the job views and the job's commands need, folded from its stream.
 * `status: 'none'` is the empty stream (no JobQueued yet).
 */
export interface JobState {
  status: JobStatus | 'none';
  /** All JobQueued data: ids, target, requested target, format, quality, content, filename, credits, source. */
  job: JobQueuedData | null;
  /** How many attempts were started (the number of JobStarted events). */
  attempts: number;
  /** Set while processing. */
  running: RunningAttempt | null;
  /**
   * When the latest attempt started (kept after it ends; null before any). Absent from read-model rows written
   * before 2026-11-24: read it with `startedAtOf`.
   */
  startedAt?: string | null;
  /** Set while pending: when the job may re-enter the queue. */
  retryAt: string | null;
  lastLoss: LostAttempt | null;
  result: ResultObject | null;
  engine: JobSucceededData['engine'] | null;
  error: { code: JobFailureCode; message: string } | null;
  /** The attempt named by JobSucceeded/JobFailed, to recognise a repeated report of the same finish. */
  finalAttempt: number | null;
  finishedAt: string | null;
  durationMs: number | null;
  /** When the source and result were deleted (JobFilesDeleted); absent from rows written before retention existed. */
  filesDeletedAt?: string | null;
}

export function initialJobState(): JobState {
  return {
    status: 'none',
    job: null,
    attempts: 0,
    running: null,
    startedAt: null,
    retryAt: null,
    lastLoss: null,
    result: null,
    engine: null,
    error: null,
    finalAttempt: null,
    finishedAt: null,
    durationMs: null,
    filesDeletedAt: null,
  };
}

/**
 * When the job's source and result are (or were) deleted: once final, its finish plus the retention it was accepted
 * with (the sweep deleting them a little later does not move it), or when an operator deleted them, if earlier; null
 * while unfinished, or when its files are kept and were not deleted.
 */
export function filesExpireAt(state: JobState): string | null {
  const retention = state.job?.fileRetentionSeconds;
  const promised =
    retention === undefined || state.finishedAt === null || !isFinalStatus(state.status as JobStatus)
      ? null
      : new Date(Date.parse(state.finishedAt) + retention * 1000).toISOString();
  const deleted = state.filesDeletedAt ?? null;
  if (promised === null || deleted === null) return promised ?? deleted;
  return Date.parse(deleted) < Date.parse(promised) ? deleted : promised;
}

/** Whether the job's files are gone (or due to go: the sweep may not have run yet) at `now`: from files_expire_at on. */
export function filesExpired(state: JobState, now: string): boolean {
  const expiresAt = filesExpireAt(state);
  return expiresAt !== null && Date.parse(expiresAt) <= Date.parse(now);
}

/** A pending job whose backoff is over may be requeued (the scheduler's question; decide does not check it). */
export function isDueForRequeue(state: JobState, now: string): boolean {
  return state.status === 'pending' && state.retryAt !== null && Date.parse(state.retryAt) <= Date.parse(now);
}

/** When the latest attempt started, also for states stored before `startedAt` was kept (then only while running). */
export function startedAtOf(state: JobState): string | null {
  return state.startedAt ?? state.running?.startedAt ?? null;
}

/** The job's content hint; a JobQueued written before the hint existed carries none and is photo. */
export function contentOf(job: JobQueuedData): ContentHint {
  return job.content ?? DEFAULT_CONTENT;
}
