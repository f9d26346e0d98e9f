import type { DataSource } from 'typeorm';
import type { AppConfig, Logger } from '@upscaler/config';
import type { EventStore, InlineProjection, PostgresEventStore } from '@upscaler/eventstore';
import type { EventTransport } from '@upscaler/messaging';
import type { ObjectStorage, SignedDownloadHandler } from '@upscaler/storage';
import type { ReadModelRepository } from '@upscaler/projections';
import type { WorkQueueRepository } from '@upscaler/work-queue';
import type { Clock } from './clock';
import type { Metrics } from './observability/metrics';
import type { Readiness } from './readiness';

/** Everything a service needs from the outside world, built once at start-up (embedded or distributed). */
export interface Runtime {
  mode: 'embedded' | 'distributed';
  config: AppConfig;
  logger: Logger;
  clock: Clock;
  db: DataSource;
  store: EventStore;
  transport: EventTransport;
  storage: ObjectStorage;
  /** Present with local-folder storage: the api serves signed downloads itself. */
  signedDownloads: SignedDownloadHandler | undefined;
  /** Run inside every append's transaction, in this order. */
  inlineProjections: InlineProjection[];
  /** The Postgres log itself (under `store`'s instrumentation), for projection rebuilds. */
  eventLog: PostgresEventStore;
  readModels: ReadModelRepository;
  workQueue: WorkQueueRepository;
  metrics: Metrics;
  /** Base URL the service prints and uses for local signed URLs. */
  publicBaseUrl: string;
  /** Checks for readiness: each resolves when its dependency (or consumer, or loop) works. */
  readiness: Readiness;
  close(): Promise<void>;
}
