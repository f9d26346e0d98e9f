import { createLogger } from '@upscaler/config';
import { Metrics } from '@upscaler/runtime';
import { LocalFolderStorage } from '@upscaler/storage';
import {
  createTestEventLog,
  gradientImage,
  mountSmallDisk,
  describeWithSmallDisk,
  useTestPostgres,
  type SmallDisk,
  type TestEventLog,
} from '@upscaler/testing';
import { EngineProvider } from '../src/workers/engine.provider';
import { JobRunner, STORAGE_RETRY_MS } from '../src/workers/job.runner';
import { jobSettings } from './job-settings.fixture';
import { JobCommandHandler } from '../src/job.command-handler';

/**
 * A passing storage fault never fails a job (docs/runbooks.md "Storage full or unreachable"), in the middle tier: the
 * processor's JobRunner with its real engine, against a real Postgres event log and the local storage folder on a
 * real disk that fills up (a tmpfs; root only, as CI runs). The engine's result cannot be written while the disk is
 * full: the runner keeps the result and its lease and tries again (STORAGE_RETRY_MS, 15.5 s); space freed within that
 * time, the job succeeds on its first attempt. A disk that stays full loses the attempt (pending, with backoff), not
 * the job; after the last attempt the job fails storage_unavailable (job.decider.spec.ts).
 */
const onSmallDisk = describeWithSmallDisk();
const pg = useTestPostgres();

onSmallDisk('the job runner when storage fills up', () => {
  let log: TestEventLog;
  let disk: SmallDisk;
  let engines: EngineProvider;
  let runner: JobRunner;
  const metrics = new Metrics('processor');

  beforeAll(async () => {
    log = await createTestEventLog(pg);
    disk = await mountSmallDisk(4 * 1024 * 1024);
    const config = jobSettings({ UPSCALE_RETRY_DELAY_MS: '300', UPSCALE_DEFAULT_QUALITY: 'fast', UPSCALE_ENGINE_THREADS: '1' });
    const logger = createLogger('silent', 'processor');
    const storage = new LocalFolderStorage({
      dir: disk.dir,
      publicBaseUrl: 'http://127.0.0.1:1',
      secret: 'a-test-secret-of-enough-bytes-0123',
    });
    await storage.ensureReady();
    engines = new EngineProvider(config, logger);
    await engines.onModuleInit();
    runner = new JobRunner(new JobCommandHandler(log.store, log.clock), storage, config, logger, metrics, log.workQueue, engines);
    // every test's job reads the same source image
    await storage.put('sources/shared', await gradientImage(24, 16), 'image/png');
  }, 120_000);
  afterAll(async () => {
    await engines?.onApplicationShutdown();
    await disk?.unmount();
    await log?.close();
  });
  beforeEach(async () => {
    await log.db.query(`DELETE FROM work_queue`);
  });

  async function submitAndClaim() {
    const accountId = await log.openAccount(3);
    const jobId = await log.submitJob(accountId, {
      quality: 'fast',
      source: { key: 'sources/shared', bytes: 1, contentType: 'image/png', format: 'png', width: 24, height: 16 },
    });
    const { lease } = await log.workQueue.claim(runner.workerId, 60_000, 0);
    expect(lease?.jobId).toBe(jobId);
    return { jobId, lease: lease! };
  }
  const types = async (jobId: string) => (await log.store.readStream(`job-${jobId}`)).map((e) => e.type);

  it('a disk full for 3 s while the result is written: the job succeeds on its first attempt, nothing left behind', async () => {
    const { jobId, lease } = await submitAndClaim();
    await disk.fill();
    const started = Date.now();
    const freed = new Promise<void>((r) => setTimeout(() => void disk.free().then(r), 3_000));
    const outcome = await runner.run(lease);
    await freed;
    console.log(`storage outage: disk full for 3 s during the result's write; job ${outcome} after ${Date.now() - started} ms, attempt 1`);
    expect(outcome).toBe('succeeded');
    expect(await types(jobId)).toEqual(['JobQueued', 'JobStarted', 'JobSucceeded']);
    expect((await disk.files('tmp')).length).toBe(0);
    expect(await disk.files('objects/results')).toEqual([`objects/results/${jobId}`]);
  }, 60_000);

  it('a disk that stays full: the attempt is lost with backoff and the reason, the job waits pending', async () => {
    const { jobId, lease } = await submitAndClaim();
    await disk.fill();
    try {
      const started = Date.now();
      expect(await runner.run(lease)).toBe('retrying');
      const sum = STORAGE_RETRY_MS.reduce((a, b) => a + b, 0);
      expect(Date.now() - started).toBeGreaterThanOrEqual(sum);
    } finally {
      await disk.free();
    }
    const events = await log.store.readStream(`job-${jobId}`);
    expect(events.map((e) => e.type)).toEqual(['JobQueued', 'JobStarted', 'JobAttemptLost']);
    const lost = events[2].data as { reason: string; lostAt: string; retryAt: string };
    expect([lost.reason.startsWith('storage unavailable: ENOSPC'), Date.parse(lost.retryAt) - Date.parse(lost.lostAt)]).toEqual([
      true,
      300,
    ]);
    expect((await log.readModels.byStream<{ status: string }>(`job-${jobId}`))!.state.status).toBe('pending');
    expect(await disk.files('tmp')).toEqual([]);
    const lostCounter = (await metrics.registry.getSingleMetric('upscaler_job_attempts_lost_total')!.get()).values;
    expect(lostCounter.map((v) => [v.labels.reason, v.value])).toEqual([['storage', 1]]);
  }, 60_000);
});
