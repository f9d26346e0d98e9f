/**
 * The deployment an end-to-end suite runs against, chosen by the jest project that runs it (jest.config.js):
 *   e2e              the standalone process (embedded Postgres, local files)
 *   e2e-distributed  api, billing, webhooks and two processors as separate processes on Kafka, MinIO and Postgres
 *   e2e-cluster      the chart's release on the local Kubernetes cluster (npm run test:cluster)
 * Each project sets the global `UPSCALE_E2E_MODE`; outside jest (benchmarks) it is the standalone.
 */
export type E2eMode = 'standalone' | 'distributed' | 'cluster';

export function e2eMode(): E2eMode {
  const mode = (globalThis as { UPSCALE_E2E_MODE?: unknown }).UPSCALE_E2E_MODE;
  return mode === 'distributed' || mode === 'cluster' ? mode : 'standalone';
}

/**
 * A describe for what only the standalone shows (one processor running one job at a time, signed links served by the
 * api itself); skipped in the other modes, where the same file's other tests still run.
 */
export const describeStandalone: jest.Describe = e2eMode() === 'standalone' ? describe : describe.skip;
