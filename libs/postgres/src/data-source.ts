import { DataSource, type MigrationInterface } from 'typeorm';

/** A migration class contributed by a module (event log, read models, …). */
export type MigrationClass = new () => MigrationInterface;

export interface CreateDataSourceOptions {
  /** Connections in the pool. Keep it modest: several services may share one Postgres. Default 10. */
  poolSize?: number;
  applicationName?: string;
  /** Entity classes, for modules that use TypeORM repositories (raw SQL needs none). */
  entities?: Array<string | (new (...args: never[]) => unknown)>;
  logging?: boolean;
}

/**
 * A TypeORM DataSource for Postgres. Never `synchronize`: the schema is only what the explicit
 * migrations create. Migrations are not run on initialize; call `runMigrations` at start-up.
 *
 * TypeORM orders migrations by the 13-digit millisecond timestamp that ends each class name
 * (`CreateEventLog1700000000000`; sqlMigration checks it), whatever the array order; name new migrations accordingly.
 */
export function createDataSource(url: string, migrations: MigrationClass[], opts: CreateDataSourceOptions = {}): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    synchronize: false,
    migrationsRun: false,
    migrations,
    migrationsTransactionMode: 'each',
    entities: opts.entities ?? [],
    poolSize: opts.poolSize ?? 10,
    applicationName: opts.applicationName ?? 'upscaler',
    logging: opts.logging ?? false,
  });
}

/** Session-level advisory lock key serialising migration runs (arbitrary constant: "upsm"). */
export const MIGRATION_LOCK_KEY = 0x7570736d;

/**
 * Initialises the DataSource if needed and applies pending migrations, each in its own transaction.
 * Several services (or replicas) may start at once against one database: a session advisory lock
 * makes them run one after another, so each migration is applied exactly once.
 * Returns the names of the migrations applied by this call.
 */
export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  if (!dataSource.isInitialized) await dataSource.initialize();
  const lockHolder = dataSource.createQueryRunner();
  await lockHolder.connect();
  try {
    await lockHolder.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      return applied.map((m) => m.name);
    } finally {
      await lockHolder.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await lockHolder.release();
  }
}
