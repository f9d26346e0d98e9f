import {
  DomainError,
  ERROR_CODES,
  isFinalStatus,
  type JobEvent,
  type JobFailedData,
  type JobQueuedData,
  JOB_EVENT_TYPES,
} from '@upscaler/contracts';
import { type Decider, addMs, canonicalInstant, elapsedMs } from '@upscaler/domain';
import type {
  CancelJob,
  CompleteJob,
  FailJob,
  JobCommand,
  LoseAttempt,
  RequeueJob,
  StartJob,
  SubmitJob,
  DeleteJobFiles,
} from './job.commands';
import { initialJobState, type JobState } from './job.state';
import { creditsFor } from './target-policy';

/**
 * The job's state machine: spec section 3 plus our additions (docs/job-states.md has the full table).
 * Finish and cancel are both final, so whichever is appended first wins and the other is refused
 * with `conflict` (spec 3, rule 2: a cancel that loses the race answers 409; a finish that loses to an
 * earlier cancel is refused so the processor discards its result).
 */

/** A job is started at most this many times; losing the last attempt fails it with attempts_exhausted. */
export const MAX_ATTEMPTS = 3;

export const jobDecider: Decider<JobState, JobCommand, JobEvent> = {
  eventTypes: JOB_EVENT_TYPES,
  initialState: initialJobState,
  decide,
  evolve,
};

function decide(command: JobCommand, state: JobState): JobEvent[] {
  switch (command.type) {
    case 'SubmitJob':
      return submit(command, state);
    case 'StartJob':
      return start(command, state);
    case 'LoseAttempt':
      return loseAttempt(command, state);
    case 'RequeueJob':
      return requeue(command, state);
    case 'CompleteJob':
      return complete(command, state);
    case 'FailJob':
      return fail(command, state);
    case 'CancelJob':
      return cancel(command, state);
    case 'DeleteJobFiles':
      return deleteFiles(command, state);
  }
}

function submit({ data }: SubmitJob, state: JobState): JobEvent[] {
  if (state.status !== 'none') throw new DomainError('conflict', `Job ${data.jobId} already exists.`);
  // Spec 1: the job costs the credits of the target actually used (after the fallback).
  if (data.credits !== creditsFor(data.target)) {
    throw new DomainError('invalid_request', `A ${data.target} job costs ${creditsFor(data.target)} credits, not ${data.credits}.`);
  }
  return [{ type: 'JobQueued', data: { ...data, queuedAt: canonicalInstant(data.queuedAt, 'queuedAt') } }];
}

function start({ data }: StartJob, state: JobState): JobEvent[] {
  const job = existing(state);
  if (state.status !== 'queued') {
    throw new DomainError('conflict', `Job ${job.jobId} is ${state.status}; only a queued job can start.`);
  }
  if (!data.workerId) throw new DomainError('invalid_request', 'workerId is required.');
  return [
    {
      type: 'JobStarted',
      data: { jobId: job.jobId, attempt: state.attempts + 1, workerId: data.workerId, startedAt: canonicalInstant(data.now) },
    },
  ];
}

function loseAttempt({ data }: LoseAttempt, state: JobState): JobEvent[] {
  const job = existing(state);
  const running = runningAttempt(state, job, data.attempt, 'lose an attempt');
  if (!Number.isFinite(data.retryDelayMs) || data.retryDelayMs < 0) {
    throw new DomainError('invalid_request', 'retryDelayMs must be a non-negative number.');
  }
  const now = canonicalInstant(data.now);
  if (running.attempt >= MAX_ATTEMPTS) {
    return [
      {
        type: 'JobFailed',
        data: {
          jobId: job.jobId,
          attempt: running.attempt,
          error: {
            code: data.exhausted ?? 'attempts_exhausted',
            message: `${ERROR_CODES[data.exhausted ?? 'attempts_exhausted'].message} Attempt ${running.attempt} of ${MAX_ATTEMPTS} was lost: ${data.reason}`,
          },
          finishedAt: now,
          durationMs: elapsedMs(running.startedAt, now),
          ...settlementOf(job),
        },
      },
    ];
  }
  return [
    {
      type: 'JobAttemptLost',
      data: {
        jobId: job.jobId,
        attempt: running.attempt,
        reason: data.reason,
        lostAt: now,
        retryAt: addMs(now, Math.round(data.retryDelayMs)),
      },
    },
  ];
}

function requeue({ data }: RequeueJob, state: JobState): JobEvent[] {
  const job = existing(state);
  if (state.status !== 'pending') {
    throw new DomainError('conflict', `Job ${job.jobId} is ${state.status}; only a pending job can be requeued.`);
  }
  // `attempt` names the attempt the job is queued for: the next one to start.
  return [{ type: 'JobRequeued', data: { jobId: job.jobId, attempt: state.attempts + 1, requeuedAt: canonicalInstant(data.now) } }];
}

function complete({ data }: CompleteJob, state: JobState): JobEvent[] {
  const job = existing(state);
  // The same success reported twice (a retried append) changes nothing: the processor keeps its result.
  if (state.status === 'succeeded' && state.finalAttempt === data.attempt && state.result?.key === data.result.key) {
    return [];
  }
  // Spec 3, rule 2: a cancel appended first wins; the late result is refused and discarded.
  const running = runningAttempt(state, job, data.attempt, 'succeed');
  const now = canonicalInstant(data.now);
  return [
    {
      type: 'JobSucceeded',
      data: {
        jobId: job.jobId,
        attempt: running.attempt,
        result: data.result,
        engine: data.engine,
        finishedAt: now,
        durationMs: elapsedMs(running.startedAt, now),
        ...settlementOf(job),
      },
    },
  ];
}

