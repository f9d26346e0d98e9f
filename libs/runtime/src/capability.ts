import type { ConfigSection } from '@upscaler/config';
import type { MigrationClass } from '@upscaler/postgres';
import { EVENT_STORE_MIGRATIONS, type InlineProjection } from '@upscaler/eventstore';
import { Projector, ReadModels1732200000100, type ProjectionDef, type ReadModelRepository } from '@upscaler/projections';
import { WorkQueue1764000000100, WorkQueueProgress1764100000000, WorkQueueProjection } from '@upscaler/work-queue';
import type { EventMeter } from './observability/instrumented-event-store';
import type { Metrics } from './observability/metrics';

/**
 * What a capability module (modules/<name>, docs/architecture.md) gives the runtime: the read models its streams fold
 * into, the projections with tables of their own, and those tables' migrations. Every process runs every capability's
 * migrations and projections, whichever of its endpoints and workers it serves: they share one database, and an
 * append by any of them must update every projection inside its transaction (docs/design.md §2). The list is
 * @upscaler/capabilities.
 */
export interface Capability {
  name: string;
  /** Read models folded by the projector (`read_models` rows), applied inside every append. */
  projections?: ProjectionDef[];
  /** Projections with tables of their own (InlineProjection: handles, apply, reset), made once per event store. */
  inlineProjections?: () => InlineProjection[];
  /** Explicit migration files; TypeORM runs them in the order of the timestamp that ends each class name. */
  migrations?: MigrationClass[];
  /**
   * Registers the capability's own Prometheus series on a process's Metrics (its gauges may read the read models at
   * scrape time) and answers what it counts in every appended event, if anything. Every process registers every
   * capability's series, so a dashboard finds each series on every service.
   */
  metrics?: (metrics: Metrics, readModels: ReadModelRepository) => EventMeter | undefined;
  /** Its own settings, read and checked with the process's at start-up (loadConfig); its classes get them by token. */
  config?: ConfigSection<unknown>[];
}

/** Every capability's config sections, for loadConfig. */
export function configSectionsOf(capabilities: readonly Capability[]): ConfigSection<unknown>[] {
  return capabilities.flatMap((c) => c.config ?? []);
}

/** Every capability's series on `metrics`, and their meters of appended events. */
export function metersOf(capabilities: readonly Capability[], metrics: Metrics, readModels: ReadModelRepository): EventMeter[] {
  return capabilities.flatMap((c) => c.metrics?.(metrics, readModels) ?? []);
}

/** The tables of the libs themselves: the event log, the read-model rows and the work queue. */
const INFRASTRUCTURE_MIGRATIONS: MigrationClass[] = [
  ...EVENT_STORE_MIGRATIONS,
  ReadModels1732200000100,
  WorkQueue1764000000100,
  WorkQueueProgress1764100000000,
];

/** Every migration of a system made of these capabilities (explicit files, never synchronised schemas). */
export function migrationsOf(capabilities: readonly Capability[]): MigrationClass[] {
  return [...INFRASTRUCTURE_MIGRATIONS, ...capabilities.flatMap((c) => c.migrations ?? [])];
}

/**
 * What every append runs inside its transaction, in this order: every capability's read-model rows, the capabilities'
 * own tables, then the work queue.
 */
export function inlineProjectionsOf(capabilities: readonly Capability[]): InlineProjection[] {
  return [
    new Projector(capabilities.flatMap((c) => c.projections ?? [])),
    ...capabilities.flatMap((c) => c.inlineProjections?.() ?? []),
    new WorkQueueProjection(),
  ];
}
