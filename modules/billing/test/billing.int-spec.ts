import { newId } from '@upscaler/contracts';
import { type BillingReserveReply } from '@upscaler/billing';
import { PostgresCheckpointStore } from '@upscaler/eventstore';
import { InProcessTransport, TOPICS } from '@upscaler/messaging';
import { configSection, createLogger, loadConfig } from '@upscaler/config';
import { billingConfig } from '../src/billing.config';
import { createTestEventLog, useTestPostgres, type TestEventLog } from '@upscaler/testing';
import { AccountsResponder } from '../src/workers/accounts.responder';
import { ReservationSweeper } from '../src/workers/reservation.sweeper';
import { ReserveResponder } from '../src/workers/reserve.responder';
import { AccountCommandHandler, ReservationCommandHandler } from '../src/billing.command-handlers';

/**
 * Billing on its own (the middle tier): its responders answer over the real in-process transport and
 * write to a real Postgres event log with the inline projections, as in the service. Reservations
 * never overdraw under concurrency, are idempotent per job, cost nothing of the account's history,
 * and are released only when their job never appeared; account streams hold only opening, grants and
 * limits.
 */
const pg = useTestPostgres();
let log: TestEventLog;
let transport: InProcessTransport;
let sweeper: ReservationSweeper;
const TIMEOUT = 10_000;

beforeAll(async () => {
  log = await createTestEventLog(pg);
  transport = new InProcessTransport({ store: log.store, checkpoints: new PostgresCheckpointStore(log.db) });
  const settings = configSection(loadConfig({ UPSCALE_RESERVATION_TIMEOUT_MS: '1000' }, [billingConfig]), billingConfig);
  await new ReserveResponder(new ReservationCommandHandler(log.store, log.clock), transport, log.balances).onApplicationBootstrap();
  await new AccountsResponder(new AccountCommandHandler(log.store, log.clock), transport).onApplicationBootstrap();
  sweeper = new ReservationSweeper(
    new ReservationCommandHandler(log.store, log.clock),
    settings,
    createLogger('silent', 'test'),
    log.balances,
  );
});
afterAll(async () => {
  await transport?.close();
  await log?.close();
});

const reserve = (accountId: string, jobId: string, amount = 3) =>
  transport.request<unknown, BillingReserveReply>(TOPICS.billingReserve, { accountId, jobId, amount }, TIMEOUT);

it('opens, grants and limits accounts on request; the account stream holds only those', async () => {
  const accountId = newId('acct');
  const ask = (command: unknown) => transport.request(TOPICS.billingAccounts, command, TIMEOUT);
  expect(await ask({ op: 'open', accountId, name: 'Acme', credits: 10 })).toEqual({ ok: true });
  expect(await ask({ op: 'grant', accountId, amount: 5 })).toEqual({ ok: true });
  expect(await ask({ op: 'limits', accountId, maxConcurrentJobs: 2 })).toEqual({ ok: true });
  expect(await ask({ op: 'open', accountId, name: 'Acme', credits: 0 })).toMatchObject({ ok: false, code: 'conflict' });
  expect(await ask({ op: 'grant', accountId: newId('acct'), amount: 5 })).toMatchObject({ ok: false, code: 'not_found' });
  await reserve(accountId, newId('job'));
  const types = (await log.store.readStream(`account-${accountId}`)).map((e) => e.type);
  expect([types, await log.balances.account(accountId)]).toMatchObject([
    ['AccountOpened', 'CreditsGranted', 'CreditsGranted', 'AccountLimitsSet'],
    { balance: 12, reserved: 3, charged: 0, max_concurrent_jobs: 2 },
  ]);
});

it('concurrent reservations never overdraw: balance 10, eight concurrent 3-credit reservations give three', async () => {
  const accountId = await log.openAccount(10);
  const replies = await Promise.all(Array.from({ length: 8 }, () => reserve(accountId, newId('job'))));
  expect(replies.filter((r) => r.ok).length).toBe(3);
  expect(replies.filter((r) => !r.ok).map((r) => (r.ok ? '' : r.code))).toEqual(Array(5).fill('insufficient_credits'));
  expect(await log.balances.account(accountId)).toMatchObject({ balance: 1, reserved: 9, charged: 0 });
});

