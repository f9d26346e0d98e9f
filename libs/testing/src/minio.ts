import { rm } from 'node:fs/promises';
import { INSTALL_TIMEOUT_MS, runInfraScript, startInfraServer } from './infra-scripts';
import { retryOnAddressInUse } from './ports';

/** A real MinIO server on loopback for tests (scripts/infra/start-minio.sh). */
export interface TestMinio {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  port: number;
  consolePort: number;
  accessKey: string;
  secretKey: string;
  dataDir: string;
  stop(): Promise<void>;
  /** Starts it again after stop(), on the same data and ports (clients hold the address): fault tests. */
  start(): Promise<void>;
  /** Stops the server and deletes its data. */
  dispose(): Promise<void>;
}

/** Builds MinIO once (cached; the first build takes minutes) and returns the binary's path. */
export function ensureMinioInstalled(): Promise<string> {
  return runInfraScript('install-minio.sh', [], { timeoutMs: INSTALL_TIMEOUT_MS });
}

export async function startTestMinio(): Promise<TestMinio> {
  await ensureMinioInstalled();
  const accessKey = 'upscaler-test';
  const secretKey = 'upscaler-test-secret';
  const env = { MINIO_ROOT_USER: accessKey, MINIO_ROOT_PASSWORD: secretKey };
  const { dataDir, ports } = await startInfraServer('start-minio.sh', 'upscaler-minio-', 2, { timeoutMs: 120_000, env });
  const [port, consolePort] = ports as [number, number];
  const stop = () => runInfraScript('stop-minio.sh', [dataDir], { timeoutMs: 60_000 }).then(() => undefined);
  const start = () =>
    retryOnAddressInUse(
      () => runInfraScript('start-minio.sh', [dataDir, String(port), String(consolePort)], { timeoutMs: 120_000, env }),
      5,
      2_000,
    ).then(() => undefined);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    consolePort,
    accessKey,
    secretKey,
    dataDir,
    stop,
    start,
    async dispose() {
      await stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
