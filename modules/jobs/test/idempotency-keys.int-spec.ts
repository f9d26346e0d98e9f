import { DomainError, newId, streams } from '@upscaler/contracts';
import { configSection, loadConfig } from '@upscaler/config';
import { billingConfig } from '@upscaler/billing';
import { createTestEventLog, useTestPostgres, type TestEventLog } from '@upscaler/testing';
import { sha256 } from '../src/http/idempotency';
import { IdempotencyKeys, type KeyClaim } from '../src/http/idempotency-keys';

/**
 * Idempotency keys survive crashes (docs/api.md "Idempotency"), in the middle tier: the key store against a real
 * Postgres event log, with a clock the test moves. A request that claimed a key and died before its job existed
 * leaves a claim without a job; a retry waits for it (409 `idempotency_in_progress` after about 5 s) until the claim
 * is 30 s old, then takes the key over, and the dead request, were it to come back, can no longer create its job.
 */
const pg = useTestPostgres();
let log: TestEventLog;
let offsetMs = 0;
let keys: IdempotencyKeys;

beforeAll(async () => {
  log = await createTestEventLog(pg);
  keys = new IdempotencyKeys(
    log.store,
    { now: () => new Date(Date.now() + offsetMs) },
    configSection(loadConfig({}, [billingConfig]), billingConfig),
    log.readModels,
  );
});
afterAll(async () => {
  await log?.close();
});

const code = (e: unknown) => (e instanceof DomainError ? e.code : String(e));
const types = async (stream: string) =>
  (await log.store.readStream(stream)).map(
    (e) => `${e.type}${'reason' in (e.data as object) ? `:${(e.data as { reason: string }).reason}` : ''}`,
  );

/** A request that claims `key` for a new job id and dies before creating it. */
async function claimAndDie(accountId: string, stream: string, fingerprint: string): Promise<KeyClaim> {
  const seen = await keys.lookup(accountId, stream, fingerprint);
  const claimed = await keys.claim(accountId, stream, seen, fingerprint, 'key-1', newId('job'));
  if (!('claim' in claimed)) throw new Error('expected a claim');
  return claimed.claim;
}

/** What the api's SubmitJob append does with the claim's guard: an append on another stream, refused if the key moved. */
const createJobUnder = (claim: KeyClaim) =>
  log.store.append(`probe-${claim.jobId}`, 0, [{ type: 'Probed', data: {} }], { guard: keys.guardFor(claim) }).then(
    () => 'created',
    (e: unknown) => code(e),
  );

it('a claim without a job blocks a retry for 30 s at most, then the retry takes the key over', async () => {
  expect(keys.abandonAfterMs).toBe(30_000);
  const accountId = await log.openAccount(10);
  const stream = streams.idempotency(accountId, sha256('key-1'));
  const dead = await claimAndDie(accountId, stream, 'fp');

  offsetMs = 20_000; // 20 s later: the claim may still be a live request
  const started = Date.now();
  await expect(keys.lookup(accountId, stream, 'fp').catch(code)).resolves.toBe('idempotency_in_progress');
  expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);

  offsetMs = 31_000; // past the bound: abandoned
  const seen = await keys.lookup(accountId, stream, 'fp');
  expect(seen).toEqual({ job: null, version: 1, previous: { jobId: dead.jobId, abandoned: true } });
  const jobId = newId('job');
  const retry = await keys.claim(accountId, stream, seen, 'fp', 'key-1', jobId);
  expect(retry).toEqual({ claim: { stream, version: 3, jobId, previous: { jobId: dead.jobId, abandoned: true } } });
  expect(await types(stream)).toEqual(['IdempotencyKeyClaimed', 'IdempotencyKeyReleased:abandoned', 'IdempotencyKeyClaimed']);

  // The dead request, had it only stalled, cannot create its job now; the retry can.
  expect(await createJobUnder(dead)).toBe('idempotency_in_progress');
  expect(await createJobUnder((retry as { claim: KeyClaim }).claim)).toBe('created');
  offsetMs = 0;
}, 30_000);

it('two retries over one abandoned claim: one takes the key, the other waits for its job', async () => {
  const accountId = await log.openAccount(10);
  const stream = streams.idempotency(accountId, sha256('key-1'));
  await claimAndDie(accountId, stream, 'fp');
  offsetMs = 31_000;
  const [a, b] = await Promise.all([keys.lookup(accountId, stream, 'fp'), keys.lookup(accountId, stream, 'fp')]);
  const first = await keys.claim(accountId, stream, a, 'fp', 'key-1', newId('job'));
  const second = await keys.claim(accountId, stream, b, 'fp', 'key-1', newId('job')).catch(code);
  expect(['claim' in first, second]).toEqual([true, 'idempotency_in_progress']);
  expect(await types(stream)).toEqual(['IdempotencyKeyClaimed', 'IdempotencyKeyReleased:abandoned', 'IdempotencyKeyClaimed']);
  offsetMs = 0;
}, 30_000);

it('a released key is claimed again at once, naming the earlier job id (its credits, if any, are handed back)', async () => {
  const accountId = await log.openAccount(10);
  const stream = streams.idempotency(accountId, sha256('key-1'));
  const failed = await claimAndDie(accountId, stream, 'fp');
  await keys.release(accountId, failed, 'request failed');
  const seen = await keys.lookup(accountId, stream, 'fp');
  expect(seen).toEqual({ job: null, version: 2, previous: { jobId: failed.jobId, abandoned: false } });
  await expect(keys.lookup(accountId, stream, 'other-fp')).resolves.toMatchObject({ job: null });
});
