import type { DataSource } from 'typeorm';
import { newId, type JobQueuedData } from '@upscaler/contracts';
import { JobCommandHandler, jobFixtures, type JobCommand, type JobState } from '@upscaler/jobs';
import { AccountCommandHandler, ReservationCommandHandler, balanceGuards, BalanceRepository } from '@upscaler/billing';
import { PostgresEventStore, type EventStore, type HandleCommandOptions, type HandleCommandResult } from '@upscaler/eventstore';
import { ReadModelRepository } from '@upscaler/projections';
import { CAPABILITIES } from '@upscaler/capabilities';
import { inlineProjectionsOf, migrationsOf, type Clock } from '@upscaler/runtime';
import { WorkQueueRepository } from '@upscaler/work-queue';
import type { TestPostgres } from './postgres';

/**
 * The middle tier's fixture (contributing/STYLE.md tiers): a real Postgres database with every migration and the
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
  /**
   * Reserves and submits a job as billing and the api do (2k, 3 credits unless `credits` says otherwise),
   * through `via` when given (e.g. a `freshStore()`, whose stream-state caches are empty).
   */
  submitJob(accountId: string, overrides?: Partial<JobQueuedData>, via?: EventStore): Promise<string>;
  /** Another store on the same database with the same inline projections: what a new process sees. */
  freshStore(): PostgresEventStore;
  job(jobId: string, command: JobCommand, opts?: HandleCommandOptions): Promise<HandleCommandResult<JobState>>;
  close(): Promise<void>;
}

export async function createTestEventLog(pg: Pick<TestPostgres, 'dataSource'>): Promise<TestEventLog> {
  const db = await pg.dataSource(migrationsOf(CAPABILITIES));
  const inlineProjections = inlineProjectionsOf(CAPABILITIES);
  const freshStore = () => new PostgresEventStore(db, { inlineProjections });
  const store = freshStore();
  const clock: Clock = { now: () => new Date() };
  const now = () => clock.now().toISOString();
  const jobs = new JobCommandHandler(store, clock);
  return {
    db,
    store,
    readModels: new ReadModelRepository(db),
    balances: new BalanceRepository(db),
    workQueue: new WorkQueueRepository(db),
    clock,
    async openAccount(credits) {
      const accountId = newId('acct');
      await new AccountCommandHandler(store, clock).handle(accountId, {
        type: 'OpenAccount',
        data: { accountId, name: 'test', credits, now: now() },
      });
      return accountId;
    },
    freshStore,
    async submitJob(accountId, overrides = {}, via = store) {
      const jobId = overrides.jobId ?? newId('job');
      const credits = overrides.credits ?? 3;
      await new ReservationCommandHandler(via, clock).handle(
        jobId,
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
      await new JobCommandHandler(via, clock).handle(
        jobId,
        { type: 'SubmitJob', data },
        { guard: (tx) => balanceGuards.jobMayBeCreated(tx, jobId) },
      );
      return jobId;
    },
    job: (jobId, command, opts) => jobs.handle(jobId, command, opts),
    close: () => store.close(),
  };
}
