import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DomainError, streams } from '@upscaler/contracts';
import type { CheckpointStore } from '@upscaler/eventstore';
import { InProcessTransport } from '@upscaler/messaging';
import { configSection, loadConfig } from '@upscaler/config';
import { LocalFolderStorage } from '@upscaler/storage';
import { createTestEventLog, gradientImage, useTestPostgres, type TestEventLog } from '@upscaler/testing';
import { billingConfig, ReservationCommandHandler, ReserveResponder } from '@upscaler/billing';
import { IdempotencyKeys } from '../src/http/idempotency-keys';
import { ImageInspector } from '../src/http/image-inspector';
import { ImageSource } from '../src/http/image-source';
import { JobsService, type SubmitImage } from '../src/http/jobs.service';
import { parseSubmitFields, type SubmitFields } from '../src/http/submit-request';
import { jobsConfig } from '../src/jobs.config';
import { JobCommandHandler } from '../src/job.command-handler';

/**
 * The submit saga (docs/design.md §2: claim the Idempotency-Key, reserve with billing, store the source, append
 * JobQueued under the reservation's guard; on any failure hand the credits and the key back) in the middle tier:
 * JobsService against a real Postgres event log with every inline projection, billing's own ReserveResponder
 * answering over the in-process transport (what the standalone composes), and files in a local folder. No Nest, no
 * HTTP: each case gives a state, submits, and asserts the exact balance, streams and files that follow.
 */
const pg = useTestPostgres();
let log: TestEventLog;
let transport: InProcessTransport;
let dir: string;
let storage: FlakyStorage;
/** What the next storage.put does: undefined stores, an Error is thrown (a full or unreachable object store). */
let putFails: Error | undefined;
const config = loadConfig({ UPSCALE_BILLING_TIMEOUT_MS: '300', UPSCALE_DEFAULT_QUALITY: 'fast' }, [billingConfig, jobsConfig]);

/** The local folder, with a put that throws while `putFails` is set. */
class FlakyStorage extends LocalFolderStorage {
  override put(key: string, body: Buffer, contentType: string) {
    return putFails ? Promise.reject(putFails) : super.put(key, body, contentType);
  }
}

function service(billing: InProcessTransport = transport, cfg = config): JobsService {
  const billingSettings = configSection(cfg, billingConfig);
  const jobSettings = configSection(cfg, jobsConfig);
  const keys = new IdempotencyKeys(log.store, log.clock, billingSettings, log.readModels);
  return new JobsService(
    new JobCommandHandler(log.store, log.clock),
    billing,
    storage,
    jobSettings,
    billingSettings,
    log.readModels,
    new ImageInspector(jobSettings),
    new ImageSource(cfg),
    keys,
  );
}

beforeAll(async () => {
  log = await createTestEventLog(pg);
  transport = new InProcessTransport({ store: log.store, checkpoints: {} as CheckpointStore });
  await new ReserveResponder(new ReservationCommandHandler(log.store, log.clock), transport, log.balances).onApplicationBootstrap();
  dir = mkdtempSync(join(tmpdir(), 'upscaler-saga-'));
  storage = new FlakyStorage({ dir, publicBaseUrl: 'http://127.0.0.1:1', secret: 'saga-test-secret-0123456789' });
});
afterAll(async () => {
  await transport?.close();
  await log?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  putFails = undefined;
});

/** A POST /upscale request's fields: the parser's defaults (2k, png, photo), then `over`. */
const fields = (over: Partial<SubmitFields> = {}): SubmitFields => ({ ...parseSubmitFields({}), ...over });
const upload = async (width = 64, height = 48): Promise<SubmitImage> => ({
  kind: 'upload',
  bytes: await gradientImage(width, height),
  originalName: 'cat.png',
});
const principal = (accountId: string) => ({ accountId, keyId: 'key_test', scopes: [] });
const code = (e: unknown) => (e instanceof DomainError ? e.code : String(e));
const balance = async (accountId: string) => {
  const a = await log.balances.account(accountId);
  return { balance: a!.balance, reserved: a!.reserved, charged: a!.charged };
};
const eventTypes = async (stream: string) => (await log.store.readStream(stream)).map((e) => e.type);
/** How many files the object store holds (the local folder's layout is its own business). */
const storedFiles = () => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
/** The job ids billing reserved for on an account (its balance projection's reservations), in id order. */
const reservationsOf = async (accountId: string) =>
  (await log.db.query(`SELECT job_id FROM credit_reservations WHERE account_id = $1 ORDER BY job_id`, [accountId])).map(
    (r: { job_id: string }) => r.job_id,
  );

