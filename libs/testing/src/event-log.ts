import type { DataSource } from 'typeorm';
import { newId, streams, type JobQueuedData } from '@upscaler/contracts';
import { accountDecider, jobDecider, jobFixtures, reservationDecider, type JobCommand } from '@upscaler/domain';
import { handleCommand, PostgresEventStore, type HandleCommandOptions } from '@upscaler/eventstore';
import { balanceGuards, BalanceProjection, BalanceRepository, PROJECTIONS, Projector, ReadModelRepository } from '@upscaler/read-models';
import { ALL_MIGRATIONS, type Clock } from '@upscaler/runtime';
import { WorkQueueProjection, WorkQueueRepository } from '@upscaler/work-queue';
import type { TestPostgres } from './postgres';

/**
 * The middle tier's fixture (STYLE.md tiers): a real Postgres database with every migration and the
 * event store as the services run it (read models, balances and the work queue applied inside each
 * append), plus the repositories, so a service class is tested against the store it really uses,
 * without Nest, HTTP or the other services.
 */
export interface TestEventLog {
  db: DataSource;
  store: PostgresEventStore;
  readModels: ReadModelRepository;
  balances: BalanceRepository;
  workQueue: WorkQueueRepository;
  clock: Clock;
  /** An open account with `credits` granted. */
  openAccount(credits: number): Promise<string>;
  /** Reserves and submits a job as billing and the api do (2k, 3 credits unless `credits` says otherwise). */
  submitJob(accountId: string, overrides?: Partial<JobQueuedData>): Promise<string>;
  job(jobId: string, command: JobCommand, opts?: HandleCommandOptions): ReturnType<typeof handleCommand>;
  close(): Promise<void>;
}

export async function createTestEventLog(pg: Pick<TestPostgres, 'dataSource'>): Promise<TestEventLog> {
  const db = await pg.dataSource(ALL_MIGRATIONS);
  const store = new PostgresEventStore(db, {
    inlineProjections: [new Projector(PROJECTIONS), new BalanceProjection(), new WorkQueueProjection()],
  });
  const clock: Clock = { now: () => new Date() };
  const now = () => clock.now().toISOString();
  return {
    db,
    store,
    readModels: new ReadModelRepository(db),
    balances: new BalanceRepository(db),
    workQueue: new WorkQueueRepository(db),
    clock,
    async openAccount(credits) {
      const accountId = newId('acct');
      await handleCommand(store, streams.account(accountId), accountDecider, {
        type: 'OpenAccount',
        data: { accountId, name: 'test', credits, now: now() },
      });
      return accountId;
    },
    async submitJob(accountId, overrides = {}) {
      const jobId = overrides.jobId ?? newId('job');
      const credits = overrides.credits ?? 3;
      await handleCommand(
        store,
        streams.reservation(jobId),
        reservationDecider,
        { type: 'ReserveCredits', data: { accountId, jobId, amount: credits, now: now() } },
        { guard: (tx) => balanceGuards.reservable(tx, accountId, jobId, credits) },
      );
      const data: JobQueuedData = jobFixtures.aJobQueuedData({
        source: { ...jobFixtures.aJobQueuedData().source, key: `sources/${jobId}` },
        queuedAt: now(),
        ...overrides,
        jobId,
        accountId,
        credits,
      });
      await handleCommand(
        store,
        streams.job(jobId),
        jobDecider,
        { type: 'SubmitJob', data },
        { guard: (tx) => balanceGuards.jobMayBeCreated(tx, jobId) },
      );
      return jobId;
    },
    job: (jobId, command, opts) => handleCommand(store, streams.job(jobId), jobDecider, command, opts),
    close: () => store.close(),
  };
}
