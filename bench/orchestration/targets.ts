import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The three ways the bench runs the service: the standalone (one process, embedded Postgres,
 * in-process transport, local storage) and the distributed deployment (Kafka, MinIO, Postgres; api,
 * billing, webhooks and one, two or four processors as separate processes), all started from packages by
 * libs/testing, exactly as the end-to-end suites start them.
 */
export type Mode = 'standalone' | 'distributed, 1 processor' | 'distributed, 2 processors' | 'distributed, 4 processors';
export const MODES: Mode[] = ['standalone', 'distributed, 1 processor', 'distributed, 2 processors', 'distributed, 4 processors'];

export interface Target {
  mode: Mode;
  apiUrl: string;
  operatorToken: string;
  /** Postgres holding the event log (engine time per job is in JobSucceeded). */
  pgUrl: string;
  /** Log output of each process that runs jobs. */
  processorLogs(): string[];
  /** Log output of every process. */
  logs(): string;
  stop(): Promise<void>;
}

/** What the bench uses of libs/testing, which is loaded at run time (it is not part of the build). */
interface Service {
  apiUrl: string;
  operatorToken: string;
  logs(): string;
  stop(): Promise<unknown>;
}
interface Deployment {
  api: Service;
  billing: Service;
  webhooks: Service;
  processors: Service[];
  postgres: { url: string };
  env: Record<string, string>;
  stop(): Promise<void>;
}
interface Testing {
  startService(opts: { dataDir: string; env: Record<string, string>; readyTimeoutMs: number }): Promise<Service>;
  startDeployment(opts: { processors: number; env: Record<string, string> }): Promise<Deployment>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const testing = (): Testing => require('@upscaler/testing') as Testing;

export async function startTarget(mode: Mode, env: Record<string, string>): Promise<Target> {
  if (mode === 'standalone') {
    const dataDir = mkdtempSync(join(tmpdir(), 'upscaler-bench-'));
    chmodSync(dataDir, 0o755); // embedded Postgres runs as `postgres` when we are root
    try {
      const svc = await testing().startService({
        dataDir,
        env: { ...env, UPSCALE_OPERATOR_TOKEN: 'op-bench-orchestration' },
        readyTimeoutMs: 180_000,
      });
      const password = readFileSync(join(dataDir, 'postgres-password'), 'utf8').trim();
      const port = readFileSync(join(dataDir, 'postgres-port'), 'utf8').trim();
      return {
        mode,
        apiUrl: svc.apiUrl,
        operatorToken: svc.operatorToken,
        pgUrl: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/upscaler`,
        processorLogs: () => [svc.logs()],
        logs: () => svc.logs(),
        stop: async () => {
          await svc.stop();
          rmSync(dataDir, { recursive: true, force: true });
        },
      };
    } catch (e) {
      rmSync(dataDir, { recursive: true, force: true });
      throw e;
    }
  }
  const d = await testing().startDeployment({
    processors: mode === 'distributed, 4 processors' ? 4 : mode === 'distributed, 2 processors' ? 2 : 1,
    env,
  });
  return {
    mode,
    apiUrl: d.api.apiUrl,
    operatorToken: d.env.UPSCALE_OPERATOR_TOKEN,
    pgUrl: d.postgres.url,
    processorLogs: () => d.processors.map((p) => p.logs()),
    logs: () => [d.api, d.billing, d.webhooks, ...d.processors].map((p) => p.logs()).join('\n'),
    stop: () => d.stop(),
  };
}