function fail({ data }: FailJob, state: JobState): JobEvent[] {
  const job = existing(state);
  if (
    state.status === 'failed' &&
    data.attempt !== undefined &&
    state.finalAttempt === data.attempt &&
    state.error?.code === data.error.code
  ) {
    return [];
  }
  const now = canonicalInstant(data.now);
  if (data.attempt !== undefined) {
    const running = runningAttempt(state, job, data.attempt, 'fail');
    return [failed(job, running.attempt, data.error, now, elapsedMs(running.startedAt, now))];
  }
  notFinal(state, job, 'fail');
  const durationMs = state.running ? elapsedMs(state.running.startedAt, now) : null;
  return [failed(job, state.attempts, data.error, now, durationMs)];
}

function cancel({ data }: CancelJob, state: JobState): JobEvent[] {
  const job = existing(state);
  // Spec 3, rules 1 and 2: a final job (also one whose finish won a race) cannot be cancelled: 409.
  if (isJobFinal(state)) throw new DomainError('conflict');
  const now = canonicalInstant(data.now);
  return [
    {
      type: 'JobCancelled',
      data: {
        jobId: job.jobId,
        cancelledAt: now,
        durationMs: state.running ? elapsedMs(state.running.startedAt, now) : null,
        ...settlementOf(job),
      },
    },
  ];
}

function deleteFiles({ data }: DeleteJobFiles, state: JobState): JobEvent[] {
  const job = existing(state);
  if (!isJobFinal(state)) {
    throw new DomainError('conflict', `Job ${job.jobId} is ${state.status}; only a final job's files can be deleted.`);
  }
  if (state.filesDeletedAt) return [];
  return [
    {
      type: 'JobFilesDeleted',
      data: { jobId: job.jobId, accountId: job.accountId, reason: data.reason, deletedAt: canonicalInstant(data.now) },
    },
  ];
}

function failed(
  job: JobQueuedData,
  attempt: number,
  error: JobFailedData['error'],
  finishedAt: string,
  durationMs: number | null,
): JobEvent {
  return {
    type: 'JobFailed',
    data: { jobId: job.jobId, attempt, error: { code: error.code, message: error.message }, finishedAt, durationMs, ...settlementOf(job) },
  };
}

/**
 * What a final event settles (docs/design.md §2, settled on final): the job's one-time finish is its charge
 * (succeeded) or refund (failed, cancelled), carried with the account and credits so the balance
 * projection and every consumer need no other stream.
 */
function settlementOf(job: JobQueuedData): { accountId: string; credits: number } {
  return { accountId: job.accountId, credits: job.credits };
}

function existing(state: JobState): JobQueuedData {
  if (state.status === 'none' || state.job === null) throw new DomainError('job_not_found');
  return state.job;
}

export function isJobFinal(state: JobState): boolean {
  return state.status !== 'none' && isFinalStatus(state.status);
}

function notFinal(state: JobState, job: JobQueuedData, action: string): void {
  if (isJobFinal(state)) {
    throw new DomainError('conflict', `Job ${job.jobId} is already ${state.status}; it cannot ${action}.`);
  }
}

/**
 * The running attempt, which must be `attempt` when one is named. Anything else is stale or final:
 * a report about an attempt that was lost, or that arrives after the job finished or was cancelled.
 */
function runningAttempt(state: JobState, job: JobQueuedData, attempt: number | undefined, action: string) {
  const jobId = job.jobId;
  notFinal(state, job, action);
  if (state.status !== 'processing' || state.running === null) {
    throw new DomainError('conflict', `Job ${jobId} is ${state.status}, not processing; it cannot ${action}.`);
  }
  if (attempt !== undefined && attempt !== state.running.attempt) {
    throw new DomainError('conflict', `Attempt ${attempt} of job ${jobId} is stale: attempt ${state.running.attempt} is running.`);
  }
  return state.running;
}

function evolve(state: JobState, event: JobEvent): JobState {
  switch (event.type) {
    case 'JobQueued':
      return { ...initialJobState(), status: 'queued', job: event.data };
    case 'JobStarted':
      return {
        ...state,
        status: 'processing',
        attempts: event.data.attempt,
        running: { attempt: event.data.attempt, workerId: event.data.workerId, startedAt: event.data.startedAt },
        startedAt: event.data.startedAt,
        retryAt: null,
      };
    case 'JobAttemptLost':
      return {
        ...state,
        status: 'pending',
        running: null,
        retryAt: event.data.retryAt,
        lastLoss: { attempt: event.data.attempt, reason: event.data.reason, lostAt: event.data.lostAt },
      };
    case 'JobRequeued':
      return { ...state, status: 'queued', retryAt: null };
    case 'JobSucceeded':
      return {
        ...state,
        status: 'succeeded',
        running: null,
        retryAt: null,
        result: event.data.result,
        engine: event.data.engine,
        finalAttempt: event.data.attempt,
        finishedAt: event.data.finishedAt,
        durationMs: event.data.durationMs,
      };
    case 'JobFailed':
      return {
        ...state,
        status: 'failed',
        running: null,
        retryAt: null,
        error: event.data.error,
        finalAttempt: event.data.attempt,
        finishedAt: event.data.finishedAt,
        durationMs: event.data.durationMs,
      };
    case 'JobCancelled':
      return {
        ...state,
        status: 'cancelled',
        running: null,
        retryAt: null,
        finishedAt: event.data.cancelledAt,
        durationMs: event.data.durationMs,
      };
    case 'JobFilesDeleted':
      return { ...state, filesDeletedAt: event.data.deletedAt };
  }
}
