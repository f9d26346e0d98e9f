import type { JobEvent } from '@upscaler/contracts';
import { foldEvents, DeciderSpecification } from '@upscaler/domain';
import { A_RESULT, AN_ENGINE_REPORT, JOB_ID, SETTLEMENT, T0, aJobQueuedData, at, jobEvents as ev } from './job.fixtures';
import type { JobCommand } from './job.commands';
import { MAX_ATTEMPTS, jobDecider } from './job.decider';
import { filesExpireAt, isDueForRequeue } from './job.state';

const spec = DeciderSpecification.for(jobDecider);

const start = (nowMs: number, workerId = 'worker-1'): JobCommand => ({ type: 'StartJob', data: { workerId, now: at(nowMs) } });
const lose = (nowMs: number, retryDelayMs: number, attempt?: number, reason = 'lease expired'): JobCommand => ({
  type: 'LoseAttempt',
  data: { attempt, reason, now: at(nowMs), retryDelayMs },
});
const requeue = (nowMs: number): JobCommand => ({ type: 'RequeueJob', data: { now: at(nowMs) } });
const complete = (attempt: number, nowMs: number): JobCommand => ({
  type: 'CompleteJob',
  data: { attempt, result: A_RESULT, engine: AN_ENGINE_REPORT, now: at(nowMs) },
});
const failJob = (nowMs: number, attempt?: number, code: 'engine_error' | 'corrupt_image' = 'engine_error'): JobCommand => ({
  type: 'FailJob',
  data: { attempt, error: { code, message: `${code} happened` }, now: at(nowMs) },
});
const cancel = (nowMs: number): JobCommand => ({ type: 'CancelJob', data: { now: at(nowMs) } });

// Streams that end in each state.
const queued = [ev.queued()];
const processing = [ev.queued(), ev.started(1, 1_000)];
const pending = [...processing, ev.lost(1, 5_000, 2_000)];
const requeued = [...pending, ev.requeued(2, 7_000)];
const processing2 = [...requeued, ev.started(2, 8_000, 'worker-2')];
const succeeded = [...processing, ev.succeeded(1, 4_000, 3_000)];
const failed = [...processing, ev.failed(1, 4_000, 3_000)];
const cancelled = [...queued, ev.cancelled(500, null)];
const finals: Array<[string, JobEvent[]]> = [
  ['succeeded', succeeded],
  ['failed', failed],
  ['cancelled', cancelled],
];

