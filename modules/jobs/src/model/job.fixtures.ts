import type { JobEvent, JobQueuedData, JobSucceededData, ResultObject } from '@upscaler/contracts';

import { T0, at } from '@upscaler/domain';

/**
 * Plain-data fixtures for job streams, shared by the jobs specs and any test that needs a realistic job without
 * running the api. Times are offsets (ms) from T0.
 */
export { T0, at };

export const JOB_ID = 'job_0190a1b2c3d47e8f9a0b1c2d3e4f5a6b';

export function aJobQueuedData(overrides: Partial<JobQueuedData> = {}): JobQueuedData {
  return {
    jobId: JOB_ID,
    accountId: 'acct_0190a1b2c3d47e8f9a0b1c2d3e4f5a6c',
    apiKeyId: 'key_0190a1b2c3d47e8f9a0b1c2d3e4f5a6d',
    target: '2k',
    requestedTarget: '2k',
    format: 'png',
    quality: 'balanced',
    filename: 'cat.jpg',
    credits: 3,
    source: { key: `sources/${JOB_ID}`, bytes: 48213, contentType: 'image/jpeg', format: 'jpeg', width: 640, height: 480 },
    idempotencyKey: null,
    queuedAt: T0,
    ...overrides,
  };
}

export const A_RESULT: ResultObject = {
  key: `results/${JOB_ID}.png`,
  bytes: 1523004,
  contentType: 'image/png',
  width: 1280,
  height: 960,
};
export const AN_ENGINE_REPORT: JobSucceededData['engine'] = { network: 'esrgan-slim-x2', scale: 2, engineMs: 1840, tiles: 4 };

/** The account and credits of aJobQueuedData(), which every final event of that job carries. */
export const SETTLEMENT = { accountId: 'acct_0190a1b2c3d47e8f9a0b1c2d3e4f5a6c', credits: 3 };

/** Events for the usual moves, so a test can write given([queued(), started(1, 1000)]). */
export const jobEvents = {
  queued: (overrides: Partial<JobQueuedData> = {}): JobEvent => ({ type: 'JobQueued', data: aJobQueuedData(overrides) }),
  started: (attempt: number, atMs: number, workerId = 'worker-1'): JobEvent => ({
    type: 'JobStarted',
    data: { jobId: JOB_ID, attempt, workerId, startedAt: at(atMs) },
  }),
  lost: (attempt: number, atMs: number, retryDelayMs: number, reason = 'lease expired'): JobEvent => ({
    type: 'JobAttemptLost',
    data: { jobId: JOB_ID, attempt, reason, lostAt: at(atMs), retryAt: at(atMs + retryDelayMs) },
  }),
  requeued: (attempt: number, atMs: number): JobEvent => ({
    type: 'JobRequeued',
    data: { jobId: JOB_ID, attempt, requeuedAt: at(atMs) },
  }),
  succeeded: (attempt: number, atMs: number, durationMs: number): JobEvent => ({
    type: 'JobSucceeded',
    data: { jobId: JOB_ID, attempt, result: A_RESULT, engine: AN_ENGINE_REPORT, finishedAt: at(atMs), durationMs, ...SETTLEMENT },
  }),
  failed: (
    attempt: number,
    atMs: number,
    durationMs: number | null,
    code: 'engine_error' | 'corrupt_image' = 'engine_error',
  ): JobEvent => ({
    type: 'JobFailed',
    data: { jobId: JOB_ID, attempt, error: { code, message: `${code} happened` }, finishedAt: at(atMs), durationMs, ...SETTLEMENT },
  }),
  cancelled: (atMs: number, durationMs: number | null): JobEvent => ({
    type: 'JobCancelled',
    data: { jobId: JOB_ID, cancelledAt: at(atMs), durationMs, ...SETTLEMENT },
  }),
};
