import { Client } from 'pg';
import { startDeployment, type Deployment } from '@upscaler/testing';

/**
 * The shared preamble of the distributed-*.e2e-spec.ts suites: one deployment per file (api, billing, webhooks and
 * `processors` processor processes on Kafka, MinIO and an embedded Postgres; libs/testing/src/deployment.ts) and a
 * Postgres client on its database for reading the event log, started before the file's tests and stopped after.
 * The api's rate limit is raised (the suites poll) and the default tier is `fast` unless `env` says otherwise.
 * `env` may be a function, read when the deployment starts (after the file's earlier beforeAll hooks). Read `dist.d` /
 * `dist.db` inside tests and hooks (they are set in beforeAll).
 */
export function useDeployment(
  opts: { processors?: number; env?: Record<string, string | undefined> | (() => Record<string, string | undefined>) } = {},
): { d: Deployment; db: Client } {
  const dist = {} as { d: Deployment; db: Client };
  beforeAll(async () => {
    dist.d = await startDeployment({
      processors: opts.processors ?? 1,
      env: {
        UPSCALE_RATE_LIMIT_PER_MINUTE: '100000',
        UPSCALE_DEFAULT_QUALITY: 'fast',
        UPSCALE_BILLING_TIMEOUT_MS: '30000',
        ...(typeof opts.env === 'function' ? opts.env() : opts.env),
      },
    });
    dist.db = new Client({ connectionString: dist.d.postgres.url });
    await dist.db.connect();
  }, 1_800_000);
  afterAll(async () => {
    await dist.db?.end();
    await dist.d?.stop();
  }, 300_000);
  return dist;
}

/** jobId -> how many events of `type` the log holds about it. */
export async function eventCountsByJob(db: Client, type: string): Promise<Record<string, number>> {
  const r = await db.query<{ job_id: string; n: string }>(
    `SELECT data->>'jobId' AS job_id, count(*) AS n FROM events WHERE type = $1 GROUP BY 1 ORDER BY 1`,
    [type],
  );
  return Object.fromEntries(r.rows.map((row) => [row.job_id, Number(row.n)]));
}
