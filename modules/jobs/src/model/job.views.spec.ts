import type { JobEvent } from '@upscaler/contracts';
import { foldEvents } from '@upscaler/domain';
import { JOB_ID, SETTLEMENT, T0, aJobQueuedData, at, jobEvents as ev } from './job.fixtures';
import { jobDecider } from './job.decider';
import { thumbnailOf, toCancelView, toCreateView, toJobView, toListItemView } from './job.views';

const stateOf = (events: JobEvent[]) => foldEvents(jobDecider, events);

const queuedView = {
  id: JOB_ID,
  object: 'job',
  status: 'queued',
  target: '2k',
  filename: 'cat.jpg',
  credits: 3,
  error: null,
  source: { bytes: 48213, content_type: 'image/jpeg', width: 640, height: 480 },
  result: null,
  created_at: T0,
  finished_at: null,
  duration_ms: null,
  started_at: null,
  progress: 0,
  format: 'png',
  quality: 'balanced',
  requested_target: '2k',
  // The fixture's JobQueued carries no content hint, as every event written before the hint existed: read as photo.
  content: 'photo',
  // asked for by target
  size: null,
  files_expire_at: null,
};

describe('job views (spec 2, Job table)', () => {
  it('a queued job: every field, snake_case, nothing finished', () => {
    expect(toJobView(stateOf([ev.queued()]))).toEqual(queuedView);
  });

  it('a succeeded job has the result (bytes, content type, /api/v1 url), finished_at and duration_ms', () => {
    const view = toJobView(stateOf([ev.queued(), ev.started(1, 1_000), ev.succeeded(1, 4_000, 3_000)]));
    expect(view).toEqual({
      ...queuedView,
      status: 'succeeded',
      result: { bytes: 1523004, content_type: 'image/png', url: `/api/v1/jobs/${JOB_ID}/result`, width: 1280, height: 960 },
      finished_at: at(4_000),
      duration_ms: 3_000,
      started_at: at(1_000),
      progress: 1,
    });
  });

  it('a failed job carries error { code, message } and no result', () => {
    const view = toJobView(stateOf([ev.queued(), ev.started(1, 1_000), ev.failed(1, 2_000, 1_000, 'corrupt_image')]));
    expect([view.status, view.error, view.result, view.finished_at, view.duration_ms]).toEqual([
      'failed',
      { code: 'corrupt_image', message: 'corrupt_image happened' },
      null,
      at(2_000),
      1_000,
    ]);
  });

  it('a cancelled job has finished_at and no error', () => {
    const view = toJobView(stateOf([ev.queued(), ev.cancelled(700, null)]));
    expect([view.status, view.error, view.finished_at, view.duration_ms]).toEqual(['cancelled', null, at(700), null]);
  });

  it('a pending job (lost attempt waiting for its backoff) reports pending, progress back to 0, the lost start kept', () => {
    const view = toJobView(stateOf([ev.queued(), ev.started(1, 1_000), ev.lost(1, 2_000, 5_000)]), undefined, 0.7);
    expect([view.status, view.progress, view.started_at]).toEqual(['pending', 0, at(1_000)]);
  });

  it('progress: the running share while processing (clamped to 0..1, 0 when none came), null once failed or cancelled', () => {
    const running = stateOf([ev.queued(), ev.started(1, 1_000)]);
    expect([0.25, undefined, 1.5, -1].map((p) => toJobView(running, undefined, p).progress)).toEqual([0.25, 0, 1, 0]);
    expect(toJobView(running).started_at).toBe(at(1_000));
    const failed = stateOf([ev.queued(), ev.started(1, 1_000), ev.failed(1, 2_000, 1_000, 'corrupt_image')]);
    const cancelled = stateOf([ev.queued(), ev.cancelled(700, null)]);
    expect([toJobView(failed, undefined, 0.5).progress, toJobView(cancelled).progress, toJobView(cancelled).started_at]).toEqual([
      null,
      null,
      null,
    ]);
  });

  it('content: the hint the job was queued with; a JobQueued written before the hint existed reads as photo', () => {
    expect(toJobView(stateOf([ev.queued({ content: 'illustration' })])).content).toBe('illustration');
    expect(toJobView(stateOf([ev.queued({ content: 'photo' })])).content).toBe('photo');
    const older = ev.queued();
    expect('content' in older.data).toBe(false);
    expect(toJobView(stateOf([older, ev.started(1, 1_000), ev.succeeded(1, 4_000, 3_000)])).content).toBe('photo');
  });

  it('size: the pixel size the job was queued with, null for a target request', () => {
    const size = { width: 1920, height: null, fit: 'within' } as const;
    expect(toJobView(stateOf([ev.queued({ size, target: '3k', credits: 6, requestedTarget: '3k' })])).size).toEqual(size);
    expect(toJobView(stateOf([ev.queued()])).size).toBeNull();
  });

  it('a read-model state stored before startedAt was kept reads started_at from the running attempt', () => {
    const { startedAt: _dropped, ...old } = stateOf([ev.queued(), ev.started(1, 1_000)]);
    expect(toJobView(old).started_at).toBe(at(1_000));
  });

  it('while processing, duration_ms is the time elapsed so far when `now` is given, else null', () => {
    const state = stateOf([ev.queued(), ev.started(1, 1_000)]);
    expect([toJobView(state, at(3_500)).duration_ms, toJobView(state).duration_ms]).toEqual([2_500, null]);
  });

  it('`now` does not change the recorded duration of a finished job', () => {
    const state = stateOf([ev.queued(), ev.started(1, 1_000), ev.succeeded(1, 4_000, 3_000)]);
    expect(toJobView(state, at(60_000)).duration_ms).toBe(3_000);
  });

  it('reports the fallen-back target and the requested one', () => {
    const view = toJobView(stateOf([ev.queued({ target: '3k', requestedTarget: '4k', credits: 6 })]));
    expect([view.target, view.requested_target, view.credits]).toEqual(['3k', '4k', 6]);
  });

  it('an empty stream has no view: job_not_found', () => {
    expect(() => toJobView(jobDecider.initialState())).toThrow('No job with that id.');
  });

  it('create view: id, object, status, target, filename, credits, source, created_at', () => {
    expect(toCreateView(stateOf([ev.queued()]))).toEqual({
      id: JOB_ID,
      object: 'job',
      status: 'queued',
      target: '2k',
      filename: 'cat.jpg',
      credits: 3,
      source: { bytes: 48213, content_type: 'image/jpeg', width: 640, height: 480 },
      created_at: T0,
    });
  });

  it("list item view: the spec's id, object, status, target, credits, created_at, plus filename, format, quality, error", () => {
    expect(toListItemView(stateOf([ev.queued(), ev.started(1, 1_000)]))).toEqual({
      id: JOB_ID,
      object: 'job',
      status: 'processing',
      target: '2k',
      credits: 3,
      created_at: T0,
      filename: 'cat.jpg',
      format: 'png',
      quality: 'balanced',
      error: null,
      // a job without a stored thumbnail (accepted before thumbnails existed): none, whatever link is offered
      thumbnail: null,
    });
  });

  const THUMB = { key: `thumbs/${JOB_ID}`, bytes: 2190, width: 160, height: 120 };
  const withThumb = () => ev.queued({ source: { ...aJobQueuedData().source, thumbnail: THUMB } });

  it("list item view: the thumbnail's signed link with its stored size", () => {
    expect(toListItemView(stateOf([withThumb()]), 'https://files.example/thumbs/x?sig=1').thumbnail).toEqual({
      url: 'https://files.example/thumbs/x?sig=1',
      width: 160,
      height: 120,
    });
    expect(toListItemView(stateOf([withThumb()])).thumbnail).toBeNull();
  });

  it('thumbnailOf: the stored thumbnail until the files are deleted or expire', () => {
    expect(thumbnailOf(stateOf([withThumb()]), at(1_000))).toEqual(THUMB);
    expect(thumbnailOf(stateOf([ev.queued()]), at(1_000))).toBeNull();
    const deleted = stateOf([
      withThumb(),
      ev.cancelled(700, null),
      { type: 'JobFilesDeleted', data: { jobId: JOB_ID, accountId: SETTLEMENT.accountId, reason: 'operator', deletedAt: at(900) } },
    ]);
    expect(thumbnailOf(deleted, at(1_000))).toBeNull();
    // kept 60 s after the job ended at 700 ms: there until 60.7 s, gone from then on (before the sweep gets to it)
    const kept = stateOf([
      ev.queued({ source: { ...aJobQueuedData().source, thumbnail: THUMB }, fileRetentionSeconds: 60 }),
      ev.cancelled(700, null),
    ]);
    expect(thumbnailOf(kept, at(60_699))).toEqual(THUMB);
    expect(thumbnailOf(kept, at(60_700))).toBeNull();
  });

  it("a failed job's list item carries its error", () => {
    const item = toListItemView(stateOf([ev.queued(), ev.started(1, 1_000), ev.failed(1, 4_000, 3_000)]));
    expect([item.status, item.error?.code]).toEqual(['failed', 'engine_error']);
  });

  it('cancel view: id, object, status, target, credits, created_at, finished_at', () => {
    expect(toCancelView(stateOf([ev.queued(), ev.cancelled(700, null)]))).toEqual({
      id: JOB_ID,
      object: 'job',
      status: 'cancelled',
      target: '2k',
      credits: 3,
      created_at: T0,
      finished_at: at(700),
    });
  });
});
