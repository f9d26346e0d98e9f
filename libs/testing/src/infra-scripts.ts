import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { withFreshPortsOnConflict } from './ports';

/**
 * Runs the repo's scripts/infra/*.sh, which install (cached), start and stop real Kafka and MinIO
 * servers: there is no Docker engine on our machines (docs/design.md §5).
 */
export const INFRA_SCRIPTS_DIR = path.resolve(__dirname, '../../../scripts/infra');

export function runInfraScript(
  script: string,
  args: string[],
  opts: { timeoutMs: number; env?: NodeJS.ProcessEnv } = { timeoutMs: 120_000 },
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      [path.join(INFRA_SCRIPTS_DIR, script), ...args],
      {
        timeout: opts.timeoutMs,
        maxBuffer: 16 * 1024 * 1024,
        // The watcher started by the script stops the server if this (jest worker) process dies.
        env: { ...process.env, UPSCALE_INFRA_WATCH_PID: String(process.pid), ...opts.env },
      },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${script} ${args.join(' ')} failed: ${err.message}\n${stderr}`));
        else resolve(stdout.trim());
      },
    );
  });
}

/**
 * Starts a server with `start-*.sh <dataDir> <port>...` in a fresh temp folder on `portCount` fresh
 * loopback ports. A start that lost a port to another test process is retried from scratch: new
 * ports, new folder.
 */
export function startInfraServer(
  script: string,
  dirPrefix: string,
  portCount: number,
  opts: { timeoutMs: number; env?: NodeJS.ProcessEnv },
): Promise<{ dataDir: string; ports: number[] }> {
  return withFreshPortsOnConflict(portCount, async (ports) => {
    const dataDir = await makeTempDir(dirPrefix);
    try {
      await runInfraScript(script, [dataDir, ...ports.map(String)], opts);
    } catch (err) {
      await rm(dataDir, { recursive: true, force: true });
      throw err;
    }
    return { dataDir, ports };
  });
}

export function makeTempDir(prefix: string): Promise<string> {
  return mkdtemp(path.join(tmpdir(), prefix));
}

/** The first install builds or downloads (MinIO's Go build takes minutes); later ones are instant. */
export const INSTALL_TIMEOUT_MS = 30 * 60_000;
