import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobState } from '../src/model/job.state';
import { createLogger } from '@upscaler/config';
import { Metrics } from '@upscaler/runtime';
import { JobFiles } from '../src/files/job-files';
import { LocalFolderStorage, S3Storage, type ObjectStorage } from '@upscaler/storage';
import { createTestEventLog, useTestPostgres, type TestEventLog, startTestMinio, type TestMinio } from '@upscaler/testing';
import { FileRetentionSweeper } from '../src/workers/file-retention.sweeper';
import { jobSettings } from './job-settings.fixture';
import { JobCommandHandler } from '../src/job.command-handler';

/**
 * Retention in the middle tier (docs/operations.md "Retention"): the processor's FileRetentionSweeper against a real
 * Postgres event log, on each storage backend (a local folder, and S3 on a real MinIO). A moved clock stands in for
 * the hours: nothing is deleted before a job's files_expire_at, everything of that job after it, once.
 */
jest.setTimeout(120_000);
const pg = useTestPostgres();
let log: TestEventLog;
let minio: TestMinio;
let dir: string;

beforeAll(async () => {
  [log, minio, dir] = await Promise.all([createTestEventLog(pg), startTestMinio(), mkdtemp(join(tmpdir(), 'upscaler-retention-'))]);
});
afterAll(async () => {
  await log?.close();
  await minio?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const backends: Array<[string, () => Promise<ObjectStorage>]> = [
  [
    'local folder',
    async () => new LocalFolderStorage({ dir, publicBaseUrl: 'http://127.0.0.1:1', secret: 'a-test-secret-of-enough-bytes-0123' }),
  ],
  [
    'S3 (MinIO)',
    async () =>
      new S3Storage({
        endpoint: minio.endpoint,
        accessKey: minio.accessKey,
        secretKey: minio.secretKey,
        bucket: `retention-${Date.now()}`,
      }),
  ],
];

describe.each(backends)('the file retention sweep on %s storage', (_, makeStorage) => {
  let storage: ObjectStorage;
  let sweeper: FileRetentionSweeper;
  let nowMs: number;
  const metrics = new Metrics('processor');
  const clock = { now: () => new Date(nowMs) };

  beforeAll(async () => {
    storage = await makeStorage();
    await storage.ensureReady();
    const config = jobSettings({ UPSCALE_FILE_RETENTION: '1h' });
    const files = new JobFiles(new JobCommandHandler(log.store, clock), storage, metrics);
    sweeper = new FileRetentionSweeper(clock, config, createLogger('silent', 'processor'), log.readModels, files);
  });
  beforeEach(async () => {
    // each test starts from a log where nothing else is due
    await log.db.query(`UPDATE read_models SET next_at = NULL WHERE category = 'job'`);
  });

  /** A job accepted with `retention` seconds (none: kept), its source and result stored, finished at `finishedMs`. */
  async function finishedJob(retention: number | undefined, finishedMs: number, end: 'succeeded' | 'failed' | 'cancelled' = 'succeeded') {
    const accountId = await log.openAccount(3);
    const jobId = await log.submitJob(accountId, retention === undefined ? {} : { fileRetentionSeconds: retention });
    await storage.put(`sources/${jobId}`, Buffer.from('source bytes'), 'image/png');
    const at = new Date(finishedMs).toISOString();
    if (end === 'cancelled') {
      await log.job(jobId, { type: 'CancelJob', data: { now: at } });
      return jobId;
    }
    await log.job(jobId, { type: 'StartJob', data: { workerId: 'w', now: new Date(finishedMs - 1000).toISOString() } });
    if (end === 'failed') {
      await log.job(jobId, { type: 'FailJob', data: { attempt: 1, error: { code: 'engine_error', message: 'x' }, now: at } });
      return jobId;
    }
    const result = { key: `results/${jobId}`, bytes: 12, contentType: 'image/png', width: 2, height: 2 };
    await storage.put(result.key, Buffer.from('result bytes'), 'image/png');
    await log.job(jobId, {
      type: 'CompleteJob',
      data: { attempt: 1, result, engine: { network: 'n', scale: 2, engineMs: 1, tiles: 1 }, now: at },
    });
    return jobId;
  }
  const stored = async (jobId: string) => [!!(await storage.stat(`sources/${jobId}`)), !!(await storage.stat(`results/${jobId}`))];
  const lastEvent = async (jobId: string) => (await log.store.readStream(`job-${jobId}`)).at(-1)!;

  it('keeps the files until files_expire_at, deletes source and result just after it, and records that once', async () => {
    const finished = Date.parse('2026-11-28T10:00:00.000Z');
    const jobId = await finishedJob(3600, finished);
    const row = await log.readModels.byStream<JobState>(`job-${jobId}`);
    expect(row!.state.status).toBe('succeeded');

    nowMs = finished + 3600_000 - 1;
    expect(await sweeper.sweep()).toBe(0);
    expect(await stored(jobId)).toEqual([true, true]);

    nowMs = finished + 3600_000;
    expect(await sweeper.sweep()).toBe(1);
    expect(await stored(jobId)).toEqual([false, false]);
    const last = await lastEvent(jobId);
    expect([last.type, last.data]).toEqual([
      'JobFilesDeleted',
      { jobId, accountId: row!.accountId, reason: 'retention', deletedAt: '2026-11-28T11:00:00.000Z' },
    ]);
    // recorded: no longer due, and a second sweep finds nothing
    expect(await sweeper.sweep()).toBe(0);
    expect((await log.store.readStream(`job-${jobId}`)).filter((e) => e.type === 'JobFilesDeleted')).toHaveLength(1);
  });

  it('a failed and a cancelled job lose their source; a job accepted while files were kept is never swept', async () => {
    const finished = Date.parse('2026-11-28T12:00:00.000Z');
    const failed = await finishedJob(60, finished, 'failed');
    const cancelled = await finishedJob(60, finished, 'cancelled');
    const kept = await finishedJob(undefined, finished);
    nowMs = finished + 365 * 86_400_000;
    expect(await sweeper.sweep()).toBe(2);
    expect([await stored(failed), await stored(cancelled), await stored(kept)]).toEqual([
      [false, false],
      [false, false],
      [true, true],
    ]);
    expect([(await lastEvent(failed)).type, (await lastEvent(cancelled)).type, (await lastEvent(kept)).type]).toEqual([
      'JobFilesDeleted',
      'JobFilesDeleted',
      'JobSucceeded',
    ]);
  });

  it('sweeps every half of a short retention, at most every minute', () => {
    const every = (v: string) =>
      new FileRetentionSweeper(
        clock,
        jobSettings({ UPSCALE_FILE_RETENTION: v }),
        createLogger('silent', 'processor'),
        log.readModels,
        {} as JobFiles,
      ).intervalMs;
    expect([every('1s'), every('10s'), every('1h'), every('forever')]).toEqual([1_000, 5_000, 60_000, 60_000]);
  });
});