describe('job decider: the state table (spec 3 and docs/job-states.md)', () => {
  describe('(none) -> queued', () => {
    it('POST /upscale accepted: SubmitJob on an empty stream appends JobQueued with the reserved credits', () => {
      spec
        .given([])
        .when({ type: 'SubmitJob', data: aJobQueuedData() })
        .then([{ type: 'JobQueued', data: aJobQueuedData() }]);
    });

    it('records the fallen-back target and the credits of that target (spec 1 fallback)', () => {
      const data = aJobQueuedData({ target: '3k', requestedTarget: '4k', credits: 6 });
      spec
        .given([])
        .when({ type: 'SubmitJob', data })
        .then([{ type: 'JobQueued', data }]);
    });

    it('writes queuedAt in canonical ISO form', () => {
      const data = aJobQueuedData({ queuedAt: '2026-01-01T00:00:00Z' });
      spec
        .given([])
        .when({ type: 'SubmitJob', data })
        .then([{ type: 'JobQueued', data: { ...data, queuedAt: T0 } }]);
    });

    it('refuses credits that are not the price of the target: invalid_request', () => {
      spec
        .given([])
        .when({ type: 'SubmitJob', data: aJobQueuedData({ target: '4k', credits: 3 }) })
        .thenThrows('invalid_request', 'A 4k job costs 9 credits, not 3.');
    });

    it.each([['queued', queued], ['processing', processing], ...finals] as Array<[string, JobEvent[]]>)(
      'SubmitJob on an existing (%s) stream is a conflict',
      (_s, given) => {
        spec.given(given).when({ type: 'SubmitJob', data: aJobQueuedData() }).thenThrows('conflict', `Job ${JOB_ID} already exists.`);
      },
    );
  });

  describe('queued -> processing', () => {
    it('StartJob starts attempt 1 with the worker and the start time', () => {
      spec
        .given(queued)
        .when(start(1_000))
        .then([{ type: 'JobStarted', data: { jobId: JOB_ID, attempt: 1, workerId: 'worker-1', startedAt: at(1_000) } }]);
    });

    it('after a lost attempt, StartJob starts attempt previous attempts + 1', () => {
      spec
        .given(requeued)
        .when(start(8_000, 'worker-2'))
        .then([{ type: 'JobStarted', data: { jobId: JOB_ID, attempt: 2, workerId: 'worker-2', startedAt: at(8_000) } }]);
    });

    it('StartJob on a job already processing is a conflict (a second worker must not run it)', () => {
      spec
        .given(processing)
        .when(start(1_500, 'worker-2'))
        .thenThrows('conflict', `Job ${JOB_ID} is processing; only a queued job can start.`);
    });

    it('StartJob on a pending job is a conflict: it waits for its backoff', () => {
      spec.given(pending).when(start(6_000)).thenThrows('conflict');
    });

    it.each(finals)('StartJob on a %s job is a conflict', (_s, given) => {
      spec.given(given).when(start(9_000)).thenThrows('conflict');
    });

    it('StartJob without a worker id is invalid', () => {
      spec.given(queued).when(start(1_000, '')).thenThrows('invalid_request');
    });
  });

  describe('processing -> pending (a lost attempt waits, with backoff, to re-enter the queue)', () => {
    it('LoseAttempt moves the job to pending with retryAt = now + retryDelayMs', () => {
      spec
        .given(processing)
        .when(lose(5_000, 2_000, undefined, 'worker shut down'))
        .then([
          {
            type: 'JobAttemptLost',
            data: { jobId: JOB_ID, attempt: 1, reason: 'worker shut down', lostAt: at(5_000), retryAt: at(7_000) },
          },
        ]);
    });

    it('LoseAttempt naming the running attempt is accepted', () => {
      spec
        .given(processing2)
        .when(lose(9_000, 4_000, 2))
        .then([
          { type: 'JobAttemptLost', data: { jobId: JOB_ID, attempt: 2, reason: 'lease expired', lostAt: at(9_000), retryAt: at(13_000) } },
        ]);
    });

    it('LoseAttempt naming an older attempt is stale: conflict', () => {
      spec
        .given(processing2)
        .when(lose(9_000, 4_000, 1))
        .thenThrows('conflict', `Attempt 1 of job ${JOB_ID} is stale: attempt 2 is running.`);
    });

    it.each([
      ['attempts_exhausted (a lost worker)', undefined, 'worker died', 'Processing was interrupted too many times.'],
      [
        'the code the loss names (storage_unavailable)',
        'storage_unavailable' as const,
        'storage unavailable: ENOSPC: no space left on device',
        'Storage could not be read or written on any attempt (full, read-only or unreachable).',
      ],
    ])(`losing attempt ${MAX_ATTEMPTS} (of ${MAX_ATTEMPTS}) fails the job with %s instead, refunded`, (_, exhausted, reason, message) => {
      const third = [...processing2, ev.lost(2, 9_000, 4_000), ev.requeued(3, 13_000), ev.started(3, 14_000, 'worker-3')];
      spec
        .given(third)
        .when({
          type: 'LoseAttempt',
          data: { attempt: 3, reason, now: at(20_000), retryDelayMs: 8_000, ...(exhausted ? { exhausted } : {}) },
        })
        .then([
          {
            type: 'JobFailed',
            data: {
              jobId: JOB_ID,
              attempt: 3,
              error: { code: exhausted ?? 'attempts_exhausted', message: `${message} Attempt 3 of 3 was lost: ${reason}` },
              finishedAt: at(20_000),
              durationMs: 6_000,
              ...SETTLEMENT,
            },
          },
        ]);
    });

    it.each([['queued', queued], ['pending', pending], ...finals] as Array<[string, JobEvent[]]>)(
      'LoseAttempt on a %s job is a conflict (only a running attempt can be lost)',
      (_s, given) => {
        spec.given(given).when(lose(9_000, 1_000)).thenThrows('conflict');
      },
    );

    it('a negative retry delay is invalid', () => {
      spec.given(processing).when(lose(5_000, -1)).thenThrows('invalid_request');
    });
  });

  describe('pending -> queued', () => {
    it('RequeueJob puts the job back in the queue for the next attempt', () => {
      spec
        .given(pending)
        .when(requeue(7_000))
        .then([{ type: 'JobRequeued', data: { jobId: JOB_ID, attempt: 2, requeuedAt: at(7_000) } }]);
    });

    it.each([['queued', queued], ['processing', processing], ...finals] as Array<[string, JobEvent[]]>)(
      'RequeueJob on a %s job is a conflict (a repeated requeue changes nothing in the log)',
      (_s, given) => {
        spec.given(given).when(requeue(7_000)).thenThrows('conflict');
      },
    );

    it('isDueForRequeue tells the scheduler when the backoff is over', () => {
      const state = foldEvents(jobDecider, pending);
      expect([isDueForRequeue(state, at(6_999)), isDueForRequeue(state, at(7_000))]).toEqual([false, true]);
      expect(isDueForRequeue(foldEvents(jobDecider, queued), at(99_000))).toBe(false);
    });
  });

  describe('processing -> succeeded (the work finishes)', () => {
    it('CompleteJob for the running attempt appends JobSucceeded with duration = now - startedAt', () => {
      spec
        .given(processing)
        .when(complete(1, 4_000))
        .then([
          {
            type: 'JobSucceeded',
            data: {
              jobId: JOB_ID,
              attempt: 1,
              result: A_RESULT,
              engine: AN_ENGINE_REPORT,
              finishedAt: at(4_000),
              durationMs: 3_000,
              ...SETTLEMENT,
            },
          },
        ]);
    });

    it('duration counts the successful attempt only, not the lost ones', () => {
      spec
        .given(processing2)
        .when(complete(2, 10_500))
        .then([
          {
            type: 'JobSucceeded',
            data: {
              jobId: JOB_ID,
              attempt: 2,
              result: A_RESULT,
              engine: AN_ENGINE_REPORT,
              finishedAt: at(10_500),
              durationMs: 2_500,
              ...SETTLEMENT,
            },
          },
        ]);
    });

    it('CompleteJob for a stale attempt is a conflict', () => {
      spec
        .given(processing2)
        .when(complete(1, 10_000))
        .thenThrows('conflict', `Attempt 1 of job ${JOB_ID} is stale: attempt 2 is running.`);
    });

    it.each([
      ['queued', queued],
      ['pending', pending],
    ] as Array<[string, JobEvent[]]>)('CompleteJob on a %s job (its attempt was lost) is a conflict', (_s, given) => {
      spec.given(given).when(complete(1, 9_000)).thenThrows('conflict');
    });

    it('spec 3 rule 2: CompleteJob after the job was cancelled is a conflict, so the processor discards its result', () => {
      spec
        .given([...processing, ev.cancelled(2_000, 1_000)])
        .when(complete(1, 4_000))
        .thenThrows('conflict', `Job ${JOB_ID} is already cancelled; it cannot succeed.`);
    });

    it('CompleteJob after the job failed is a conflict', () => {
      spec.given(failed).when(complete(1, 5_000)).thenThrows('conflict');
    });

    it('the same success reported twice changes nothing (a retried append keeps its result)', () => {
      spec.given(succeeded).when(complete(1, 4_200)).thenNothing();
    });

    it('a different success for a succeeded job is a conflict', () => {
      spec
        .given(succeeded)
        .when({
          type: 'CompleteJob',
          data: { attempt: 1, result: { ...A_RESULT, key: 'results/other.png' }, engine: AN_ENGINE_REPORT, now: at(4_100) },
        })
        .thenThrows('conflict');
    });
  });

  describe('non-final -> failed (the engine gives up)', () => {
    it('FailJob for the running attempt records the error and the attempt duration', () => {
      spec
        .given(processing)
        .when(failJob(3_500, 1, 'corrupt_image'))
        .then([
          {
            type: 'JobFailed',
            data: {
              jobId: JOB_ID,
              attempt: 1,
              error: { code: 'corrupt_image', message: 'corrupt_image happened' },
              finishedAt: at(3_500),
              durationMs: 2_500,
              ...SETTLEMENT,
            },
          },
        ]);
    });

    it('FailJob without an attempt fails a processing job too, with its duration', () => {
      spec
        .given(processing)
        .when(failJob(3_000))
        .then([
          {
            type: 'JobFailed',
            data: {
              jobId: JOB_ID,
              attempt: 1,
              error: { code: 'engine_error', message: 'engine_error happened' },
              finishedAt: at(3_000),
              durationMs: 2_000,
              ...SETTLEMENT,
            },
          },
        ]);
    });

    it('FailJob on a queued job (never started) has attempt 0 and no duration', () => {
      spec
        .given(queued)
        .when(failJob(800))
        .then([
          {
            type: 'JobFailed',
            data: {
              jobId: JOB_ID,
              attempt: 0,
              error: { code: 'engine_error', message: 'engine_error happened' },
              finishedAt: at(800),
              durationMs: null,
              ...SETTLEMENT,
            },
          },
        ]);
    });

    it('FailJob on a pending job has the last attempt and no duration', () => {
      spec
        .given(pending)
        .when(failJob(6_000))
        .then([
          {
            type: 'JobFailed',
            data: {
              jobId: JOB_ID,
              attempt: 1,
              error: { code: 'engine_error', message: 'engine_error happened' },
              finishedAt: at(6_000),
              durationMs: null,
              ...SETTLEMENT,
            },
          },
        ]);
    });

    it('FailJob for a stale attempt is a conflict', () => {
      spec.given(processing2).when(failJob(9_000, 1)).thenThrows('conflict');
    });

    it('FailJob naming an attempt that was already lost (job pending) is a conflict', () => {
      spec.given(pending).when(failJob(6_000, 1)).thenThrows('conflict');
    });

    it.each(finals)('FailJob on a %s job is a conflict', (_s, given) => {
      spec.given(given).when(failJob(9_000)).thenThrows('conflict');
    });

    it('the same failure reported twice changes nothing', () => {
      spec.given(failed).when(failJob(4_100, 1)).thenNothing();
    });
  });

  describe('non-final -> cancelled (DELETE /jobs/{id})', () => {
    it('cancelling a queued job records no duration', () => {
      spec
        .given(queued)
        .when(cancel(500))
        .then([{ type: 'JobCancelled', data: { jobId: JOB_ID, cancelledAt: at(500), durationMs: null, ...SETTLEMENT } }]);
    });

    it('cancelling a pending job records no duration', () => {
      spec
        .given(pending)
        .when(cancel(6_000))
        .then([{ type: 'JobCancelled', data: { jobId: JOB_ID, cancelledAt: at(6_000), durationMs: null, ...SETTLEMENT } }]);
    });

    it('cancelling a processing job records the time the running attempt worked', () => {
      spec
        .given(processing2)
        .when(cancel(9_250))
        .then([{ type: 'JobCancelled', data: { jobId: JOB_ID, cancelledAt: at(9_250), durationMs: 1_250, ...SETTLEMENT } }]);
    });

    it.each(finals)('spec 3 rule 1: cancel of a %s job answers 409 conflict', (_s, given) => {
      spec.given(given).when(cancel(9_000)).thenThrows('conflict', 'The job already reached a final state.');
    });

    it('spec 3 rule 2: finish beats cancel: a cancel appended after JobSucceeded is a conflict and the job stays succeeded', () => {
      spec.given(succeeded).when(cancel(4_001)).thenThrows('conflict');
      expect(foldEvents(jobDecider, succeeded).status).toBe('succeeded');
    });
  });

  describe('commands on a job that does not exist', () => {
    it.each([start(0), lose(0, 0), requeue(0), complete(1, 0), failJob(0), cancel(0)])('$type answers job_not_found', (command) => {
      spec.given([]).when(command).thenThrows('job_not_found');
    });
  });

  describe('times come with the command', () => {
    it('a `now` that is not an ISO 8601 time is invalid', () => {
      spec
        .given(queued)
        .when({ type: 'CancelJob', data: { now: 'yesterday' } })
        .thenThrows('invalid_request');
    });

    it('a duration is never negative even when the finishing clock is behind the starting one', () => {
      spec
        .given(processing)
        .when(cancel(900))
        .then([{ type: 'JobCancelled', data: { jobId: JOB_ID, cancelledAt: at(900), durationMs: 0, ...SETTLEMENT } }]);
    });
  });

  it('a whole life: three attempts lost in a row end in failed/attempts_exhausted, never a fourth start', () => {
    let events: JobEvent[] = [];
    const run = (command: JobCommand) => {
      const produced = jobDecider.decide(command, foldEvents(jobDecider, events));
      events = [...events, ...produced];
      return produced.map((e) => e.type);
    };
    const trace = [
      run({ type: 'SubmitJob', data: aJobQueuedData() }),
      run(start(1_000)),
      run(lose(2_000, 1_000)),
      run(requeue(3_000)),
      run(start(3_500)),
      run(lose(4_000, 2_000)),
      run(requeue(6_000)),
      run(start(6_500)),
      run(lose(7_000, 4_000)),
    ];
    expect(trace).toEqual([
      ['JobQueued'],
      ['JobStarted'],
      ['JobAttemptLost'],
      ['JobRequeued'],
      ['JobStarted'],
      ['JobAttemptLost'],
      ['JobRequeued'],
      ['JobStarted'],
      ['JobFailed'],
    ]);
    const state = foldEvents(jobDecider, events);
    expect([state.status, state.attempts, state.error?.code, state.durationMs]).toEqual(['failed', 3, 'attempts_exhausted', 500]);
    expect(() => run(start(8_000))).toThrow(`Job ${JOB_ID} is failed; only a queued job can start.`);
  });
});

