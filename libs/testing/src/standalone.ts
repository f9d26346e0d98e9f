import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { withFreshPortsOnConflict } from './ports';

/** The repository root (two levels above libs/testing/src, or its dist copy). */
export const REPO_ROOT = resolve(__dirname, __dirname.includes(`${join('dist', 'libs')}`) ? '../../../..' : '../../..');

export interface StartedService {
  baseUrl: string;
  apiUrl: string;
  port: number;
  dataDir: string;
  operatorToken: string;
  /** The child process (absent in cluster mode, where the service runs in pods). */
  process?: ChildProcess;
  /** Base URLs of every process behind this handle (one for the standalone; each service of a deployment). */
  serviceUrls?: string[];
  logs(): string;
  /** SIGTERM and wait for exit. */
  stop(): Promise<number | null>;
  /** SIGKILL (crash test) and wait for exit. */
  kill(): Promise<void>;
}

export interface StartOptions {
  /** Which entry point: the standalone by default. */
  service?: 'standalone' | 'api' | 'billing' | 'processor' | 'webhooks';
  dataDir?: string;
  port?: number;
  env?: Record<string, string | undefined>;
  /** How long to wait for /health/ready. */
  readyTimeoutMs?: number;
  /** Node's own flags for the child (`--cpu-prof`, which NODE_OPTIONS does not take). */
  nodeArgs?: string[];
  /** Write the child's stdout (its JSON log) to this file instead of keeping it for logs() (a bench's millions of lines). */
  stdoutFile?: string;
}

/**
 * Starts a built service (`npm run build` first) as a child process on a loopback port and waits
 * until it reports ready. End-to-end tests talk to it over real HTTP only. A suite that runs in every mode starts
 * its target with startTarget (target.ts); this starts exactly the service named, whatever the mode.
 */
export async function startService(opts: StartOptions = {}): Promise<StartedService> {
  const service = opts.service ?? 'standalone';
  const entry = join(REPO_ROOT, 'dist', 'services', service, 'src', 'main.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first`);
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), `upscaler-${service}-`));
  // Embedded Postgres runs initdb as its own user when we are root: it must be able to enter the dir.
  if (!opts.dataDir) chmodSync(dataDir, 0o755);
  const launch = async (port: number) => {
    const env: Record<string, string | undefined> = {
      ...process.env,
      PORT: String(port),
      UPSCALE_HOST: '127.0.0.1',
      UPSCALE_DATA_DIR: dataDir,
      LOG_LEVEL: process.env.UPSCALE_TEST_LOG_LEVEL ?? 'warn',
      ...opts.env,
    };
    const stdout = opts.stdoutFile ? openSync(opts.stdoutFile, 'a') : 'pipe';
    const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), entry], {
      cwd: REPO_ROOT,
      env: env as NodeJS.ProcessEnv,
      stdio: ['ignore', stdout, 'pipe'],
    });
    if (typeof stdout === 'number') closeSync(stdout);
    const out = { text: '' };
    child.stdout?.on('data', (d) => (out.text += d.toString()));
    child.stderr!.on('data', (d) => (out.text += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const deadline = Date.now() + (opts.readyTimeoutMs ?? 90_000);
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`${service} exited with ${child.exitCode}:\n${out.text}`);
      try {
        const r = await fetch(`http://127.0.0.1:${port}/health/ready`);
        if (r.status === 200) return { port, child, out, exited };
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    child.kill('SIGKILL');
    throw new Error(`${service} did not become ready:\n${out.text}`);
  };
  // A port drawn for us may be drawn by another test process too: then start again on a fresh one.
  const { port, child, out, exited } =
    opts.port !== undefined ? await launch(opts.port) : await withFreshPortsOnConflict(1, ([p]) => launch(p!));
  const baseUrl = `http://127.0.0.1:${port}`;
  const tokenFile = join(dataDir, 'operator-token');
  const operatorToken = opts.env?.UPSCALE_OPERATOR_TOKEN ?? (existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : '');
  return {
    baseUrl,
    apiUrl: `${baseUrl}/api/v1`,
    port,
    dataDir,
    operatorToken,
    process: child,
    logs: () => out.text,
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
