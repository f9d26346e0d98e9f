import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Runs the repo's scripts/infra/*.sh, which install (cached), start and stop real Kafka and MinIO
 * servers: there is no Docker engine on our machines (DESIGN 5).
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

/** A TCP port that was free on 127.0.0.1 a moment ago (the OS picks it). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export function makeTempDir(prefix: string): Promise<string> {
  return mkdtemp(path.join(tmpdir(), prefix));
}

/** The first install builds or downloads (MinIO's Go build takes minutes); later ones are instant. */
export const INSTALL_TIMEOUT_MS = 30 * 60_000;