describe('submit saga (middle tier)', () => {
  it('given 10 credits, when a 2k job is submitted, then 3 are reserved, the source and thumbnail stored, the job queued', async () => {
    const accountId = await log.openAccount(10);
    const out = await service().submit(principal(accountId), fields(), await upload(), null);
    const jobId = out.job.id;
    expect([out.replay, out.job.status, out.job.target, out.job.credits]).toEqual([false, 'queued', '2k', 3]);
    expect(await balance(accountId)).toEqual({ balance: 7, reserved: 3, charged: 0 });
    expect(await eventTypes(streams.reservation(jobId))).toEqual(['CreditsReserved']);
    expect(await eventTypes(streams.job(jobId))).toEqual(['JobQueued']);
    const image = (await upload()) as { bytes: Buffer };
    expect(await storage.stat(`sources/${jobId}`)).toMatchObject({ bytes: image.bytes.length, contentType: 'image/png' });
    expect(await storage.stat(`thumbs/${jobId}`)).toMatchObject({ contentType: 'image/webp' });
  });

  it('given 2 credits, when a 2k job is submitted, then 402 insufficient_credits and nothing is reserved or stored', async () => {
    const accountId = await log.openAccount(2);
    const before = storedFiles();
    await expect(
      service()
        .submit(principal(accountId), fields(), await upload(), null)
        .catch(code),
    ).resolves.toBe('insufficient_credits');
    expect(await balance(accountId)).toEqual({ balance: 2, reserved: 0, charged: 0 });
    expect(await reservationsOf(accountId)).toEqual([]);
    expect(storedFiles()).toBe(before);
  });

  it('given billing does not answer, when a job is submitted, then 503 billing_unavailable and the key is free again', async () => {
    const accountId = await log.openAccount(10);
    const silent = new InProcessTransport({ store: log.store, checkpoints: {} as CheckpointStore });
    try {
      await expect(
        service(silent)
          .submit(principal(accountId), fields(), await upload(), 'k-silent')
          .catch(code),
      ).resolves.toBe('billing_unavailable');
    } finally {
      await silent.close();
    }
    // the same key then works once billing answers: the failed request left no job behind it
    const out = await service().submit(principal(accountId), fields(), await upload(), 'k-silent');
    expect([out.replay, out.job.status]).toEqual([false, 'queued']);
    expect(await balance(accountId)).toEqual({ balance: 7, reserved: 3, charged: 0 });
  });

  it('given the object store fails after the reservation, then the credits are handed back and the key is released', async () => {
    const accountId = await log.openAccount(10);
    putFails = new Error('disk full');
    await expect(
      service()
        .submit(principal(accountId), fields(), await upload(), 'k-store')
        .catch(code),
    ).resolves.toBe('Error: disk full');
    expect(await balance(accountId)).toEqual({ balance: 10, reserved: 0, charged: 0 });
    const [reserved] = await reservationsOf(accountId);
    expect(await eventTypes(streams.reservation(reserved))).toEqual(['CreditsReserved', 'CreditsRefunded']);
    expect(await eventTypes(streams.job(reserved))).toEqual([]);
    putFails = undefined;
    const retry = await service().submit(principal(accountId), fields(), await upload(), 'k-store');
    expect([retry.replay, retry.job.id === reserved]).toEqual([false, false]);
    expect(await balance(accountId)).toEqual({ balance: 7, reserved: 3, charged: 0 });
  });

  it('given a job made with an Idempotency-Key, when the same request is sent again, then the same job is answered and charged once', async () => {
    const accountId = await log.openAccount(10);
    const image = await upload();
    const first = await service().submit(principal(accountId), fields(), image, 'k-replay');
    const again = await service().submit(principal(accountId), fields(), image, 'k-replay');
    expect([again.replay, again.job.id]).toEqual([true, first.job.id]);
    expect(await balance(accountId)).toEqual({ balance: 7, reserved: 3, charged: 0 });
    expect(await reservationsOf(accountId)).toEqual([first.job.id]);
  });

  it('given a key used for one request, when another request reuses it, then 422 idempotency_key_reused', async () => {
    const accountId = await log.openAccount(10);
    await service().submit(principal(accountId), fields(), await upload(), 'k-reused');
    await expect(
      service()
        .submit(principal(accountId), fields({ target: '4k' }), await upload(), 'k-reused')
        .catch(code),
    ).resolves.toBe('idempotency_key_reused');
    expect(await balance(accountId)).toEqual({ balance: 7, reserved: 3, charged: 0 });
  });

  it('given a balance that covers one job, when the same keyed request arrives twice at once, then both get the one job', async () => {
    const accountId = await log.openAccount(3);
    const image = await upload();
    const [a, b] = await Promise.all([
      service().submit(principal(accountId), fields(), image, 'k-race'),
      service().submit(principal(accountId), fields(), image, 'k-race'),
    ]);
    expect(a.job.id).toBe(b.job.id);
    expect([a.replay, b.replay].sort()).toEqual([false, true]);
    expect(await balance(accountId)).toEqual({ balance: 0, reserved: 3, charged: 0 });
    expect(await reservationsOf(accountId)).toEqual([a.job.id]);
  });

  it('given an image too large for any target, then image_too_large_to_upscale before billing is asked', async () => {
    const accountId = await log.openAccount(10);
    // at most 64x48 x 2^2 output pixels: this 65x48 image has no target
    const small = loadConfig({ UPSCALE_MAX_OUTPUT_PIXELS: String(64 * 48 * 4), UPSCALE_DEFAULT_QUALITY: 'fast' }, [
      billingConfig,
      jobsConfig,
    ]);
    await expect(
      service(transport, small)
        .submit(principal(accountId), fields(), await upload(65, 48), null)
        .catch(code),
    ).resolves.toBe('image_too_large_to_upscale');
    expect(await reservationsOf(accountId)).toEqual([]);
    expect(await balance(accountId)).toEqual({ balance: 10, reserved: 0, charged: 0 });
  });
});
