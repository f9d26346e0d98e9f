import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type AppConfig, type Logger, loadOrCreateSecret } from '@upscaler/config';
import { createDataSource, runMigrations, startEmbeddedPostgres } from '@upscaler/postgres';
import { PostgresCheckpointStore, PostgresEventStore } from '@upscaler/eventstore';
import { EventRelay, InProcessTransport, KafkaTransport, type EventTransport, type TransportLog } from '@upscaler/messaging';
import { LocalFolderStorage, S3Storage, type ObjectStorage, type SignedDownloadHandler } from '@upscaler/storage';
import { ReadModelRepository } from '@upscaler/projections';
import { WorkQueueRepository } from '@upscaler/work-queue';
import { inlineProjectionsOf, metersOf, migrationsOf, type Capability } from './capability';
import { systemClock } from './clock';
import { InstrumentedEventStore } from './observability/instrumented-event-store';
import { Metrics } from './observability/metrics';
import { Readiness } from './readiness';
import { registerSystemGauges } from './observability/system-gauges';
import type { Runtime } from './runtime';

/** The standalone's exit status when its embedded Postgres died for good (docs/runbooks.md). */
export const EXIT_DATABASE_LOST = 75;

/**
 * Builds the adapters from configuration (docs/design.md §3): each of Postgres, transport and storage is
 * embedded unless its distributed setting is present. `service` names the process in logs and
 * Kafka client ids; `capabilities` (@upscaler/capabilities) bring their migrations and read models.
 */
export async function buildRuntime(
  config: AppConfig,
  logger: Logger,
  service: string,
  capabilities: readonly Capability[],
): Promise<Runtime> {
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const c of closers.reverse()) await c().catch((err) => logger.error({ err }, 'close failed'));
  };
  try {
    await mkdir(config.dataDir, { recursive: true });
    let url = config.databaseUrl;
    if (!url) {
      const pg = await startEmbeddedPostgres({
        dataDir: config.dataDir,
        log: (m: string) => logger.info({ component: 'postgres' }, m),
        // It died and could not be started again: exit, so that the service's supervisor (systemd, Docker's
        // restart policy, Kubernetes) starts it afresh; a live process without its database would answer 503 forever.
        onFailure: (err) => {
          logger.fatal({ err, component: 'postgres' }, 'embedded Postgres is gone and could not be restarted; exiting');
          process.exit(EXIT_DATABASE_LOST);
        },
      });
      closers.push(() => pg.stop());
      url = pg.url;
    }
    const db = createDataSource(url, migrationsOf(capabilities));
    await db.initialize();
    closers.push(() => db.destroy());
    await runMigrations(db);

    const metrics = new Metrics(service);
    // Every append, by any service, runs these inside its transaction (docs/design.md §2: read models,
    // balances settled with the job's final event, the work queue enqueued with JobQueued).
    const inlineProjections = inlineProjectionsOf(capabilities);
    const pgStore = new PostgresEventStore(db, { inlineProjections });
    closers.push(() => pgStore.close());
    registerSystemGauges(metrics, db);
    const readModels = new ReadModelRepository(db);
    const store = new InstrumentedEventStore(pgStore, metrics, metersOf(capabilities, metrics, readModels));
    const checkpoints = new PostgresCheckpointStore(db);
    const log: TransportLog = (level, message, extra) => logger[level]({ ...(extra ?? {}) }, message);
    let transport: EventTransport;
    if (config.kafka) {
      transport = new KafkaTransport({
        brokers: config.kafka.brokers,
        partitions: config.kafka.partitions,
        clientId: `upscaler-${service}`,
        log,
      });
      // Every service runs a relay replica; a Postgres advisory lock keeps exactly one active, the
      // others stand by, so the log is published once, in order, whichever pods are alive.
      const relay = new EventRelay({
        brokers: config.kafka.brokers,
        partitions: config.kafka.partitions,
        clientId: `upscaler-${service}-relay`,
        store: pgStore,
        checkpoints,
        lockConnection: url,
        log,
      });
      await relay.start();
      closers.push(() => relay.stop());
      // Join the reply topic's group now, so that the first POST /upscale does not wait for it.
      await (transport as KafkaTransport).warmUpRequests();
    } else {
      transport = new InProcessTransport({ store, checkpoints, log });
    }
    closers.push(() => transport.close());

    const publicBaseUrl = config.publicBaseUrl ?? `http://127.0.0.1:${config.port}`;
    let storage: ObjectStorage;
    let signedDownloads: SignedDownloadHandler | undefined;
    if (config.s3) {
      storage = new S3Storage({ ...config.s3 });
    } else {
      const local = new LocalFolderStorage({
        dir: config.dataDir,
        publicBaseUrl,
        secret: await loadOrCreateSecret(join(config.dataDir, 'storage-secret')),
      });
      storage = local;
      signedDownloads = local;
    }
    await storage.ensureReady();

    const readiness = new Readiness();
    readiness.register('postgres', async () => {
      await db.query('SELECT 1');
    });
    readiness.register('storage', () => storage.ping());
    const kafkaReady = (transport as { ping?: () => Promise<void> }).ping;
    if (config.kafka && kafkaReady) readiness.register('kafka', () => kafkaReady.call(transport));

    return {
      mode: config.databaseUrl || config.kafka || config.s3 ? 'distributed' : 'embedded',
      config,
      logger,
      clock: systemClock,
      db,
      store,
      transport,
      storage,
      signedDownloads,
      inlineProjections,
      readModels,
      workQueue: new WorkQueueRepository(db),
      eventLog: pgStore,
      metrics,
      publicBaseUrl,
      readiness,
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