it('a reservation is idempotent per job; an unknown account is account_not_found', async () => {
  const accountId = await log.openAccount(6);
  const jobId = newId('job');
  expect([await reserve(accountId, jobId), await reserve(accountId, jobId)]).toEqual([
    { ok: true, available: 3 },
    { ok: true, available: 3 },
  ]);
  expect(await reserve(newId('acct'), newId('job'))).toMatchObject({ ok: false, code: 'account_not_found' });
});

it('a request read after its answerBy (its sender already answered 503) reserves nothing', async () => {
  const accountId = await log.openAccount(6);
  const late = (answerBy: string) =>
    transport.request<unknown, BillingReserveReply>(
      TOPICS.billingReserve,
      { accountId, jobId: newId('job'), amount: 3, answerBy },
      TIMEOUT,
    );
  const past = new Date(Date.now() - 1).toISOString();
  expect(await late(past)).toEqual({
    ok: false,
    code: 'too_late',
    message: `The request was read after ${past}, when its sender stopped waiting.`,
  });
  expect(await late(new Date(Date.now() + 60_000).toISOString())).toEqual({ ok: true, available: 3 });
  expect(await log.balances.account(accountId)).toMatchObject({ balance: 3, reserved: 3 });
});

it('the sweep releases a reservation whose job never appeared, and then refuses that job; one whose job exists keeps it', async () => {
  const accountId = await log.openAccount(9);
  const orphan = newId('job');
  await reserve(accountId, orphan);
  const kept = await log.submitJob(accountId);
  await new Promise((r) => setTimeout(r, 1_100));
  // every reservation without a job is released (the earlier tests' included), each once
  const [{ held }] = await log.db.query(`SELECT count(*)::int AS held FROM credit_reservations WHERE status = 'held'`);
  expect([await sweeper.sweep(), await sweeper.sweep()]).toEqual([held, 0]);
  const refunds = (await log.store.readStream(`reservation-${orphan}`)).map((e) => [e.type, (e.data as { reason?: string }).reason]);
  expect(refunds).toEqual([
    ['CreditsReserved', undefined],
    ['CreditsRefunded', 'expired'],
  ]);
  expect(await log.balances.account(accountId)).toMatchObject({ balance: 6, reserved: 3 });
  // the api, far too slow, now tries to create the orphan's job: refused, nothing appended
  await expect(log.submitJob(accountId, { jobId: orphan })).rejects.toMatchObject({ code: 'billing_unavailable' });
  expect((await log.store.readStream(`job-${orphan}`)).length).toBe(0);
  expect((await log.store.readStream(`reservation-${kept}`)).map((e) => e.type)).toEqual(['CreditsReserved']);
});

it('a release request gives back only a reservation no job holds', async () => {
  const accountId = await log.openAccount(6);
  const given = newId('job');
  await reserve(accountId, given);
  const job = await log.submitJob(accountId);
  const release = (jobId: string) => transport.request(TOPICS.billingRelease, { accountId, jobId }, TIMEOUT);
  expect([await release(given), await release(given), await release(job)]).toEqual([
    { released: true },
    { released: false },
    { released: false },
  ]);
  expect(await log.balances.account(accountId)).toMatchObject({ balance: 3, reserved: 3 });
});

it("the job's final event is its settlement: charged on success, refunded on cancel, each once", async () => {
  const accountId = await log.openAccount(9);
  const done = await log.submitJob(accountId);
  const cancelled = await log.submitJob(accountId);
  const now = () => new Date().toISOString();
  await log.job(done, { type: 'StartJob', data: { workerId: 'w', now: now() } });
  await log.job(done, {
    type: 'CompleteJob',
    data: {
      attempt: 1,
      result: { key: 'r', bytes: 1, contentType: 'image/png', width: 1, height: 1 },
      engine: { network: 'n', scale: 2, engineMs: 1, tiles: 1 },
      now: now(),
    },
  });
  await log.job(cancelled, { type: 'CancelJob', data: { now: now() } });
  await expect(log.job(cancelled, { type: 'CancelJob', data: { now: now() } })).rejects.toMatchObject({ code: 'conflict' });
  expect(await log.balances.account(accountId)).toMatchObject({ balance: 6, reserved: 0, charged: 3 });
});