describe('retention: a final job\'s files are deleted (docs/operations.md "Retention")', () => {
  const deleteFiles = (nowMs: number, reason: 'retention' | 'operator' = 'retention'): JobCommand => ({
    type: 'DeleteJobFiles',
    data: { reason, now: at(nowMs) },
  });
  const deleted = (atMs: number, reason: 'retention' | 'operator' = 'retention'): JobEvent => ({
    type: 'JobFilesDeleted',
    data: { jobId: JOB_ID, accountId: SETTLEMENT.accountId, reason, deletedAt: at(atMs) },
  });

  it.each(finals)('a %s job: DeleteJobFiles appends JobFilesDeleted with the reason and time', (_, given) => {
    spec
      .given(given)
      .when(deleteFiles(90_000, 'operator'))
      .then([deleted(90_000, 'operator')]);
  });

  it('a second deletion changes nothing', () => {
    spec
      .given([...succeeded, deleted(90_000)])
      .when(deleteFiles(95_000))
      .then([]);
  });

  it.each([
    ['queued', queued],
    ['processing', processing],
    ['pending', pending],
  ] as const)('a %s job keeps its files: conflict', (status, given) => {
    spec
      .given(given)
      .when(deleteFiles(90_000))
      .thenThrows('conflict', `Job ${JOB_ID} is ${status}; only a final job's files can be deleted.`);
  });

  it('files_expire_at: finish + the retention the job was accepted with, or an earlier deletion; null while unfinished or kept', () => {
    const kept = [ev.queued({ fileRetentionSeconds: 60 }), ev.started(1, 1_000), ev.succeeded(1, 4_000, 3_000)];
    expect(filesExpireAt(foldEvents(jobDecider, kept))).toBe(at(64_000));
    expect(filesExpireAt(foldEvents(jobDecider, [ev.queued({ fileRetentionSeconds: 60 }), ev.cancelled(500, null)]))).toBe(at(60_500));
    // the sweep deleting them later does not move the promise; an operator deleting them sooner does
    expect(filesExpireAt(foldEvents(jobDecider, [...kept, deleted(70_000)]))).toBe(at(64_000));
    expect(filesExpireAt(foldEvents(jobDecider, [...kept, deleted(10_000, 'operator')]))).toBe(at(10_000));
    expect(filesExpireAt(foldEvents(jobDecider, [...succeeded, deleted(30_000, 'operator')]))).toBe(at(30_000));
    expect(filesExpireAt(foldEvents(jobDecider, [ev.queued({ fileRetentionSeconds: 60 }), ev.started(1, 1_000)]))).toBeNull();
    expect(filesExpireAt(foldEvents(jobDecider, succeeded))).toBeNull();
  });
});
