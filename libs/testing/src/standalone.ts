import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The repository root (two levels above libs/testing/src, or its dist copy). */
export const REPO_ROOT = resolve(__dirname, __dirname.includes(`${join('dist', 'libs')}`) ? '../../../..' : '../../..');

export interface StartedService {
  baseUrl: string;
  apiUrl: string;
  port: number;
  dataDir: string;
  operatorToken: string;
  process: ChildProcess;
  /** Base URLs of every process behind this handle (one for the standalone; each service of a deployment). */
  serviceUrls?: string[];
  logs(): string;
  /** SIGTERM and wait for exit. */
  stop(): Promise<number | null>;
  /** SIGKILL (crash test) and wait for exit. */
  kill(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

export interface StartOptions {
  /** Which entry point: the standalone by default. */
  service?: 'standalone' | 'api' | 'billing' | 'processor' | 'webhooks';
  dataDir?: string;
  port?: number;
  env?: Record<string, string | undefined>;
  /** How long to wait for /health/ready. */
  readyTimeoutMs?: number;
}

/**
 * Starts a built service (`npm run build` first) as a child process on a loopback port and waits
 * until it reports ready. End-to-end tests talk to it over real HTTP only.
 */
export async function startService(opts: StartOptions = {}): Promise<StartedService> {
  const service = opts.service ?? 'standalone';
  if (service === 'standalone' && process.env.UPSCALE_E2E_MODE === 'distributed' && !opts.dataDir) {
    // The same end-to-end suites, unchanged, against separate processes on Kafka, MinIO and Postgres.
    const { startDeploymentAsService } = await import('./deployment');
    return startDeploymentAsService(opts);
  }
  const entry = join(REPO_ROOT, 'dist', 'services', service, 'src', 'main.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first`);
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), `upscaler-${service}-`));
  // Embedded Postgres runs initdb as its own user when we are root: it must be able to enter the dir.
  if (!opts.dataDir) chmodSync(dataDir, 0o755);
  const port = opts.port ?? (await freePort());
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(port),
    UPSCALE_HOST: '127.0.0.1',
    UPSCALE_DATA_DIR: dataDir,
    LOG_LEVEL: process.env.UPSCALE_TEST_LOG_LEVEL ?? 'warn',
    ...opts.env,
  };
  const child = spawn(process.execPath, [entry], { cwd: REPO_ROOT, env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d.toString()));
  child.stderr!.on('data', (d) => (output += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 90_000);
  let ready = false;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${service} exited with ${child.exitCode}:\n${output}`);
    try {
      const r = await fetch(`${baseUrl}/health/ready`);
      if (r.status === 200) {
        ready = true;
        break;
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  if (!ready) {
    child.kill('SIGKILL');
    throw new Error(`${service} did not become ready:\n${output}`);
  }
  const tokenFile = join(dataDir, 'operator-token');
  const operatorToken = opts.env?.UPSCALE_OPERATOR_TOKEN ?? (existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : '');
  return {
    baseUrl,
    apiUrl: `${baseUrl}/api/v1`,
    port,
    dataDir,
    operatorToken,
    process: child,
    logs: () => output,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
