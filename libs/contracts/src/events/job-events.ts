import type { ContentHint, InputFormat, OutputFormat, QualityTier, RequestedSize, Target } from '../job';
import type { JobFailureCode } from '../errors';

/** Events of a `job-…` stream, data v1. Times are ISO 8601 UTC strings. */
export interface SourceObject {
  /** Object storage key of the original upload. */
  key: string;
  bytes: number;
  contentType: string;
  format: InputFormat;
  width: number;
  height: number;
  /**
   * A small WebP of the source for job lists (at most 160 px a side), stored when the job was accepted. Absent on
   * jobs accepted before thumbnails existed, and where the decoder could not make one.
   */
  thumbnail?: ThumbnailObject;
}

export interface ThumbnailObject {
  key: string;
  bytes: number;
  width: number;
  height: number;
}

export interface ResultObject {
  key: string;
  bytes: number;
  contentType: string;
  width: number;
  height: number;
}

export interface JobQueuedData {
  jobId: string;
  accountId: string;
  apiKeyId: string;
  /** The target actually used (after the spec's fallback). */
  target: Target;
  requestedTarget: Target;
  format: OutputFormat;
  quality: QualityTier;
  /** The content hint. Absent on events written before it existed: those jobs are photo (contentOf). */
  content?: ContentHint;
  filename: string | null;
  credits: number;
  source: SourceObject;
  /**
   * The pixel size asked for instead of a target (additive request fields width / height / fit): target is then the
   * smallest that reaches it, and the result is resized to it. Absent when the request gave a target (and on events
   * written before it existed).
   */
  size?: RequestedSize;
  /**
   * How long the job's source and result are kept once it is final, in seconds (the service's UPSCALE_FILE_RETENTION
   * when it was accepted: the promise made to the caller). Absent: kept until an operator deletes them.
   */
  fileRetentionSeconds?: number;
  idempotencyKey: string | null;
  queuedAt: string;
}

export interface JobStartedData {
  jobId: string;
  attempt: number;
  workerId: string;
  startedAt: string;
}

/** A processing attempt was lost (worker died, shut down, or handed the job back): job goes to pending. */
export interface JobAttemptLostData {
  jobId: string;
  attempt: number;
  reason: string;
  lostAt: string;
  /** When the job may re-enter the queue (backoff). */
  retryAt: string;
}

/** pending -> queued. */
export interface JobRequeuedData {
  jobId: string;
  attempt: number;
  requeuedAt: string;
}

export interface JobSucceededData {
  jobId: string;
  attempt: number;
  result: ResultObject;
  /** Networks/tile stats for observability. */
  engine: { network: string; scale: number; engineMs: number; tiles: number };
  finishedAt: string;
  durationMs: number;
  /**
   * The settlement this final event is (docs/design.md §2, settled on final): the account whose reservation it
   * charges (succeeded) or refunds (failed, cancelled), and the job's credits. The balance projection
   * applies it in the same transaction, so no view shows the job final before its credits moved.
   * Absent on events written before 2026-11-24 (those were settled by CreditsCharged/CreditsRefunded).
   */
  accountId: string;
  credits: number;
}

export interface JobFailedData {
  jobId: string;
  attempt: number;
  error: { code: JobFailureCode; message: string };
  finishedAt: string;
  durationMs: number | null;
  /**
   * The settlement this final event is (docs/design.md §2, settled on final): the account whose reservation it
   * charges (succeeded) or refunds (failed, cancelled), and the job's credits. The balance projection
   * applies it in the same transaction, so no view shows the job final before its credits moved.
   * Absent on events written before 2026-11-24 (those were settled by CreditsCharged/CreditsRefunded).
   */
  accountId: string;
  credits: number;
}

export interface JobCancelledData {
  jobId: string;
  cancelledAt: string;
  /** Null when it was cancelled before any processing started. */
  durationMs: number | null;
  /**
   * The settlement this final event is (docs/design.md §2, settled on final): the account whose reservation it
   * charges (succeeded) or refunds (failed, cancelled), and the job's credits. The balance projection
   * applies it in the same transaction, so no view shows the job final before its credits moved.
   * Absent on events written before 2026-11-24 (those were settled by CreditsCharged/CreditsRefunded).
   */
  accountId: string;
  credits: number;
}

/** The job's source and result were deleted from storage: their retention ran out, or an operator deleted them. */
export interface JobFilesDeletedData {
  jobId: string;
  accountId: string;
  reason: 'retention' | 'operator';
  deletedAt: string;
}

export type JobEvent =
  | { type: 'JobQueued'; data: JobQueuedData }
  | { type: 'JobStarted'; data: JobStartedData }
  | { type: 'JobAttemptLost'; data: JobAttemptLostData }
  | { type: 'JobRequeued'; data: JobRequeuedData }
  | { type: 'JobSucceeded'; data: JobSucceededData }
  | { type: 'JobFailed'; data: JobFailedData }
  | { type: 'JobCancelled'; data: JobCancelledData }
  | { type: 'JobFilesDeleted'; data: JobFilesDeletedData };

export type JobEventType = JobEvent['type'];
export const JOB_EVENT_TYPES: readonly JobEventType[] = [
  'JobQueued',
  'JobStarted',
  'JobAttemptLost',
  'JobRequeued',
  'JobSucceeded',
  'JobFailed',
  'JobCancelled',
  'JobFilesDeleted',
];
