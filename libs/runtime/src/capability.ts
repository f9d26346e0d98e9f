import type { MigrationClass } from '@upscaler/platform';
import { EVENT_STORE_MIGRATIONS } from '@upscaler/eventstore';
import { Balances1764000000000, ReadModels1732200000100, type ProjectionDef } from '@upscaler/read-models';
import { WorkQueue1764000000100, WorkQueueProgress1764100000000 } from '@upscaler/work-queue';

/**
 * What a capability module (modules/<name>, docs/architecture.md) gives the runtime: the read models its streams fold
 * into and the migrations of its own tables. Every process runs every capability's migrations and projections,
 * whichever of its endpoints and workers it serves: they share one database, and an append by any of them must
 * update every read model inside its transaction (docs/design.md §2). The list is @upscaler/capabilities.
 */
export interface Capability {
  name: string;
  /** Read models folded by the projector (`read_models` rows), applied inside every append. */
  projections?: ProjectionDef[];
  /** Explicit migration files; TypeORM runs them in the order of the timestamp that ends each class name. */
  migrations?: MigrationClass[];
}

/** The tables of the libs themselves: the event log, the read-model rows, the balances and the work queue. */
const INFRASTRUCTURE_MIGRATIONS: MigrationClass[] = [
  ...EVENT_STORE_MIGRATIONS,
  ReadModels1732200000100,
  Balances1764000000000,
  WorkQueue1764000000100,
  WorkQueueProgress1764100000000,
];

/** Every migration of a system made of these capabilities (explicit files, never synchronised schemas). */
export function migrationsOf(capabilities: readonly Capability[]): MigrationClass[] {
  return [...INFRASTRUCTURE_MIGRATIONS, ...capabilities.flatMap((c) => c.migrations ?? [])];
}

/** Every read model the projector folds, the libs' own and the capabilities'. */
export function projectionsOf(capabilities: readonly Capability[], own: readonly ProjectionDef[]): ProjectionDef[] {
  return [...own, ...capabilities.flatMap((c) => c.projections ?? [])];
}
