import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { JobQueuedData } from '@upscaler/contracts';
import { createLogger } from '@upscaler/config';
import { Metrics } from '@upscaler/runtime';
import { LocalFolderStorage } from '@upscaler/storage';
import { createTestEventLog, gradientImage, useTestPostgres, type TestEventLog } from '@upscaler/testing';
import { EngineProvider } from '../src/workers/engine.provider';
import { JobRunner } from '../src/workers/job.runner';
import { jobSettings } from './job-settings.fixture';
import { JobCommandHandler } from '../src/job.command-handler';

/**
 * The processor's own logic in the middle tier: its JobRunner with the real engine, against a real Postgres event
 * log (the work queue, read models and balances applied inside each append) and a local storage folder, without Nest
 * or Kafka. Given a queued job and its lease, run(): what the job's stream, its result, the account's balance and the
 * work queue hold afterwards. (A storage fault during the run: job-runner-storage.int-spec.ts.)
 */
const pg = useTestPostgres();
let log: TestEventLog;
let dir: string;
let storage: LocalFolderStorage;
let engines: EngineProvider;
let runner: JobRunner;

beforeAll(async () => {
  log = await createTestEventLog(pg);
  dir = mkdtempSync(join(tmpdir(), 'upscaler-runner-'));
  const config = jobSettings({ UPSCALE_DEFAULT_QUALITY: 'fast', UPSCALE_ENGINE_THREADS: '1' });
  const logger = createLogger('silent', 'processor');
  storage = new LocalFolderStorage({ dir, publicBaseUrl: 'http://127.0.0.1:1', secret: 'a-test-secret-of-enough-bytes-0123' });
  await storage.ensureReady();
  engines = new EngineProvider(config, logger);
  await engines.onModuleInit();
  runner = new JobRunner(
    new JobCommandHandler(log.store, log.clock),
    storage,
    config,
    logger,
    new Metrics('processor'),
    log.workQueue,
    engines,
  );
}, 120_000);
afterAll(async () => {
  await engines?.onApplicationShutdown();
  await log?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  await log.db.query(`DELETE FROM work_queue`);
});

/** An account with 10 credits, a queued job reading `bytes` as its 24x16 PNG source, and the lease a processor takes. */
async function queuedAndClaimed(bytes: Buffer, overrides: Partial<JobQueuedData> = {}) {
  const accountId = await log.openAccount(10);
  const jobId = await log.submitJob(accountId, {
    quality: 'fast',
    format: 'png',
    target: '2k',
    source: { key: `sources/${accountId}`, bytes: bytes.length, contentType: 'image/png', format: 'png', width: 24, height: 16 },
    ...overrides,
  });
  await storage.put(`sources/${accountId}`, bytes, 'image/png');
  const { lease } = await log.workQueue.claim(runner.workerId, 60_000, 0);
  expect(lease?.jobId).toBe(jobId);
  return { accountId, jobId, lease: lease! };
}
const events = async (jobId: string) => log.store.readStream(`job-${jobId}`);
const balance = async (accountId: string) => {
  const a = await log.balances.account(accountId);
  return { balance: a!.balance, reserved: a!.reserved, charged: a!.charged };
};
const queueRows = async (jobId: string) =>
  Number((await log.db.query(`SELECT count(*) AS n FROM work_queue WHERE job_id = $1`, [jobId]))[0].n);

describe('the job runner (middle tier)', () => {
  it('given a queued 24x16 PNG at 2k, when run, then the 48x32 result is stored, the job succeeded and charged, its queue row gone', async () => {
    const { accountId, jobId, lease } = await queuedAndClaimed(await gradientImage(24, 16));
    expect(await runner.run(lease)).toBe('succeeded');
    const stream = await events(jobId);
    expect(stream.map((e) => e.type)).toEqual(['JobQueued', 'JobStarted', 'JobSucceeded']);
    const { result, engine } = stream[2].data as {
      result: { key: string; width: number; height: number; contentType: string; bytes: number };
      engine: { network: string; scale: number };
    };
    expect([result.key, result.width, result.height, result.contentType, engine.scale]).toEqual([
      `results/${jobId}`,
      48,
      32,
      'image/png',
      2,
    ]);
    const stored = await storage.get(result.key);
    expect([stored.length, (await sharp(stored).metadata()).width, (await sharp(stored).metadata()).height]).toEqual([
      result.bytes,
      48,
      32,
    ]);
    expect(await balance(accountId)).toEqual({ balance: 7, reserved: 0, charged: 3 });
    expect(await queueRows(jobId)).toBe(0);
  });

  it('given a PNG whose header reads but whose pixel data is cut off, when run, then it fails corrupt_image, refunded', async () => {
    // what the api's probe at submit lets through (it reads the header only); the decoder then finds rows missing
    const png = await gradientImage(24, 16);
    const { accountId, jobId, lease } = await queuedAndClaimed(png.subarray(0, Math.floor(png.length / 2)));
    expect(await runner.run(lease)).toBe('failed');
    const stream = await events(jobId);
    expect(stream.map((e) => e.type)).toEqual(['JobQueued', 'JobStarted', 'JobFailed']);
    expect((stream[2].data as { error: { code: string } }).error.code).toBe('corrupt_image');
    expect(await balance(accountId)).toEqual({ balance: 10, reserved: 0, charged: 0 });
    expect(await queueRows(jobId)).toBe(0);
  });

  it('given a job cancelled after its lease was taken, when run, then it is skipped: not started, nothing charged', async () => {
    const { accountId, jobId, lease } = await queuedAndClaimed(await gradientImage(24, 16));
    await log.job(jobId, { type: 'CancelJob', data: { now: new Date().toISOString() } });
    expect(await runner.run(lease)).toBe('skipped');
    expect((await events(jobId)).map((e) => e.type)).toEqual(['JobQueued', 'JobCancelled']);
    expect(await balance(accountId)).toEqual({ balance: 10, reserved: 0, charged: 0 });
    expect(await queueRows(jobId)).toBe(0);
  });
});
